"""Measure acceptance on a Ray cluster: run.py's per-prompt loop spread over Ray actors, the same numbers.

``run_sampling_ray(...)`` is a cancellable generator like ``run_sampling``: it yields SamplingProgress
(with the workers alive) and returns the same SamplingResult, plus where each prompt ran, how many
attempts it took, and a ``ray`` summary (nodes, workers, retried and failed prompts). Each prompt is
measured by run.measure_prompt, seeded by (seed, its position in the file) alone, and the classes are
summarised in file order over the same per-prompt runs, so every per-prompt count, α per class and
histogram equals a local run's; only the timings differ.

Faults: the driver hands each worker at most two prompts at a time and keeps every result by prompt
index, so a prompt is counted once. A worker that dies (killed, out of memory) is restarted by Ray and
its prompts go back in the queue for any worker; a prompt that fails `max_attempts` times is reported
by name and the rest of the run stands. Before measuring, each node is checked for the model folders
and for onnxruntime of this machine's version, and what is wrong is reported by node.
Cancel kills every worker (Ray stops their processes within seconds) and returns the prompts done,
``ray["cancelled"]`` set.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

from model.common.cancel import raise_if_cancelled
from model.common import formatting as fmt
from model.sampling.prompts import DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET, load_prompts
from model.sampling.ray_connect import RayError, RaySession, connect
from model.sampling.ray_worker import PairWorker, node_check, pack_folder, packed_size
from model.common.cancel import CancelCheck, cancel_flag
from model.sampling.run import (PromptResult, SamplingProgress, SamplingResult,
                                check_request, summarise_class, attach_intervals)

IN_FLIGHT = 2  # prompts a worker holds at once: one measuring, one queued, so it never waits on the driver
POLL_SECONDS = 0.2  # how often the driver looks at the cancel flag while it waits for results
NODE_CHECK_TIMEOUT = 120.0
SETUP_TIMEOUT = 600.0  # loading a large pair on a GPU takes minutes; a worker that never loads is an error


@dataclass(frozen=True)
class RayOptions:
    address: str | None = None  # None: a local Ray on this machine; "auto"; "ray://host:10001"
    workers: int | None = None  # None: one per CPU (or per GPU share) the cluster has
    gpus_per_worker: float = 0.0  # 0: workers run on CPU
    ship_models: bool = False  # send the model folders through the object store instead of a shared path
    max_attempts: int = 3  # per prompt, counting the first
    local_cpus: int | None = None  # CPUs of a local Ray (None: all of this machine's)


@dataclass
class _Tally:
    """What the run has so far, kept by prompt index: shared by the dispatch loop and the result's assembly."""

    done: dict[int, dict[str, Any]]
    failed: dict[int, str]
    attempts: list[int]
    cancelled: bool = False
    seconds: float = 0.0
    ort_seconds: float = 0.0


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def check_nodes(ray: Any, draft: str | None, target: str | None) -> list[dict[str, Any]]:
    """Every live node's check (node_check), run on that node; a RayError naming each node that fails."""
    import onnxruntime
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    task = ray.remote(num_cpus=0, max_retries=0)(node_check)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    refs = [task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
            .remote(draft, target) for n in nodes]
    infos, problems = [], []
    for node, ref in zip(nodes, refs):
        name = node.get("NodeManagerAddress", node["NodeID"][:8])
        try:
            info = ray.get(ref, timeout=NODE_CHECK_TIMEOUT)
        except Exception as exc:  # a node that cannot import the code, or never answers
            problems.append(f"node {name}: the check could not run ({type(exc).__name__}: "
                            f"{str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else ''})")
            continue
        infos.append(info)
        found = list(info["problems"])
        if info["onnxruntime"] and info["onnxruntime"] != onnxruntime.__version__:
            found.append(f"onnxruntime {info['onnxruntime']}, this machine {onnxruntime.__version__}")
        problems.extend(f"node {info['node']}: {p}" for p in found)
    if problems:
        raise RayError("before measuring: " + "; ".join(problems))
    return infos


