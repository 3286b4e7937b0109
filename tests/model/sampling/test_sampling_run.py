"""run_sampling, the prompt loader and the sample command, on tiny graphs and the demo pair."""
from __future__ import annotations

import argparse
import json
import threading
import time

import numpy as np
import pytest

pytest.importorskip("onnx")
from tests.onnx_tiny import write_model_folder  # noqa: E402

from model.sampling.onnx_lm import load_pair  # noqa: E402
from model.sampling.prompts import DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET, PromptFileError, load_prompts  # noqa: E402
from model.sampling.providers import choose_provider  # noqa: E402
from commands.sample import add_sample_arguments, run_sample_command  # noqa: E402
from model.sampling.run import Cancelled, SamplingProgress, run_sampling, run_to_end  # noqa: E402
from model.sampling.speculative import speculative_generate, target_generate  # noqa: E402

CLASS_KEYS = {"task_class", "stretches", "drafted_tokens", "accepted_tokens", "generated_tokens", "alpha",
              "draft_acceptance_rate", "mean_acceptance_length", "histogram", "c_measured",
              "speedup_measured", "speedup_predicted"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    base = tmp_path_factory.mktemp("pair")
    rng = np.random.default_rng(3)
    t = rng.normal(size=(5, 5)).astype(np.float32)
    write_model_folder(base / "draft", t + rng.normal(0, 0.5, size=(5, 5)).astype(np.float32))
    write_model_folder(base / "target", t)
    prompts = base / "prompts.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "a b"}\n\n'
                       '{"task_class": "prose", "prompt": "c"}\n{"task_class": "code", "prompt": "d e a"}\n')
    return base


@pytest.fixture(scope="module")
def demo_pair():
    return load_pair(DEMO_DRAFT, DEMO_TARGET, "cpu")


def _write(tmp_path, text: str):
    path = tmp_path / "p.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_prompt_file_errors_name_the_place(tmp_path):
    with pytest.raises(PromptFileError, match="prompt file not found"):
        load_prompts(tmp_path / "missing.jsonl")
    with pytest.raises(PromptFileError, match="has no prompts"):
        load_prompts(_write(tmp_path, "\n  \n"))
    with pytest.raises(PromptFileError, match=r"p.jsonl, line 2: not valid JSON"):
        load_prompts(_write(tmp_path, '{"task_class": "code", "prompt": "x"}\n{"task_class": code}\n'))
    with pytest.raises(PromptFileError, match=r"line 1: field 'prompt' is missing"):
        load_prompts(_write(tmp_path, '{"task_class": "code"}\n'))


def test_prompt_longer_than_context_refused(tiny, tmp_path):
    path = _write(tmp_path, '{"task_class": "code", "prompt": "a"}\n'
                            + json.dumps({"task_class": "prose", "prompt": "b " * 60}) + "\n")
    gen = run_sampling(tiny / "draft", tiny / "target", path, k=3, max_new_tokens=8, provider="cpu")
    with pytest.raises(PromptFileError, match=r"line 2: prompt is 60 tokens; .* exceeds the 64-token context"):
        run_to_end(gen)


def test_results_per_class_on_tiny_pair(tiny):
    events: list[SamplingProgress] = []
    result = run_to_end(run_sampling(tiny / "draft", tiny / "target", tiny / "prompts.jsonl", k=3,
                                     max_new_tokens=12, provider="cpu"), events.append)
    assert [c.task_class for c in result.classes] == ["code", "prose"]
    assert events[-1].prompts_done == events[-1].prompts_total == 3
    assert result.provider.startswith("CPU")
    for c in result.classes:
        assert sum(c.histogram) == c.stretches and len(c.histogram) == 4
        assert c.drafted_tokens == 3 * c.stretches
        assert c.accepted_tokens == sum(i * h for i, h in enumerate(c.histogram))
        assert 0 <= c.alpha <= 1 and c.c_measured > 0 and c.speedup_predicted > 0
        assert c.mean_acceptance_length == pytest.approx(1 + c.accepted_tokens / c.stretches)
    for p in result.prompts:
        assert p.output_ids == p.target_output_ids  # greedy: speculative == target-only
    data = json.loads(result.to_json())
    assert {"provider", "k", "temperature", "classes", "prompts"} <= set(data)
    assert all(CLASS_KEYS <= set(c) for c in data["classes"])
    assert all({"task_class", "output_ids", "accepted_counts"} <= set(p) for p in data["prompts"])


