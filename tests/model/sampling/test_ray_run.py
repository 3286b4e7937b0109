"""Sampling over Ray (ray_run.py) against a local run, on the session's one Ray (tests/conftest.py's
ray_local: 2 CPUs, loopback only). Each test's bound is generous and its own."""
from __future__ import annotations

import argparse
import json
import os
import signal
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")

from tests.ray_procs import alive as _alive, worker_pids as _worker_pids  # noqa: E402
from commands.sample import add_sample_arguments, run_sample_command  # noqa: E402
from model.sampling.prompts import DEMO_PROMPTS  # noqa: E402
from model.sampling.ray_connect import RayError  # noqa: E402
from model.sampling.ray_run import RayOptions, run_sampling_ray  # noqa: E402
from model.sampling.run import Cancelled, run_sampling, run_to_end  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def local_greedy():
    return run_to_end(run_sampling(provider="cpu"))


def _per_prompt(result):
    return [(p.line, p.task_class, p.output_ids, p.accepted_counts, p.drafted_counts, p.target_output_ids,
             p.output_text) for p in result.prompts]


def _per_class(result):
    return [(c.task_class, c.prompts, c.stretches, c.drafted_tokens, c.accepted_tokens, c.generated_tokens,
             c.alpha, c.histogram, c.position_acceptance) for c in result.classes]


def test_demo_over_ray_equals_local_run_exactly(ray_local, local_greedy):
    result = run_to_end(run_sampling_ray(provider="cpu", options=RayOptions()))
    assert _per_prompt(result) == _per_prompt(local_greedy)
    assert _per_class(result) == _per_class(local_greedy)
    assert result.ray["retried_prompts"] == 0 and result.ray["failed_prompts"] == []
    assert len(result.ray["workers"]) == 2  # one per CPU of the 2-CPU Ray
    assert {p.ran_on for p in result.prompts} == set(result.ray["workers"])  # both took prompts
    data = result.to_dict()
    assert data["ray"]["nodes"][0]["node"] == "127.0.0.1" and data["prompts"][0]["attempts"] == 1
    assert "ray" not in local_greedy.to_dict() and "ran_on" not in local_greedy.to_dict()["prompts"][0]


def test_seeded_sampling_over_ray_equals_local_and_shipped_models_too(ray_local, tmp_path):
    # temperature > 0: each prompt's draws come from (seed, its line's index) alone, not from order or worker
    prompts = tmp_path / "few.jsonl"
    lines = DEMO_PROMPTS.read_text(encoding="utf-8").splitlines()
    prompts.write_text("\n".join(lines[::6]) + "\n", encoding="utf-8")
    args = dict(prompts_path=prompts, k=3, max_new_tokens=16, temperature=0.8, seed=7, provider="cpu")
    local = run_to_end(run_sampling(**args))
    seen = []
    shipped = run_to_end(run_sampling_ray(**args, options=RayOptions(ship_models=True, workers=2)),
                         lambda e: seen.append(e.message))
    assert _per_prompt(shipped) == _per_prompt(local) and _per_class(shipped) == _per_class(local)
    assert shipped.ray["models_shipped"] is True
    assert any(m.startswith("shipping the pair to the cluster: ") and m.endswith(" MB") for m in seen)


def test_a_worker_killed_mid_run_changes_nothing_but_the_retries(ray_local, local_greedy):
    gen = run_sampling_ray(provider="cpu", options=RayOptions())
    killed = None
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the run did not finish"
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if killed is None and event.prompts_done >= 4:
            pids = _worker_pids()
            assert len(pids) == 2
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)
    assert killed is not None and event.prompts_done == 48
    assert _per_prompt(result) == _per_prompt(local_greedy)  # every prompt once, none lost, none twice
    assert _per_class(result) == _per_class(local_greedy)
    retried = [p for p in result.prompts if p.attempts > 1]
    assert result.ray["retried_prompts"] == len(retried) >= 1
    assert all(p.ran_on != f"127.0.0.1 pid {killed}" for p in retried)
    assert result.ray["failed_prompts"] == []


def test_a_prompt_failing_every_attempt_is_named_and_the_rest_stands(ray_local, local_greedy):
    gen = run_sampling_ray(provider="cpu", options=RayOptions(max_attempts=1))
    killed = False
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if not killed and event.prompts_done >= 4:
            os.kill(_worker_pids()[0], signal.SIGKILL)
            killed = True
    failed = result.ray["failed_prompts"]
    assert 1 <= len(failed) <= 2  # what the killed worker held, with one attempt allowed
    assert all("demo.jsonl, line " in f and "failed 1 times, last: its worker died" in f for f in failed)
    kept = {p.line for p in result.prompts}
    assert len(kept) + len(failed) == 48
    assert _per_prompt(result) == [p for p in _per_prompt(local_greedy) if p[0] in kept]


def test_cancel_stops_every_worker_and_keeps_the_prompts_done(ray_local, local_greedy):
    flag = [False]
    gen = run_sampling_ray(provider="cpu", cancel=lambda: flag[0], options=RayOptions())
    pids: list[int] = []
    asked = time.monotonic()
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if not flag[0] and event.prompts_done >= 3:
            pids = _worker_pids()
            flag[0] = True
            asked = time.monotonic()
    took = time.monotonic() - asked
    assert took < 5.0, f"cancel took {took:.1f} s"
    assert result.ray["cancelled"] is True and 3 <= len(result.prompts) < 48
    by_line = {p[0]: p for p in _per_prompt(local_greedy)}
    assert all(p == by_line[p[0]] for p in _per_prompt(result))
    stop_by = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < stop_by:
        time.sleep(0.2)
    assert len(pids) == 2 and not any(_alive(p) for p in pids)
    with pytest.raises(Cancelled):  # cancelled before it starts: nothing runs
        run_to_end(run_sampling_ray(provider="cpu", cancel=lambda: True))


def test_a_node_without_the_models_or_with_another_onnxruntime_is_named(ray_local, tmp_path, monkeypatch):
    with pytest.raises(RayError, match=r"^before measuring: node 127\.0\.0\.1: draft model folder not found: "
                                       + str(tmp_path / "nowhere")):
        run_to_end(run_sampling_ray(draft_dir=tmp_path / "nowhere", provider="cpu"))
    import onnxruntime

    real = onnxruntime.__version__
    monkeypatch.setattr(onnxruntime, "__version__", "0.0.1")  # this machine's, as the driver sees it
    with pytest.raises(RayError, match=rf"node 127\.0\.0\.1: onnxruntime {real}, this machine 0\.0\.1$"):
        run_to_end(run_sampling_ray(provider="cpu"))


def test_sample_cli_over_ray_writes_the_local_json_plus_where(ray_local, local_greedy, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_sample_arguments(parser)
    out = tmp_path / "r.json"
    code = run_sample_command(parser.parse_args(["--ray", "--provider", "cpu", "--ray-workers", "1",
                                                 "--json", str(out)]))
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "Ray (local): 1 worker on 1 node" in text.out and "0 prompts retried" in text.out
    assert "1 worker alive" in text.err or "worker ready" in text.err
    data = json.loads(out.read_text())
    local = local_greedy.to_dict()
    assert [{k: v for k, v in p.items() if k not in ("ran_on", "attempts")} for p in data["prompts"]] == \
        local["prompts"]
    assert {p["ran_on"] for p in data["prompts"]} == set(data["ray"]["workers"]) and len(data["ray"]["workers"]) == 1
