"""Loading ONNX causal LMs: layouts, errors, vocabulary check, providers, cache paths."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
from tests.onnx_tiny import TOKENS, log_table, write_model_folder, write_tokenizer  # noqa: E402

from model.sampling.onnx_lm import ModelLoadError, OnnxCausalLM, VocabularyMismatch, load_pair  # noqa: E402
from model.sampling.prompts import DEMO_DRAFT, DEMO_TARGET  # noqa: E402
from model.sampling.providers import ProviderChoice, choose_provider, create_session  # noqa: E402

from tests.paths import ROOT  # noqa: E402
TABLE = log_table(np.full((5, 5), 0.2))


@pytest.mark.parametrize("layout,kind", [("kv", "kv"), ("merged", "merged"), ("plain", "plain")])
@pytest.mark.parametrize("fp16", [False, True])
def test_layout_read_from_graph(tmp_path, layout, kind, fp16):
    folder = write_model_folder(tmp_path / "m", TABLE, layout=layout, fp16=fp16, layers=3, heads=2, head_dim=4)
    lm = OnnxCausalLM(folder, "cpu")
    assert lm.layout.kind == kind
    if kind != "plain":
        assert (lm.layout.n_layers, lm.layout.n_kv_heads, lm.layout.head_dim) == (3, 2, 4)
        assert lm.layout.kv_dtype == (np.float16 if fp16 else np.float32)
    assert lm.vocab_size == 5 and lm.max_context == 64
    cache = lm.new_cache()
    logits = lm.step(cache, [1, 2])
    assert logits.shape == (2, 5) and cache.length == 2
    if kind != "plain":
        assert all(t.shape[2] == 2 for t in cache.tensors)  # the cache holds exactly what was fed
        lm.step(cache, [3])
        assert cache.tensors[-1].shape[2] == 3
        np.testing.assert_array_equal(np.asarray(cache.tensors[0], dtype=np.float32)[0, 0, :, 0], [1, 2, 3])
        lm.cut(cache, 2)
    lm.cut(cache, 1)
    assert cache.length == 1
    if kind != "plain":
        assert cache.tensors[0].shape == (1, 2, 1, 4)


def test_demo_pair_loads_and_describes_itself():
    draft, target = load_pair(DEMO_DRAFT, DEMO_TARGET, "cpu")
    assert target.layout.kind == "kv" and target.layout.n_layers > draft.layout.n_layers
    assert "layers" in target.describe()
    assert target.provider.device == "cpu"


def test_bound_cache_path_matches_host_path():
    """The I/O-binding path (used with CUDA) run on CPU gives the same logits, cut included."""
    host = OnnxCausalLM(DEMO_TARGET, "cpu", bind_cache=False)
    bound = OnnxCausalLM(DEMO_TARGET, "cpu", bind_cache=True)
    ids = host.encode("def load_items(items):\n")
    results = []
    for lm in (host, bound):
        cache = lm.new_cache()
        a = lm.step(cache, ids)
        b = lm.step(cache, [10, 11, 12])
        lm.cut(cache, len(ids) + 1)
        c = lm.step(cache, [11, 13])
        results.append((a, b, c, cache.length))
    for x, y in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(x, y, atol=1e-4)
    assert results[0][3] == results[1][3] == len(ids) + 3
    # the cut really forgot token 12: same as feeding the sequence fresh
    fresh = host.step(host.new_cache(), ids + [10, 11, 13])
    np.testing.assert_allclose(fresh[-2:], results[1][2], atol=1e-4)


def test_missing_folder_model_and_tokenizer(tmp_path):
    with pytest.raises(ModelLoadError, match="model folder not found"):
        OnnxCausalLM(tmp_path / "nowhere", "cpu")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="no ONNX model found"):
        OnnxCausalLM(tmp_path / "empty", "cpu")
    folder = write_model_folder(tmp_path / "m", TABLE)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelLoadError, match="tokenizer.json not found"):
        OnnxCausalLM(folder, "cpu")


def test_garbage_onnx_file_is_refused(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"this is not a protobuf at all")
    write_tokenizer(folder)
    with pytest.raises(ModelLoadError, match="onnxruntime cannot load it"):
        OnnxCausalLM(folder, "cpu")


def test_graph_that_is_not_a_causal_lm(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3])
    y = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 3])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["pixels"], ["scores"])], "cls", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder = tmp_path / "cls"
    folder.mkdir()
    onnx.save(model, str(folder / "model.onnx"))
    write_tokenizer(folder)
    with pytest.raises(ModelLoadError, match="is not a causal language model"):
        OnnxCausalLM(folder, "cpu")


def test_vocabulary_mismatch_refused(tmp_path):
    write_model_folder(tmp_path / "t", TABLE)
    write_model_folder(tmp_path / "renamed", TABLE, tokens=["a", "b", "c", "d", "z"])
    with pytest.raises(VocabularyMismatch, match="token id 4 is 'z' in the draft"):
        load_pair(tmp_path / "renamed", tmp_path / "t", "cpu")
    write_model_folder(tmp_path / "big", log_table(np.full((6, 6), 1 / 6)), tokens=TOKENS + ["f"])
    with pytest.raises(VocabularyMismatch, match="differ in size"):
        load_pair(tmp_path / "big", tmp_path / "t", "cpu")


def _cuda_works() -> bool:
    return choose_provider("auto").device == "cuda"


@pytest.mark.skipif(_cuda_works(), reason="this machine has a usable GPU")
def test_forced_cuda_falls_back_to_cpu_quietly(tmp_path, capfd):
    choice = choose_provider("cuda")
    assert choice.device == "cpu"
    assert choice.description.startswith("CPU (CUDA requested but not available")
    # even when the probe is bypassed, the session falls back and says so, without log noise
    folder = write_model_folder(tmp_path / "m", TABLE)
    session, got = create_session(str(folder / "model.onnx"), ProviderChoice("cuda", "CUDA", "cuda"))
    assert got.device == "cpu" and "CUDA" in got.description
    assert session.get_providers() == ["CPUExecutionProvider"]
    lm = OnnxCausalLM(folder, "cuda")
    assert lm.provider.device == "cpu" and lm.step(lm.new_cache(), [0]).shape == (1, 5)
    out, err = capfd.readouterr()
    assert "onnxruntime" not in err and "Error" not in err and out == ""


def test_unknown_provider_name():
    with pytest.raises(ValueError, match="provider must be one of"):
        choose_provider("tpu")


def test_model_package_imports_no_onnxruntime():
    code = ("import sys, model.sampling.onnx_lm, model.sampling.run, commands.sample, model.sampling.speculative; "
            "print('onnxruntime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


OPTIMUM = ROOT / "tests" / "data" / "optimum_llama"


def test_real_optimum_export_loads_and_runs():
    """A Llama graph written by optimum-cli (GQA: 4 heads, 2 KV heads), not by our own exporter."""
    from model.sampling.onnx_lm import check_same_vocabulary
    from model.sampling.speculative import speculative_generate, target_generate

    target = OnnxCausalLM(OPTIMUM, "cpu")
    lay = target.layout
    assert (lay.kind, lay.n_layers, lay.n_kv_heads, lay.head_dim) == ("kv", 2, 2, 8)
    assert target.max_context == 256 and 0 in target.eos_ids
    draft = OnnxCausalLM(DEMO_DRAFT, "cpu")
    check_same_vocabulary(draft, target)  # same tokenizer, saved by transformers
    ids = target.encode("def load_items(items):")
    plain = target_generate(target, ids, 20)
    assert speculative_generate(draft, target, ids, 3, 20).output_ids == plain.output_ids
    # as its own draft it must accept every token: the cache, positions and cuts line up
    self_run = speculative_generate(target, target, ids, 4, 20)
    assert self_run.output_ids == plain.output_ids and set(self_run.accepted_counts) == {4}
    bound = OnnxCausalLM(OPTIMUM, "cpu", bind_cache=True)
    assert speculative_generate(draft, bound, ids, 3, 20).output_ids == plain.output_ids


def test_stop_tokens_come_from_config_and_generation_config(tmp_path):
    import json

    folder = write_model_folder(tmp_path / "m", TABLE)
    config = json.loads((folder / "config.json").read_text())
    config["eos_token_id"] = 1
    (folder / "config.json").write_text(json.dumps(config))
    assert OnnxCausalLM(folder, "cpu").eos_ids == frozenset({1})
    (folder / "generation_config.json").write_text(json.dumps({"eos_token_id": [1, 2, True]}))
    assert OnnxCausalLM(folder, "cpu").eos_ids == frozenset({1, 2})