def _cause_words(exc: BaseException) -> str:
    """A worker's error in one line: the prompt's own exception where Ray wraps one."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        text = str(cause).strip()
        return text.splitlines()[0][:300] if text else type(cause).__name__
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[-1][:200] if text else ''}"


def run_sampling_ray(draft_dir: str | Path = DEMO_DRAFT, target_dir: str | Path = DEMO_TARGET,
                     prompts_path: str | Path = DEMO_PROMPTS, k: int = 4, max_new_tokens: int = 48,
                     temperature: float = 0.0, seed: int = 0, provider: str = "auto", cancel: CancelCheck = None,
                     *, options: RayOptions = RayOptions(),
                     ) -> Generator[SamplingProgress, None, SamplingResult]:
    """The run of ``run_sampling`` over Ray workers; see the module's docstring."""
    check_request(k, max_new_tokens, temperature, seed)
    if options.gpus_per_worker < 0 or options.max_attempts < 1 or (options.workers is not None
                                                                   and options.workers < 1):
        raise ValueError("Ray workers and attempts must be at least 1, GPUs per worker 0 or more")
    check = cancel_flag(cancel)
    raise_if_cancelled(check)
    started = time.perf_counter()
    prompts = load_prompts(prompts_path)
    total = len(prompts)
    draft_dir, target_dir = str(Path(draft_dir).absolute()), str(Path(target_dir).absolute())
    yield SamplingProgress(0, total, 0.0, None, 0.0, f"connecting to Ray ({options.address or 'local'})")
    session = connect(options.address, local_cpus=options.local_cpus)
    actors: list[Any] = []
    try:
        ray = session.ray
        raise_if_cancelled(check)
        if options.ship_models:
            for role, folder in (("draft", draft_dir), ("target", target_dir)):
                if not Path(folder).is_dir():
                    raise RayError(f"--ray-ship-models: {role} model folder not found here: {folder}")
            size = packed_size([draft_dir, target_dir])
            yield SamplingProgress(0, total, 0.0, None, time.perf_counter() - started,
                                   f"shipping the pair to the cluster: {_mb(size)}")
            sources: tuple[Any, Any] = (ray.put(pack_folder(draft_dir)), ray.put(pack_folder(target_dir)))
            nodes = check_nodes(ray, None, None)
        else:
            yield SamplingProgress(0, total, 0.0, None, time.perf_counter() - started, "checking the nodes")
            nodes = check_nodes(ray, draft_dir, target_dir)
            sources = (draft_dir, target_dir)
        raise_if_cancelled(check)
        resources = ray.cluster_resources()
        gpus = options.gpus_per_worker
        count = options.workers or max(1, int(resources.get("GPU", 0) // gpus if gpus else resources.get("CPU", 1)))
        worker_provider = "cuda" if gpus > 0 else provider
        remote = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=options.max_attempts, max_task_retries=0)
        actor_class = remote(PairWorker)
        actors = [actor_class.remote(sources[0], sources[1], worker_provider, prompts, str(prompts_path), k,
                                     max_new_tokens, temperature, seed) for _ in range(count)]
        yield SamplingProgress(0, total, 0.0, None, time.perf_counter() - started,
                               f"loading the pair on {count} workers", workers_alive=0)
        where = yield from _wait_ready(ray, actors, check, total, started)
        tally = _Tally({}, {}, [0] * total)

        def assemble() -> SamplingResult:
            return _assemble(tally, prompts, str(prompts_path), where, nodes, session, options,
                             SamplingResult(provider="; ".join(sorted({w["provider"] for w in where})), k=k,
                                            temperature=temperature, seed=seed, max_new_tokens=max_new_tokens,
                                            draft=draft_dir, target=target_dir))

        yield from _dispatch(ray, actors, where, check, started, options.max_attempts, tally, assemble)
    finally:
        for actor in actors:
            try:
                session.ray.kill(actor, no_restart=True)
            except Exception:  # already gone
                pass
        session.close()
    return assemble()


def _assemble(tally: _Tally, prompts: list[Any], prompts_name: str, where: list[dict[str, Any]],
              nodes: list[dict[str, Any]], session: RaySession, options: RayOptions,
              out: SamplingResult) -> SamplingResult:
    """The result over the prompts done, in file order as a local run appends them, and the Ray summary."""
    by_class: dict[str, tuple[list[Any], list[Any]]] = {}
    done, attempts = dict(tally.done), tally.attempts
    for index in sorted(done):
        p, item = prompts[index], done[index]
        spec, plain = item["spec"], item["plain"]
        runs = by_class.setdefault(p.task_class, ([], []))
        runs[0].append(spec)
        runs[1].append(plain)
        out.prompts.append(PromptResult(p.task_class, p.line, spec.output_ids, spec.accepted_counts,
                                        plain.output_ids, item["text"], spec.drafted_counts,
                                        ran_on=item["ran_on"], attempts=attempts[index], prompt_key=p.key))
    out.classes = [summarise_class(name, out.k, spec, plain) for name, (spec, plain) in by_class.items()]
    attach_intervals(out, out.confidence)
    out.wall_seconds, out.ort_seconds = tally.seconds, tally.ort_seconds
    out.ray = {"address": session.address, "startup_seconds": session.startup_seconds,
               "workers": [f"{w['node']} pid {w['pid']}" for w in where],
               "nodes": [{"node": n["node"], "host": n["host"], "onnxruntime": n["onnxruntime"]} for n in nodes],
               "models_shipped": options.ship_models,
               "retried_prompts": sum(1 for i in done if attempts[i] > 1),
               "failed_prompts": [f"{prompts_name}, line {prompts[i].line} ({prompts[i].task_class}): {why}"
                                  for i, why in sorted(tally.failed.items())],
               "cancelled": tally.cancelled}
    return out


def _wait_ready(ray: Any, actors: list[Any], check: Any, total: int, started: float,
                ) -> Generator[SamplingProgress, None, list[dict[str, Any]]]:
    """Every worker loaded (its `where`); a load error (a bad prompt, a broken model) in the worker's words."""
    refs = {actor.where.remote(): i for i, actor in enumerate(actors)}
    where: list[dict[str, Any] | None] = [None] * len(actors)
    deadline = time.perf_counter() + SETUP_TIMEOUT
    while refs:
        raise_if_cancelled(check)
        if time.perf_counter() > deadline:
            raise RayError(f"{len(refs)} of {len(actors)} Ray workers did not load the pair within "
                           f"{SETUP_TIMEOUT:.0f} s (is the cluster short of CPUs or GPUs for them?)")
        ready, _ = ray.wait(list(refs), num_returns=1, timeout=POLL_SECONDS)
        for ref in ready:
            i = refs.pop(ref)
            try:
                where[i] = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, ValueError):  # the loaders' own one-line errors, as a local run gives them
                    raise cause from None
                raise RayError(f"a Ray worker could not load the pair: {_cause_words(exc)}") from None
            except ray.exceptions.RayActorError as exc:
                raise RayError(f"a Ray worker died while loading the pair: {_cause_words(exc)}") from None
            yield SamplingProgress(0, total, 0.0, None, time.perf_counter() - started,
                                   f"{len(actors) - len(refs)} of {fmt.count(len(actors), 'worker')} ready",
                                   workers_alive=len(actors) - len(refs))
    return [w for w in where if w is not None]