def test_seeded_sampling_run_is_reproducible(tiny):
    def once():
        r = run_to_end(run_sampling(tiny / "draft", tiny / "target", tiny / "prompts.jsonl", k=2,
                                    max_new_tokens=10, temperature=0.9, seed=5, provider="cpu"))
        return [(p.output_ids, p.accepted_counts) for p in r.prompts]
    assert once() == once()


def test_greedy_speculative_equals_target_on_demo_pair(demo_pair):
    draft, target = demo_pair
    prompts = load_prompts(DEMO_PROMPTS)
    seen: dict[str, int] = {}
    for p in prompts:
        if seen.get(p.task_class, 0) >= 2:
            continue
        seen[p.task_class] = seen.get(p.task_class, 0) + 1
        ids = target.encode(p.text)
        plain = target_generate(target, ids, 40)
        for k in (1, 4):
            spec = speculative_generate(draft, target, ids, k, 40)
            assert spec.output_ids == plain.output_ids, f"{p.task_class} line {p.line}, k={k}"
    assert len(seen) == 6


def test_demo_pair_shows_predictable_classes_accept_more(demo_pair):
    result = run_to_end(run_sampling(k=4, max_new_tokens=24, provider="cpu", pair=demo_pair))
    alpha = {c.task_class: c.alpha for c in result.classes}
    assert set(alpha) == {"code", "json", "extraction", "summarisation", "prose", "creative"}
    assert min(alpha["code"], alpha["json"], alpha["extraction"]) > max(alpha["prose"], alpha["creative"])


def test_cancel_stops_within_a_second(demo_pair):
    stop = threading.Event()
    gen = run_sampling(k=4, max_new_tokens=200, provider="cpu", cancel=stop, pair=demo_pair)
    for event in gen:
        if event.prompts_done >= 1:
            break
    stop.set()
    start = time.perf_counter()
    with pytest.raises(Cancelled):
        next(gen)
    assert time.perf_counter() - start < 1.0


def _count_loads(monkeypatch, on_session=None) -> dict[str, int]:
    """Count session creations and tokenizer loads; on_session(n) runs inside the n-th session creation."""
    import model.sampling.onnx_lm as onnx_lm

    counts = {"sessions": 0, "tokenizers": 0}
    real_session, real_tokenizer = onnx_lm.create_session, onnx_lm._load_tokenizer

    def session(*args, **kwargs):
        counts["sessions"] += 1
        if on_session is not None:
            on_session(counts["sessions"])  # e.g. the user presses Cancel while onnxruntime is busy
        return real_session(*args, **kwargs)

    def tokenizer(*args, **kwargs):
        counts["tokenizers"] += 1
        return real_tokenizer(*args, **kwargs)

    monkeypatch.setattr(onnx_lm, "create_session", session)
    monkeypatch.setattr(onnx_lm, "_load_tokenizer", tokenizer)
    return counts


def test_cancel_before_the_run_loads_nothing(tiny, monkeypatch):
    counts = _count_loads(monkeypatch)
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        run_to_end(run_sampling(tiny / "draft", tiny / "target", tiny / "prompts.jsonl", k=2, max_new_tokens=4,
                                provider="cpu", cancel=stop))
    assert counts == {"sessions": 0, "tokenizers": 0}


@pytest.mark.parametrize("during", [1, 2])
def test_cancel_during_a_model_load_stops_when_the_session_returns(tiny, monkeypatch, during):
    stop = threading.Event()
    counts = _count_loads(monkeypatch, lambda n: stop.set() if n == during else None)
    events: list[SamplingProgress] = []
    with pytest.raises(Cancelled):
        run_to_end(run_sampling(tiny / "draft", tiny / "target", tiny / "prompts.jsonl", k=2, max_new_tokens=4,
                                provider="cpu", cancel=stop), events.append)
    # nothing after the interrupted session creation: not its tokenizer, not the other model
    assert counts == {"sessions": during, "tokenizers": during - 1}
    assert [e.message for e in events] == ["loading models"]


