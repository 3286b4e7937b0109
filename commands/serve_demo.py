"""`specledger serve-demo`: an OpenAI-compatible server on 127.0.0.1 to probe, backed by the demo ONNX pair.

Two models are served: `demo-fast` generates with the project's own speculative loop (K drafts per
stretch) and streams in the chosen style; `demo-standard` generates target-only, one token per step,
the baseline. With `--style plain`, demo-fast is target-only too. With `--style llamacpp` both stop at the
end-of-text token and send it as a silent token (counted in the usage, no content), as llama.cpp's server does;
with `--silent-tokens` the end and the tokens after it are silent and generation runs on to the token budget
(a tail no real server was seen to send: the probe's reading of it is tested against it). Both are greedy (temperature 0);
a request's temperature and seed are ignored. The demo pair's context is 256 tokens, so a long
prompt (a probe's 8K filler) keeps only its end. The wiring lives here, in the front end, because it
joins two wings: the sampling loop and the probe's server.

The vendors' styles (`--style openai-chat-chunks`, `openai-responses`, `anthropic`) serve one model at two speeds
the way closed vendors document their fast modes (model.probe.vendor_server): the fast tier asked for in the body
(`service_tier: "priority"`, Anthropic's `"speed": "fast"`), several tokens a chunk, no logprobs, the tier that
served each request named in the response; `--downgrade-share` and `--slow-share` make known shares of the fast
requests downgraded or slower than an SLA.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from model.probe.demo_server import STYLES, DemoModel, Generation, LoopbackServer, create_app
from model.probe.vendor_server import STYLE_API, VENDOR_STYLES, Pace, create_vendor_app
from commands.demo_steps import DEFAULT_LENIENT, fit, speculative_steps, target_steps
from model.sampling.prompts import DEMO_DRAFT, DEMO_TARGET


FAST_MODEL, STANDARD_MODEL = "demo-fast", "demo-standard"
VENDOR_MODEL = "demo"  # the vendors' styles: one model, its speed asked for in the body
MAX_K = 64
MAX_STEP_MS = 10_000.0  # a step paced to ten seconds is already no demo
MAX_CHUNK_TOKENS = 128  # the demo's token budget: a larger chunk is the whole answer


def speculative_generator(draft: Any, target: Any, k: int, silent: bool = False, end_token: bool = False):
    from model.sampling.speculative import speculative_generate

    def generate(text: str, max_tokens: int) -> Generation:
        ids, sent = fit(target, draft, text, max_tokens, k)
        # no stop ids: the loop then drafts K in every stretch, as an engine does (it stops drafting at a
        # proposed end of text otherwise, which a client cannot see); the text is cut at the end here,
        # or, silent, runs on with the end and what follows it sending no text
        run = speculative_generate(draft, target, ids, k, max_tokens, 0.0)
        steps, end = speculative_steps(run, target, silent, end_token)
        return Generation(len(ids), steps, k, "stop" if end is not None and not silent else "length", sent)
    return generate


def target_generator(draft: Any, target: Any, silent: bool = False, end_token: bool = False):
    from model.sampling.speculative import target_generate

    def generate(text: str, max_tokens: int) -> Generation:
        ids, sent = fit(target, draft, text, max_tokens, 0)
        run = target_generate(target, ids, max_tokens, 0.0, stop_ids=frozenset() if silent else target.eos_ids)
        steps, stopped = target_steps(run, target, silent, end_token)
        return Generation(len(ids), steps, 0, "stop" if stopped else "length", sent)
    return generate


def demo_models(style: str, k: int = 4, draft_dir: Path = DEMO_DRAFT, target_dir: Path = DEMO_TARGET,
                provider: str = "cpu", pair: tuple[Any, Any] | None = None,
                silent: bool | None = None, lenient: float = 1.0) -> dict[str, DemoModel]:
    """demo-fast in ``style`` and demo-standard; ``silent`` makes the end of text and what follows it silent tokens
    (a run on to the budget); otherwise the llamacpp style stops at the end of text and sends it as a silent token,
    as llama.cpp's server does; ``lenient`` above 1 makes demo-fast sample from a sharpened target at a
    temperature above 0 (commands/serve_demo_sampling.py)."""
    from commands.serve_demo_sampling import sampled_speculative, sampled_target

    if pair is None:
        from model.sampling.onnx_lm import load_pair
        pair = load_pair(draft_dir, target_dir, provider)
    draft, target = pair
    silent = bool(silent)
    end = style == "llamacpp" and not silent  # the end-of-text token sent silent, nothing after it
    fast = (target_generator(draft, target, silent, end) if style == "plain"
            else speculative_generator(draft, target, k, silent, end))
    # a llama.cpp server without a draft model streams the same way, logprobs on every token
    base_style = "llamacpp" if style == "llamacpp" else "plain"
    fast_sample = (sampled_target(draft, target, silent, lenient, end) if style == "plain"
                   else sampled_speculative(draft, target, k, silent, lenient, end))
    return {FAST_MODEL: DemoModel(fast, style, sample=fast_sample),
            STANDARD_MODEL: DemoModel(target_generator(draft, target, silent, end), base_style,
                                      sample=sampled_target(draft, target, silent, end_token=end))}


def add_serve_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")
    parser.add_argument("--style", choices=STYLES + VENDOR_STYLES, default="vllm",
                        help="how demo-fast streams: one event per step (vllm), per token with the step's "
                             "timing (per-token), fixed-size chunks that hide the steps (chunked), no "
                             "speculation (plain), or as llama.cpp's server does (llamacpp: per token, logprobs "
                             "only on the first token, silent special tokens, `timings`); or one model at two "
                             "speeds as a closed vendor streams it: Chat Completions in chunks of several tokens "
                             "without logprobs (openai-chat-chunks), the Responses API (openai-responses) or "
                             "Anthropic's Messages API (anthropic)")
    parser.add_argument("--silent-tokens", action="store_true",
                        help="the end-of-text token and what follows it count in the usage but send no content: "
                             "the answer runs on to the token budget (the llamacpp style otherwise stops at the end "
                             "of text and sends it as one silent token, as llama.cpp's server does)")
    parser.add_argument("--k", type=int, default=4, help="draft tokens per stretch (default 4)")
    parser.add_argument("--step-ms", type=float, default=20.0,
                        help="each step takes this many ms (default 20; 0: the time the demo pair took): the "
                             "pair takes about 1 ms, too little to time over loopback")
    parser.add_argument("--chunk-tokens", type=int, default=4, help="tokens per chunk in the chunked style")
    parser.add_argument("--knee-tokens", type=int, default=32,
                        help="concurrent streams of a model share one step, whose time follows a stated rule: "
                             "step = step-ms x max(1, query tokens in the batch / knee-tokens), a plain stream "
                             "adding 1 token and a speculative one K + 1 (its verify pass), the draft free. "
                             "Memory-bound (flat) up to the knee, compute-bound past it, so demo-fast's "
                             "speedup falls with concurrency as a real server's does (default 32)")
    parser.add_argument("--prefill-tokens-per-s", type=float, default=10_000.0,
                        help="time to first token, simulated for every request: it waits step-ms + its prompt's "
                             "tokens (as sent, the demo tokenizer's) / this many per second from when the server "
                             "takes it up, or as long as the demo pair took to compute the answer where that is "
                             "longer; a repeated prompt, whose answer the batched server keeps, waits the same "
                             "(default 10000)")
    parser.add_argument("--lenient", type=float, nargs="?", const=DEFAULT_LENIENT, default=1.0, metavar="X",
                        help="at a temperature above 0, demo-fast samples from a sharpened target, q ∝ p^X (the target "
                             "at temperature T / X), as a lenient acceptance rule that keeps the draft's likely "
                             f"tokens does, while its logprobs still report the target's p; bare: X = {DEFAULT_LENIENT:g}. "
                             "Greedy (temperature 0) answers are unchanged, so identity cannot see it")
    parser.add_argument("--no-batch", action="store_true",
                        help="pace each stream on its own instead (the step time never grows with load)")
    vendor = parser.add_argument_group("the vendors' styles")
    vendor.add_argument("--fast-tokens-per-s", type=float, default=100.0,
                        help="output speed of a request served fast (default 100)")
    vendor.add_argument("--standard-tokens-per-s", type=float, default=40.0,
                        help="output speed of a request served standard (default 40)")
    vendor.add_argument("--downgrade-share", type=float, default=0.0, metavar="X",
                        help="this share of the requests asked fast are served at standard speed and labelled so "
                             "(default 0)")
    vendor.add_argument("--slow-share", type=float, default=0.0, metavar="X",
                        help="this share of the requests served fast stream at --slow-tokens-per-s instead: below "
                             "a speed SLA (default 0)")
    vendor.add_argument("--slow-tokens-per-s", type=float, default=20.0, help="their speed (default 20)")
    vendor.add_argument("--seed", type=int, default=0,
                        help="seed of the draws that pick the downgraded and the slow requests (default 0)")
    vendor.add_argument("--flush-ms", type=float, default=50.0,
                        help="a chunk holds the tokens made within this many ms (default 50)")


def run_serve_demo(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port {args.port}: expected 0 to 65535")
    if args.k < 1 or args.step_ms < 0 or args.chunk_tokens < 1 or args.knee_tokens < 1:
        raise ValueError("--k, --chunk-tokens and --knee-tokens must be at least 1, --step-ms 0 or more")
    prefill_rate = getattr(args, "prefill_tokens_per_s", 10_000.0)
    if not (math.isfinite(prefill_rate) and prefill_rate > 0):
        raise ValueError(f"--prefill-tokens-per-s {str(prefill_rate)[:30]}: expected a number of tokens above 0")
    if not args.k <= MAX_K:
        raise ValueError(f"--k {str(args.k)[:30]}: expected 1 to {MAX_K}, as every K in SpecLedger")
    if not (math.isfinite(args.step_ms) and args.step_ms <= MAX_STEP_MS):
        raise ValueError(f"--step-ms {str(args.step_ms)[:30]}: expected 0 to {MAX_STEP_MS:g} ms")
    if not args.chunk_tokens <= MAX_CHUNK_TOKENS:
        raise ValueError(f"--chunk-tokens {str(args.chunk_tokens)[:30]}: expected 1 to {MAX_CHUNK_TOKENS}")
    from model.probe.batching import BatchRule, PrefillRule

    if args.style in VENDOR_STYLES:
        return _serve(_vendor_app(args), f"one model at two speeds, as {args.style} streams it", _vendor_hint(args),
                      args.port)
    rule = None if args.no_batch else BatchRule(args.step_ms / 1000.0, args.knee_tokens)
    # the demo pair's context is 256 tokens: room for a prompt's end and at most 128 new tokens
    silent = bool(getattr(args, "silent_tokens", False))
    from commands.serve_demo_sampling import check_lenient

    lenient = check_lenient(getattr(args, "lenient", 1.0))
    app = create_app(demo_models(args.style, args.k, silent=silent, lenient=lenient), min_step_s=args.step_ms / 1000.0,
                     chunk_tokens=args.chunk_tokens, max_tokens_cap=128, batch=rule,
                     prefill_tokens_per_s=prefill_rate)
    batching = f"batched: {rule.describe()}" if rule else "each stream paced on its own"
    batching += f"\n  {PrefillRule(args.step_ms / 1000.0, prefill_rate).describe()}"
    sharpened = f", sampling from q ∝ p^{lenient:g} above temperature 0" if lenient != 1 else ""
    return _serve(app, f"{FAST_MODEL} ({args.style}, K={args.k}{sharpened}) and {STANDARD_MODEL} (plain)\n  {batching}",
                  f"--model {FAST_MODEL} --against-model {STANDARD_MODEL}", args.port)


def _vendor_app(args: argparse.Namespace) -> Any:
    rates = (args.fast_tokens_per_s, args.standard_tokens_per_s, args.slow_tokens_per_s)
    if not all(math.isfinite(r) and 0 < r <= 100_000 for r in rates):
        raise ValueError("--fast-tokens-per-s, --standard-tokens-per-s and --slow-tokens-per-s: expected above 0 "
                         "and at most 100000")
    for name, share in (("--downgrade-share", args.downgrade_share), ("--slow-share", args.slow_share)):
        if not (math.isfinite(share) and 0 <= share <= 1):
            raise ValueError(f"{name} {str(share)[:30]}: expected a share from 0 to 1")
    if not (math.isfinite(args.flush_ms) and 0 <= args.flush_ms <= MAX_STEP_MS):
        raise ValueError(f"--flush-ms {str(args.flush_ms)[:30]}: expected 0 to {MAX_STEP_MS:g}")
    from model.sampling.onnx_lm import load_pair
    draft, target = load_pair(DEMO_DRAFT, DEMO_TARGET, "cpu")
    pace = Pace(args.fast_tokens_per_s, args.standard_tokens_per_s, args.downgrade_share, args.slow_share,
                args.slow_tokens_per_s, flush_s=args.flush_ms / 1000.0, seed=args.seed)
    return create_vendor_app(target_generator(draft, target), pace, max_tokens_cap=128,
                             apis=(STYLE_API[args.style],))


def _vendor_hint(args: argparse.Namespace) -> str:
    api = {"openai-chat-chunks": "openai-chat", "openai-responses": "openai-responses",
           "anthropic": "anthropic-messages"}[args.style]
    fast = '{"speed": "fast"}' if args.style == "anthropic" else '{"service_tier": "priority"}'
    return (f"--api {api} --model {VENDOR_MODEL} --extra-body '{fast}' --against-model {VENDOR_MODEL} "
            f"--sla {args.fast_tokens_per_s * 0.8:g}@0.99")


def _serve(app: Any, what: str, probe_args: str, port: int) -> int:
    """Listen on 127.0.0.1 until Ctrl+C or TERM, having said what is served and how to probe it."""
    server = LoopbackServer(app, port, log_level="info")
    try:
        server.start()
    except (OSError, RuntimeError) as exc:
        raise ValueError(f"cannot listen on 127.0.0.1:{port} ({exc})") from None
    print(f"serving {what} at {server.base_url}\n"
          f"  probe it: specledger probe --base-url {server.base_url} {probe_args} "
          "--prompts resources/prompts/demo.jsonl --json probe.json --yes\n"
          "  Ctrl+C stops it.", file=sys.stderr, flush=True)
    # Ctrl+C, or a TERM from a service manager, stops it (set here: a shell may start it with SIGINT ignored)
    import signal

    def stop(_sig: int, _frame: object) -> None:
        server.request_stop()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.wait()
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("serve-demo: stopped", file=sys.stderr)
    return 0