def _dispatch(ray: Any, actors: list[Any], where: list[dict[str, Any]], check: Any, started: float,
              max_attempts: int, tally: _Tally, assemble: Any) -> Generator[SamplingProgress, None, None]:
    """Hand prompts to live workers, collect results by index, requeue what a dead worker held.

    Each event's `partial` builds the result over the prompts done so far: a front end that stops
    reading at a cancel (gui/worker.py closes the generator) keeps them through it.
    """
    pool = _Pool(ray, actors, where, max_attempts, tally)
    total = len(tally.attempts)
    loop_start = time.perf_counter()

    def partial() -> SamplingResult:
        tally.cancelled = True
        return assemble()

    while pool.pending or pool.inflight:
        if check is not None and check():
            tally.cancelled = True
            break
        pool.hand_out()
        if not pool.inflight and not pool.pings:
            for index in pool.pending:  # every worker is gone for good
                tally.failed[index] = "no Ray worker left to run it"
            pool.pending.clear()
            break
        ready, _ = ray.wait(list(pool.inflight) + list(pool.pings), num_returns=1, timeout=POLL_SECONDS)
        for ref in ready:
            pool.received(ref)
        elapsed = time.perf_counter() - loop_start
        finished = len(tally.done) + len(tally.failed)
        yield SamplingProgress(len(tally.done), total, pool.emitted / elapsed if elapsed > 0 else 0.0,
                               elapsed / finished * (total - finished) if finished else None,
                               time.perf_counter() - started, "", workers_alive=sum(pool.up), partial=partial)
        tally.seconds = time.perf_counter() - loop_start
    tally.seconds = time.perf_counter() - loop_start