def test_load_pair_honours_cancel_at_every_check(tiny):
    """A flag that turns true at its n-th reading stops the load there, for every n until the load is done."""
    stopped_at = []
    for n in range(1, 20):
        calls = 0

        def cancel() -> bool:
            nonlocal calls
            calls += 1
            return calls >= n

        try:
            load_pair(tiny / "draft", tiny / "target", "cpu", cancel=cancel)
        except Cancelled:
            assert calls == n  # raised at the very reading that said stop
            stopped_at.append(n)
            continue
        break
    # before, after the draft session, after the draft, after the target session, after the target,
    # and between the vocabulary reads: at least that many places to stop
    assert stopped_at == list(range(1, len(stopped_at) + 1)) and len(stopped_at) >= 7


def _args(**kw) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_sample_arguments(parser)
    argv = []
    for key, value in kw.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    return parser.parse_args(argv)


def test_sample_command_writes_table_and_json(tiny, tmp_path, capsys):
    out = tmp_path / "out" / "r.json"
    out.parent.mkdir()  # sample refuses a missing folder rather than create it
    code = run_sample_command(_args(draft=tiny / "draft", target=tiny / "target", prompts=tiny / "prompts.jsonl",
                                    k=2, max_new_tokens=6, provider="auto", json=out))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "code" in captured.out and "prose" in captured.out and "alpha" in captured.out
    data = json.loads(out.read_text())
    assert data["k"] == 2 and data["provider"].startswith(("CPU", "CUDA"))


def test_sample_command_errors_are_one_line(tiny, tmp_path, capsys):
    for kw in ({"prompts": tmp_path / "nope.jsonl"}, {"draft": tmp_path / "nodir"}):
        args = {"draft": tiny / "draft", "target": tiny / "target", "prompts": tiny / "prompts.jsonl", **kw}
        code = run_sample_command(_args(**args, provider="cpu"))
        err = capsys.readouterr().err
        assert code == 2
        assert err.startswith("sample: error:") and err.count("\n") == 1 and "Traceback" not in err


def test_sample_table_shows_a_dash_where_nothing_was_measured(tiny):
    # a class whose generations all stop before a full K-stretch has no alpha: the table must not say "nan"
    from commands.sample import format_table

    gen = run_sampling(tiny / "draft", tiny / "target", tiny / "prompts.jsonl", k=2, max_new_tokens=4, provider="cpu")
    result = run_to_end(gen)
    row = result.classes[0]
    for name in ("alpha", "draft_acceptance_rate", "mean_acceptance_length", "v_measured", "speedup_predicted"):
        setattr(row, name, float("nan"))
    text = format_table(result)
    assert "nan" not in text.lower() and "–" in text
    head, rows = text.splitlines()[2], text.splitlines()[4:]
    width = head.index("  histogram")
    assert all(line[width:width + 2] == "  " and line[width - 1] in "x–" for line in rows)  # columns line up


def test_sample_json_into_a_folder_fails_before_the_run(tiny, tmp_path, capsys, monkeypatch):
    import commands.sample as sc

    def never_called(*_a, **_k):
        raise AssertionError("the run started although its output cannot be written")
    monkeypatch.setattr(sc, "run_sampling", never_called)
    code = run_sample_command(_args(draft=tiny / "draft", target=tiny / "target", prompts=tiny / "prompts.jsonl",
                                    k=2, max_new_tokens=4, provider="cpu", json=tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is a folder" in err and str(tmp_path) in err


@pytest.mark.skipif(choose_provider("auto").device == "cuda", reason="this machine has a usable GPU")
def test_forced_cuda_without_a_gpu_is_refused_in_one_line(tiny, tmp_path, capsys):
    # a script that asks for CUDA wants GPU timings; CPU figures under that name would mislead
    out = tmp_path / "r.json"
    code = run_sample_command(_args(draft=tiny / "draft", target=tiny / "target", prompts=tiny / "prompts.jsonl",
                                    k=2, max_new_tokens=4, provider="cuda", json=out))
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and not out.exists()
    assert captured.err.startswith("sample: error: --provider cuda") and captured.err.count("\n") == 1
    assert "--provider auto" in captured.err
