"""`sample --ray [ADDRESS]`: the sample command's Ray options, its run on a cluster and what it prints besides
the table (workers, nodes, retried and failed prompts). Kept apart so `commands/sample.py` only branches here.

Ctrl+C during a Ray run cancels it: the workers are stopped and the prompts measured so far are printed
(and written with --json, marked cancelled); a second Ctrl+C interrupts at once.
"""
from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable, Generator
from typing import Any, TextIO

from model.common import formatting as fmt

LOCAL = "local"  # --ray with no address: a Ray started on this machine for the run


def add_ray_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Ray (pip install -e '.[ray]')")
    group.add_argument("--ray", nargs="?", const=LOCAL, default=None, metavar="ADDRESS",
                       help="measure on Ray workers: auto (this machine's cluster), ray://HOST:10001, or no "
                            "address to start a local Ray")
    group.add_argument("--ray-workers", type=int, default=None, metavar="N",
                       help="Ray workers, each loading the pair once (default: one per CPU, or per GPU share)")
    group.add_argument("--ray-gpus-per-worker", type=float, default=0.0, metavar="G",
                       help="GPUs Ray gives each worker (default 0: CPU)")
    group.add_argument("--ray-ship-models", action="store_true",
                       help="send the model folders through Ray's object store (else every node reads --draft "
                            "and --target at the same path)")


def check_ray_arguments(args: argparse.Namespace) -> None:
    if args.ray is None:
        used = [flag for flag, on in (("--ray-workers", args.ray_workers is not None),
                                      ("--ray-gpus-per-worker", args.ray_gpus_per_worker != 0),
                                      ("--ray-ship-models", args.ray_ship_models)) if on]
        if used:
            raise ValueError(f"{', '.join(used)} only apply with --ray")
        return
    if args.ray_workers is not None and not 1 <= args.ray_workers <= 4096:
        raise ValueError(f"--ray-workers must be from 1 to 4096 (got {args.ray_workers})")
    if not 0 <= args.ray_gpus_per_worker <= 64 or args.ray_gpus_per_worker != args.ray_gpus_per_worker:
        raise ValueError(f"--ray-gpus-per-worker must be from 0 to 64 (got {args.ray_gpus_per_worker})")
    from model.sampling.ray_connect import check_address, import_ray, on_loopback
    if args.ray != LOCAL:
        check_address(args.ray)  # '' or 5,000 characters: one line before Ray is imported
    # no Ray installed: one line now, before anything else
    import_ray(local=args.ray == LOCAL or on_loopback(args.ray))


def ray_job(args: argparse.Namespace, cancel: threading.Event) -> Generator[Any, None, Any]:
    from model.sampling.ray_run import RayOptions, run_sampling_ray

    options = RayOptions(address=None if args.ray == LOCAL else args.ray, workers=args.ray_workers,
                         gpus_per_worker=args.ray_gpus_per_worker, ship_models=args.ray_ship_models)
    return run_sampling_ray(args.draft, args.target, args.prompts, k=args.k, max_new_tokens=args.max_new_tokens,
                            temperature=args.temperature, seed=args.seed, provider=args.provider, cancel=cancel,
                            options=options)


def run_with_ctrl_c(cancel: threading.Event, run: Callable[[], Any]) -> Any:
    """`run()` with the first Ctrl+C setting `cancel` (the run stops and returns what it has)."""
    if threading.current_thread() is not threading.main_thread():
        return run()
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum: int, frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        return run()
    finally:
        signal.signal(signal.SIGINT, previous)


def say_steps(show: Callable[[Any], None], stream: TextIO) -> Callable[[Any], None]:
    """The sample printer, plus each step before the first prompt (connecting, the models' size, loading)."""
    def step(event: Any) -> None:
        if event.prompts_done == 0 and event.message:
            stream.write(f"  {event.message}\n")
            stream.flush()
        show(event)
    return step


def ray_lines(result: Any) -> list[str]:
    """Where the run went, what was retried and what failed, under the table."""
    info = result.ray or {}
    nodes = info.get("nodes", [])
    lines = [f"Ray ({info.get('address')}): {fmt.count(len(info.get('workers', [])), 'worker')} on {len(nodes)} "
             f"node{'s' if len(nodes) != 1 else ''}, started in {info.get('startup_seconds', 0):.1f} s; "
             f"{fmt.count(info.get('retried_prompts', 0), 'prompt')} retried after a worker failed"]
    failed = info.get("failed_prompts", [])
    if failed:
        lines.append(f"{fmt.count(len(failed), 'prompt')} failed on every attempt and {'is' if len(failed) == 1 else 'are'} "
                     "not counted:")
        lines.extend(f"  {line}" for line in failed)
    if info.get("cancelled"):
        lines.append(f"cancelled: {fmt.count(len(result.prompts), 'prompt')} measured before the cancel "
                     f"{'is' if len(result.prompts) == 1 else 'are'} kept")
    return lines