class _Pool:
    """The workers and the prompts between them: which prompts wait, which are in flight on which worker, which
    workers are up (a dead one is down until Ray restarted it and it reloaded the pair) or gone for good."""

    def __init__(self, ray: Any, actors: list[Any], where: list[dict[str, Any]], max_attempts: int,
                 tally: _Tally) -> None:
        self.ray, self.actors, self.where, self.max_attempts, self.tally = ray, actors, where, max_attempts, tally
        self.pending: deque[int] = deque(range(len(tally.attempts)))
        self.last_worker: dict[int, int] = {}
        self.up = [True] * len(actors)  # taking prompts; a dead worker is down until Ray restarted it
        self.gone = [False] * len(actors)  # restarts used up
        self.pings: dict[Any, int] = {}
        self.inflight: dict[Any, tuple[int, int]] = {}
        self.load = [0] * len(actors)
        self.emitted = 0

    def hand_out(self) -> None:
        """Prompts to live workers with room, each to another worker than the one it failed on where there is one."""
        load, live = self.load, [a for a in range(len(self.actors)) if self.up[a]]
        while self.pending and live and min(load[a] for a in live) < IN_FLIGHT:
            index = self.pending[0]
            a = min((w for w in live if load[w] < IN_FLIGHT), key=lambda w: (w == self.last_worker.get(index), load[w]))
            self.pending.popleft()
            self.tally.attempts[index] += 1
            self.last_worker[index] = a
            load[a] += 1
            self.inflight[self.actors[a].measure.remote(index)] = (index, a)

    def received(self, ref: Any) -> None:
        """A ready answer: a restarted worker's ping, a prompt's result, or why it failed (requeued, or given up)."""
        ray = self.ray
        if ref in self.pings:
            a = self.pings.pop(ref)
            try:
                self.where[a] = ray.get(ref)
                self.up[a] = True
            except Exception:  # it will not come back: its restarts are used up
                self.gone[a] = True
            return
        index, a = self.inflight.pop(ref)
        self.load[a] -= 1
        try:
            item = ray.get(ref)
        except ray.exceptions.RayActorError as exc:
            self._worker_down(a)
            self._retry(index, f"its worker died ({type(exc).__name__})")
            return
        except ray.exceptions.RayTaskError as exc:  # the prompt itself failed on a live worker
            self._retry(index, _cause_words(exc))
            return
        except Exception as exc:  # an object lost with its node
            self._worker_down(a)
            self._retry(index, _cause_words(exc))
            return
        self.tally.done[index] = item
        self.emitted += len(item["spec"].output_ids)
        self.tally.ort_seconds += item["ort_seconds"]

    def _worker_down(self, a: int) -> None:
        if self.up[a] and not self.gone[a]:
            self.up[a] = False
            self.pings[self.actors[a].where.remote()] = a  # answers once Ray has restarted it and it reloaded the pair

    def _retry(self, index: int, why: str) -> None:
        attempts = self.tally.attempts
        if attempts[index] >= self.max_attempts:
            self.tally.failed[index] = f"failed {attempts[index]} times, last: {why}"
        else:
            self.pending.appendleft(index)


__all__ = ["RayError", "RayOptions", "RaySession", "check_nodes", "run_sampling_ray"]
