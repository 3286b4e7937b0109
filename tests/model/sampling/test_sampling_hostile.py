"""Hostile input to the sampler: odd prompt files, odd requests, models that give unusable logits."""
from __future__ import annotations

import argparse
import os

import numpy as np
import pytest

pytest.importorskip("onnx")
from tests.onnx_tiny import TOKENS, write_model_folder  # noqa: E402

from commands.sample import add_sample_arguments, run_sample_command  # noqa: E402
from model.sampling.onnx_lm import ModelLoadError, ModelOutputError, OnnxCausalLM, load_pair  # noqa: E402
from model.sampling.prompts import PromptFileError, load_prompts  # noqa: E402
from model.sampling.run import run_sampling, run_to_end  # noqa: E402

GOOD = '{"task_class": "code", "prompt": "a b"}\n'


def _table(seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(5, 5)).astype(np.float32)


def _pair(base, draft_table=None, target_table=None, **kw):
    draft = write_model_folder(base / "draft", _table(4) if draft_table is None else draft_table, **kw)
    target = write_model_folder(base / "target", _table(3) if target_table is None else target_table, **kw)
    prompts = base / "prompts.jsonl"
    prompts.write_text(GOOD)
    return draft, target, prompts


def _sample(capsys, *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_sample_arguments(parser)
    code = run_sample_command(parser.parse_args(list(argv)))
    return code, capsys.readouterr().err


# --- prompt files -------------------------------------------------------------------------------
def test_device_prompt_file_is_refused_without_reading_it():
    with pytest.raises(PromptFileError, match="/dev/zero"):
        load_prompts("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_prompt_file_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "p.jsonl"
    os.mkfifo(fifo)
    # nobody writes to it: opening it would block forever
    with pytest.raises(PromptFileError, match="p.jsonl"):
        load_prompts(fifo)


def test_oversized_prompt_file_is_refused(tmp_path, monkeypatch):
    import model.common.safe_files as safe_files

    monkeypatch.setattr(safe_files, "LIMIT_PROMPT_FILE", 100)
    path = tmp_path / "big.jsonl"
    path.write_text(GOOD * 10)
    with pytest.raises(PromptFileError, match="big.jsonl"):
        load_prompts(path)


def test_bad_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(GOOD.encode() + b'{"task_class": "code", "prompt": "caf\xe9"}\n')
    with pytest.raises(PromptFileError, match=r"p.jsonl, line 2: not UTF-8"):
        load_prompts(path)


def test_lone_surrogate_is_a_one_line_error_naming_the_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(GOOD + '{"task_class": "code", "prompt": "x \\ud800 y"}\n')
    with pytest.raises(PromptFileError, match=r"p.jsonl, line 2: field 'prompt' holds a lone surrogate") as info:
        load_prompts(path)
    assert "\n" not in str(info.value)


def test_deeply_nested_json_line_is_worded(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(PromptFileError, match=r"line 1"):
        load_prompts(path)


# --- requests refused before anything loads --------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["--temperature", "inf"], "temperature must be a finite number"),
    (["--temperature", "nan"], "temperature must be a finite number"),
    (["--seed", "-1"], "seed must be from 0"),
    (["--max-new-tokens", str(10**18)], "max_new_tokens must be from 1"),
    (["--k", "100000"], "K must be from 1"),
])
def test_bad_requests_refused_before_the_models_load(capsys, monkeypatch, argv, words):
    import model.sampling.onnx_lm as onnx_lm

    def no_load(*_a, **_k):
        raise AssertionError("models loaded for a request that cannot run")

    monkeypatch.setattr(onnx_lm, "load_pair", no_load)
    code, err = _sample(capsys, *argv)
    assert code != 0
    assert words in err and err.count("\n") == 1


def test_budget_bounded_when_config_states_no_context(tmp_path, capsys):
    draft, target, prompts = _pair(tmp_path, context=None)
    code, err = _sample(capsys, "--draft", str(draft), "--target", str(target), "--prompts", str(prompts),
                        "--max-new-tokens", "1000000")
    assert code != 0 and err.count("\n") == 1
    assert "states no context length" in err and "draft" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json", "config.json"])
def test_fifo_in_a_model_folder_is_refused_without_blocking(tmp_path, name):
    draft, _target, _prompts = _pair(tmp_path)
    (draft / name).unlink()
    os.mkfifo(draft / name)
    with pytest.raises(ModelLoadError, match=name.replace(".", r"\.")):
        OnnxCausalLM(draft, "cpu")


def test_non_utf8_config_is_named(tmp_path):
    draft, _target, _prompts = _pair(tmp_path)
    (draft / "config.json").write_bytes(b'{"n_positions": 64, "name": "\xff"}')
    with pytest.raises(ModelLoadError, match=r"config.json: not UTF-8"):
        OnnxCausalLM(draft, "cpu")


# --- models that run but give unusable logits ----------------------------------------------------------
@pytest.mark.parametrize("poison, word", [(np.nan, "NaN"), (np.inf, "infinite"), (-np.inf, "infinite")])
def test_non_finite_logits_are_an_error_naming_the_model(tmp_path, poison, word):
    # all NaN used to read as every draft accepted: alpha 1.00
    bad = np.full((5, 5), poison, dtype=np.float32)
    draft, target, prompts = _pair(tmp_path, target_table=bad)
    with pytest.raises(ModelOutputError, match=rf"target: the model gives {word} logits"):
        run_to_end(run_sampling(draft, target, prompts, k=2, max_new_tokens=8, provider="cpu"))


def test_some_minus_infinity_logits_are_fine(tmp_path):
    # a masked token has logit -inf in many exports; only an all -inf row leaves nothing to choose
    table = _table(3)
    table[:, 4] = -np.inf
    draft, target, prompts = _pair(tmp_path, draft_table=table, target_table=table)
    result = run_to_end(run_sampling(draft, target, prompts, k=2, max_new_tokens=8, provider="cpu"))
    assert result.classes[0].alpha == 1.0  # the same model twice: every draft is the target's choice


def test_declared_2d_logits_refused_at_load(tmp_path):
    folder = write_model_folder(tmp_path / "m", _table(), flat_logits="declared")
    with pytest.raises(ModelLoadError, match=r"output 'logits' has 2 dimensions"):
        OnnxCausalLM(folder, "cpu")


def test_2d_logits_at_run_time_are_a_clear_error(tmp_path):
    # a graph whose declared shape is symbolic can still hand back [seq, vocab]
    folder = write_model_folder(tmp_path / "m", _table())
    model = OnnxCausalLM(folder, "cpu")
    session = model._stepper.session

    class Flattening:
        def run(self, names, feeds):
            outs = session.run(names, feeds)
            return [outs[0][0], *outs[1:]]

    model._stepper.session = Flattening()
    with pytest.raises(ModelOutputError, match=r"m: logits have shape \[2, 5\] for 2 token\(s\) fed; a causal LM "
                                              r"gives \[batch, sequence, vocab\]"):
        model.step(model.new_cache(), [0, 1])


def test_token_id_past_the_vocabulary_is_one_line_without_onnxruntime_log(tmp_path, capfd):
    # a tokenizer with a token more than the model has logits for
    tokens = TOKENS + ["f"]
    draft, target, prompts = _pair(tmp_path, tokens=tokens)
    prompts.write_text('{"task_class": "code", "prompt": "a f"}\n')
    with pytest.raises(PromptFileError, match=r"prompts.jsonl, line 1: the tokenizer gives token id 5, outside "
                                              r"the 5-token vocabulary"):
        run_to_end(run_sampling(draft, target, prompts, k=2, max_new_tokens=8, provider="cpu"))
    # and fed directly, the graph's own failure is worded, with no red log line from onnxruntime
    capfd.readouterr()
    model = OnnxCausalLM(target, "cpu")
    with pytest.raises(ModelOutputError, match=r"onnxruntime failed on a step") as info:
        model.step(model.new_cache(), [7])
    assert "\n" not in str(info.value)
    assert capfd.readouterr().err == ""


def test_loaded_pair_rejects_bad_seed_before_generating(tmp_path):
    draft, target, prompts = _pair(tmp_path)
    pair = load_pair(draft, target, "cpu")
    with pytest.raises(ValueError, match="seed must be from 0"):
        run_to_end(run_sampling(draft, target, prompts, k=2, max_new_tokens=8, seed=-1, pair=pair))
