"""The headless `sample` command: measure acceptance per task class and print it.

main.py wires it in as a subcommand:
    add_sample_arguments(subparsers.add_parser("sample", ...))
    ... return run_sample_command(args)
Errors come out as one line on stderr with exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import math
import sys
import threading
from pathlib import Path
from typing import TextIO

from model.sampling.prompts import DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET
from model.sampling.providers import PROVIDER_CHOICES, choose_provider
from commands import sample_ray
from commands.runner import confidence_arg, one_line, worded
from model.common import formatting as fmt
from model.sampling.run import (Cancelled, check_request, SamplingProgress, SamplingResult, attach_intervals, run_sampling,
                                run_to_end)


def add_sample_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--draft", type=Path, default=DEMO_DRAFT, help="draft model folder (default: demo pair)")
    parser.add_argument("--target", type=Path, default=DEMO_TARGET, help="target model folder (default: demo pair)")
    parser.add_argument("--prompts", type=Path, default=DEMO_PROMPTS,
                        help="JSONL file of {\"task_class\", \"prompt\"} (default: demo prompts)")
    parser.add_argument("--k", type=int, default=4, help="draft tokens per stretch (default 4)")
    parser.add_argument("--max-new-tokens", type=int, default=48, help="tokens generated per prompt (default 48)")
    parser.add_argument("--temperature", type=float, default=0.0, help="0 for greedy (default), > 0 to sample")
    parser.add_argument("--seed", type=int, default=0, help="random seed for sampling (default 0)")
    parser.add_argument("--provider", choices=PROVIDER_CHOICES, default="auto",
                        help="execution provider (default auto: CUDA when usable, else CPU)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="write the full result as JSON here")
    parser.add_argument("--confidence", type=confidence_arg, default=0.95,
                        help="confidence of each class's interval on alpha (default 0.95; 95%% also reads)")
    sample_ray.add_ray_arguments(parser)


def _progress_printer(stream: TextIO):
    tty = stream.isatty()
    last = [-1e9]

    def show(event: SamplingProgress) -> None:
        # a terminal gets one line rewritten in place; a log file a line every 5 s at most
        if event.prompts_done == 0 or (not tty and event.elapsed_seconds - last[0] < 5.0):
            return
        last[0] = event.elapsed_seconds
        left = f", {event.seconds_left:.0f} s left" if event.seconds_left is not None else ""
        workers = f", {fmt.count(event.workers_alive, 'worker')} alive" if event.workers_alive is not None else ""
        text = (f"  {event.prompts_done}/{fmt.count(event.prompts_total, 'prompt')}, "
                f"{event.tokens_per_second:.0f} tok/s{workers}{left}")
        stream.write(f"\r{text}   " if tty else text + "\n")
        stream.flush()
    return show


def _fig(x: float, spec: str, width: int, suffix: str = "") -> str:
    """One right-aligned figure; a dash where nothing was measured (no full stretch gives no alpha)."""
    text = f"{x:{spec}}{suffix}" if math.isfinite(x) else "–"
    return f"{text:>{width}}"


def format_table(result: SamplingResult) -> str:
    head = (f"{'class':<14}{'prompts':>8}{'stretch':>8}{'alpha':>7}{'interval':>14}{'accept':>8}{'E':>6}"
            f"{'c':>7}{'v':>6}{'S meas':>8}{'S pred':>8}  histogram 0..K")
    lines = [f"provider: {result.provider}; K = {result.k}; temperature = {result.temperature:g}; "
             f"{result.max_new_tokens} new tokens per prompt",
             "alpha: per-token (ML, i.i.d.); accept: draft acceptance rate (accepted/drafted); "
             f"E: mean acceptance length (tokens per stretch); interval: {result.confidence:.0%} on alpha, prompts "
             "as the unit ('too few': under 5 prompts with a full stretch)", head, "-" * len(head)]
    for c in result.classes:
        interval = (f"{c.alpha_interval[0]:.2f}–{c.alpha_interval[1]:.2f}" if c.alpha_interval
                    else ("too few" if c.interval_note and "too few" in c.interval_note else "–"))
        lines.append(f"{c.task_class:<14}{c.prompts:>8}{c.stretches:>8}{_fig(c.alpha, '.2f', 7)}{interval:>14}"
                     f"{_fig(c.draft_acceptance_rate, '.0%', 8)}{_fig(c.mean_acceptance_length, '.2f', 6)}"
                     f"{_fig(c.c_measured, '.2f', 7)}{_fig(c.v_measured, '.2f', 6)}"
                     f"{_fig(c.speedup_measured, '.2f', 8, 'x')}{_fig(c.speedup_predicted, '.2f', 8, 'x')}  "
                     f"{' '.join(str(h) for h in c.histogram)}")
    return "\n".join(lines)


def _check_request(args: argparse.Namespace) -> None:
    """Refusals worth making before minutes of sampling, not after."""
    if args.json is not None and args.json.is_dir():
        raise ValueError(f"--json {args.json}: is a folder, not a file")
    if args.json is not None:  # a missing folder is refused, as export does: not made (as root, anywhere)
        from model.common.safe_files import check_output_target

        args.json = check_output_target(args.json, "--json result")
    check_request(args.k, args.max_new_tokens, args.temperature, args.seed)
    sample_ray.check_ray_arguments(args)
    if args.provider == "cuda" and args.ray is None:  # on a cluster the workers' GPUs are what counts
        # a forced CUDA that cannot work would quietly measure CPU timings (c, speedup) under a GPU request
        choice = choose_provider("cuda")
        if choice.device != "cuda":
            reason = choice.description.split(": ", 1)[-1].rstrip(")")
            raise ValueError(f"--provider cuda: CUDA is not usable here ({reason}); "
                             "use --provider auto or --provider cpu")


def run_sample_command(args: argparse.Namespace) -> int:
    err = sys.stderr
    try:
        _check_request(args)
        if args.ray is not None:
            cancel = threading.Event()
            show = sample_ray.say_steps(_progress_printer(err), err)
            result = sample_ray.run_with_ctrl_c(cancel, lambda: run_to_end(sample_ray.ray_job(args, cancel), show))
        else:
            gen = run_sampling(args.draft, args.target, args.prompts, k=args.k, max_new_tokens=args.max_new_tokens,
                               temperature=args.temperature, seed=args.seed, provider=args.provider)
            result = run_to_end(gen, _progress_printer(err))
        if err.isatty():
            err.write("\n")
        attach_intervals(result, args.confidence)
        if args.json is not None:
            from model.common.safe_files import atomic_write

            text = result.to_json() + "\n"
            atomic_write(args.json, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except KeyboardInterrupt:
        err.write("\nsample: interrupted\n")
        return 130
    except Cancelled:
        err.write("sample: cancelled\n")
        return 130
    except (ValueError, OSError) as exc:  # our loaders raise ValueError subclasses with worded messages
        err.write(f"sample: error: {one_line(worded(exc))}\n")
        return 2
    except Exception as exc:  # onnxruntime failing mid-run: still one line, no traceback
        err.write(f"sample: error: {type(exc).__name__}: {one_line(worded(exc))}\n")
        return 1
    print(format_table(result))
    if result.ray is not None:
        print("\n".join(sample_ray.ray_lines(result)))
    if args.json is not None:
        print(f"JSON written to {args.json}")
    return 130 if result.ray is not None and result.ray["cancelled"] else 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry for `python -m commands.sample` until main.py wires it in."""
    parser = argparse.ArgumentParser(allow_abbrev=False, prog="sample", description=__doc__.splitlines()[0])
    add_sample_arguments(parser)
    return run_sample_command(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
