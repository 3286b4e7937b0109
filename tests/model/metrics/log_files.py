"""Console lines and tool outputs written the way each engine's or tool's code writes them, from counts a test chooses.

Each writer follows the format string in the source named beside it (looked up in that project's code,
not copied from anyone's output); the tests hand-compute what the counts mean in the three conventions.
"""
from __future__ import annotations

import json


def per_position(hist: list[int]) -> list[int]:
    """Cumulative: steps that accepted at least i (1..K) drafts."""
    return [sum(hist[i:]) for i in range(1, len(hist))]


def llamacpp_request(task: int, hist: list[int], form: str = "current", t: str = "0.16.519.195",
                     generated: int | None = None) -> str:
    """tools/server server_slot::print_timings, SLT_INF: "draft acceptance = %0.5f (%5d accepted / %5d generated),
    mean acceptance length = %5.2f, acceptance rate per position = (%.3f, ...)"; older forms below. ``generated``:
    the draft tokens where some drafts were cut short (default: every step drafted K)."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    generated = steps * k if generated is None else generated
    prefix = f"{t} I slot print_timing: id  0 | task {task} | "
    head = f"({accepted:5d} accepted / {generated:5d} generated)"
    if form == "old":  # SLT_INF(*this, "\ndraft acceptance rate = ...")
        return f"{prefix}\ndraft acceptance rate = {accepted / generated:0.5f} {head}"
    rates = ", ".join(f"{p / steps:.3f}" for p in per_position(hist))
    if form in ("mean-len", "mean-len-trace"):
        line = f"{prefix}draft acceptance = {accepted / generated:0.5f} {head}, mean len = {1 + accepted / steps:5.2f}"
        # the same builds' SLT_TRC(*this, "     acc per pos = (%s)\n", ...) right after it, with -lv 4
        return line + (f"\n{prefix}     acc per pos = ({rates})" if form == "mean-len-trace" else "")
    return (f"{prefix}draft acceptance = {accepted / generated:0.5f} {head}, mean acceptance length = "
            f"{1 + accepted / steps:5.2f}, acceptance rate per position = ({rates})")


def llamacpp_steps(task: int, steps: list[tuple[int, int]], restore: tuple[int, ...] = ()) -> list[str]:
    """server_context::update_slots with LLAMA_TRACE set, SLT_INF (`slot %12.*s: id %2d | task %d | ` from a lambda,
    so __func__ is operator()): "accepted %2zu/%2zu draft tokens" per verify step (accepted, drafted), or with
    " (restore checkpoint)" for the steps in ``restore``, each then replayed: its draft is the accepted tokens and the
    corrected one, all accepted, logged again."""
    p = f"0.16.512.04{task % 10} I slot   operator(): id  0 | task {task} | "
    out = []
    for i, (a, d) in enumerate(steps):
        if i in restore:
            out += [f"{p}accepted {a:2d}/{d:2d} draft tokens (restore checkpoint)", f"{p}accepted {a + 1:2d}/{a + 1:2d} draft tokens"]
        else:
            out.append(f"{p}accepted {a:2d}/{d:2d} draft tokens")
    return out


def llamacpp_timing(task: int, n_decoded: int) -> list[str]:
    """The print_timing lines every request gets, speculative or not."""
    p = f"0.16.519.18{task % 10} I slot print_timing: id  0 | task {task} | "
    return [f"{p}prompt eval time =     714.79 ms /  1091 tokens (    0.66 ms per token,  1526.33 tokens per second)",
            f"{p}       eval time =    3133.20 ms / {n_decoded:5d} tokens (    8.88 ms per token,   112.66 tokens per second)",
            f"{p}      total time =    3847.99 ms /  1444 tokens"]


def llamacpp_stats(impl: str, drafts: int, acc_drafts: int, tokens: int, accepted: int,
                   rates: list[float] | None = None) -> str:
    """common/speculative.cpp common_speculative_print_stats: "statistics %16s: #calls(b,g,a) = %4zu %6zu %6zu,
    #gen drafts = %6zu, #acc drafts = %5zu, #gen tokens = %6zu, #acc tokens = %5zu%s%s"."""
    tail = ""
    if rates is not None:
        tail = f", #mean acc len = {1 + accepted / drafts:.2f}, #acc rate/pos = ({', '.join(f'{r:.3f}' for r in rates)})"
    return (f"0.34.089.513 I spec common_specu: statistics {impl:>16}: #calls(b,g,a) = {1:4d} {drafts:6d} {drafts:6d}, "
            f"#gen drafts = {drafts:6d}, #acc drafts = {acc_drafts:5d}, #gen tokens = {tokens:6d}, #acc tokens = {accepted:5d}"
            f"{tail}, dur(b,g,a) = 0.004, 1011.730, 0.465 ms")


def llamacpp_stats_from_steps(impl: str, steps: list[tuple[int, int]]) -> str:
    """The statistics line as common/speculative.cpp keeps its counters, from steps (accepted, drafted): each
    non-empty draft adds to #gen drafts and #gen tokens; common_speculative_accept counts the call, grows
    n_acc_tokens_per_pos to the accepted count when longer and adds one to each position up to it, and counts a
    step that accepted any in #acc drafts. Mean = 1 + #acc tokens / calls (%.2f), rates per position / calls (%.3f)."""
    per_pos: list[int] = []
    for a, _ in steps:
        per_pos += [0] * max(0, a - len(per_pos))
        for i in range(a):
            per_pos[i] += 1
    calls = len(steps)
    return llamacpp_stats(impl, calls, sum(a > 0 for a, _ in steps), sum(d for _, d in steps),
                          sum(a for a, _ in steps), [p / calls for p in per_pos])


def llamacpp_spec_added(impl: str, n_max: int) -> list[str]:
    """common_speculative_init's SPC_TRC lines as an implementation is added: its name, then "- n_max=%d, n_min=%d,
    p_min=%f"."""
    return [f"0.05.624.948 I spec common_specu: adding speculative implementation '{impl}'",
            f"0.05.624.974 I spec common_specu: - n_max={n_max}, n_min=0, p_min=0.000000"]


def vllm_v1_line(hist: list[int], prefix: str = "", seconds: float = 10.0) -> str:
    """vllm/v1/spec_decode/metrics.py SpecDecodingLogging.log (current form)."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    drafted = steps * k
    rates = ", ".join(f"{p / steps:.3f}" for p in per_position(hist))
    return (f"{prefix}INFO 11-30 14:02:11 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: "
            f"{1 + accepted / steps:.2f}, Accepted throughput: {accepted / seconds:.2f} tokens/s, Drafted throughput: "
            f"{drafted / seconds:.2f} tokens/s, Accepted: {accepted} tokens, Drafted: {drafted} tokens, Per-position "
            f"acceptance rate: {rates}, Avg Draft acceptance rate: {100 * accepted / drafted:.1f}%")


def vllm_v1_first_line(accepted: int, drafted: int) -> str:
    """The first V1 form: "SpecDecoding metrics: Draft acceptance rate: %.1f%%, Accepted: %d tokens, Drafted: %d tokens"."""
    return (f"INFO 04-02 09:10:11 [metrics.py:60] SpecDecoding metrics: Draft acceptance rate: {100 * accepted / drafted:.1f}%, "
            f"Accepted: {accepted} tokens, Drafted: {drafted} tokens")


def vllm_v0_line(k: int, accepted_any: int, drafted: int, emitted: int) -> str:
    """vllm/engine/metrics.py (V0) _format_spec_decode_metrics_str over SpecDecodeWorkerMetrics (totals since start)."""
    steps = drafted // k
    return (f"INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: {accepted_any / drafted:.3f}, "
            f"System efficiency: {emitted / (steps * (k + 1)):.3f}, Number of speculative tokens: {k}, Number of accepted "
            f"tokens: {accepted_any}, Number of draft tokens: {drafted}, Number of emitted tokens: {emitted}.")


def vllm_offline_summary(hist: list[int], output_tokens: int = 9000) -> list[str]:
    """examples/offline_inference/spec_decode.py: totals, mean length (2 dec.), acceptance at token i (2 dec.)."""
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    lines = ["-" * 50, f"total_num_output_tokens: {output_tokens}", f"num_drafts: {steps}",
             f"num_draft_tokens: {steps * (len(hist) - 1)}", f"num_accepted_tokens: {accepted}",
             f"mean acceptance length: {1 + accepted / steps:.2f}", "-" * 50]
    lines += [f"acceptance at token {i}: {p / steps:.2f}" for i, p in enumerate(per_position(hist))]
    return lines


def vllm_bench_console(hist: list[int]) -> list[str]:
    """vllm/benchmarks/serve.py: the "Speculative Decoding" section of the result table ("{:<40} {:<10.2f}")."""
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    drafted = steps * (len(hist) - 1)
    lines = ["{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="),
             "{:<40} {:<10}".format("Successful requests:", 200),
             "{:<40} {:<10.2f}".format("Benchmark duration (s):", 61.5),
             "{s:{c}^{n}}".format(s="Speculative Decoding", n=50, c="-"),
             "{:<40} {:<10.2f}".format("Acceptance rate (%):", 100 * accepted / drafted),
             "{:<40} {:<10.2f}".format("Acceptance length:", 1 + accepted / steps),
             "{:<40} {:<10}".format("Drafts:", steps),
             "{:<40} {:<10}".format("Draft tokens:", drafted),
             "{:<40} {:<10}".format("Accepted tokens:", accepted),
             "Per-position acceptance (%):"]
    lines += ["{:<40} {:<10.2f}".format(f"  Position {i}:", 100 * p / steps) for i, p in enumerate(per_position(hist))]
    return lines + ["=" * 50]


def sglang_finish_line(rid: str, hist: list[int]) -> str:
    """tokenizer_manager with --log-requests: "Finish: obj={dataclass_to_string_truncated(obj)}, out={...}" (Python
    reprs); meta_info with the 0.5.x spec field names."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    meta = {"id": rid, "finish_reason": {"type": "length", "length": 128}, "prompt_tokens": 31,
            "completion_tokens": steps + accepted, "cached_tokens": 0, "spec_verify_ct": steps,
            "spec_accept_token_num": accepted, "spec_draft_token_num": steps * k, "spec_accept_histogram": hist,
            "spec_accept_length": (steps + accepted) / steps}
    out = {"text": "def add(a, b):\n    return a + b", "meta_info": meta}
    return (f"[2026-11-30 14:02:11] Finish: obj=GenerateReqInput(rid={rid!r}, text='Write add', "
            f"sampling_params={{'max_new_tokens': 128}}), out={out!r}")


def aiperf_record(hist: list[int], session: int) -> str:
    """aiperf profile_export.jsonl: one record, metrics as {"value", "unit"}, the canonical spec_decode_acceptance."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    metrics = {"request_latency": {"value": 812.4, "unit": "ms"},
               "spec_decode_acceptance_length": {"value": 1 + accepted / steps, "unit": "ratio"},
               "spec_decode_draft_acceptance_rate": {"value": 100 * accepted / (steps * k), "unit": "%"},
               "spec_decode_steps": {"value": steps, "unit": "count"},
               "spec_decode_accepted_draft_tokens": {"value": accepted, "unit": "tokens"},
               "spec_decode_draft_tokens": {"value": steps * k, "unit": "tokens"}}
    spec = {"engine": "vllm", "mean_acceptance_length": 1 + accepted / steps,
            "draft_acceptance_rate": accepted / (steps * k),
            "acceptance_histogram": {str(j): n for j, n in enumerate(hist) if n},
            "num_accepted_draft_tokens": accepted, "num_draft_tokens": steps * k, "num_spec_steps": steps,
            "num_spec_tokens": k}
    return json.dumps({"metadata": {"session_num": session, "benchmark_phase": "profiling"}, "metrics": metrics,
                       "spec_decode_acceptance": spec})


def aiperf_aggregate(hist: list[int]) -> str:
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    drafted = steps * (len(hist) - 1)
    return json.dumps({
        "request_latency": {"unit": "ms", "avg": 800.0, "p50": 790.0},
        "total_spec_decode_steps": {"unit": "count", "avg": steps},
        "total_accepted_draft_tokens": {"unit": "tokens", "avg": accepted},
        "total_draft_tokens": {"unit": "tokens", "avg": drafted},
        "spec_decode_token_weighted_acceptance_length": {"unit": "ratio", "avg": 1 + accepted / steps},
        "spec_decode_overall_draft_acceptance_rate": {"unit": "%", "avg": 100 * accepted / drafted},
        "pooled_spec_decode_acceptance_histogram": {str(j): n for j, n in enumerate(hist)},
    })


def probe_run(records: list[tuple[str, str, list[int]]]) -> str:
    """model/probe/run_file.py: a header line, then RequestRecord.to_dict() per request (vLLM per-request fields)."""
    lines = [json.dumps({"kind": "specledger-probe-run", "version": 1, "tier": "Fast", "created": "2026-11-30"})]
    for i, (role, task_class, hist) in enumerate(records):
        k = len(hist) - 1
        steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
        spec = {"num_spec_steps": steps, "num_draft_tokens": steps * k, "num_accepted_draft_tokens": accepted,
                "acceptance_histogram": hist, "num_spec_tokens": k}
        lines.append(json.dumps({"label": f"{role} {task_class} #{i}", "role": role, "task_class": task_class,
                                 "prompt_index": i, "context": 0, "repeat": 0, "max_tokens": 128, "events": [],
                                 "reported": {"metrics": {"speculative_decoding": spec}} if role == "fast" else {},
                                 "error": None, "retries": 0}))
    return "\n".join(lines) + "\n"


def probe_run_llamacpp(records: list[tuple[str, int, int, int, str]], k: int | None = None) -> str:
    """A run file of a llama.cpp server: per request (task class, completion tokens, draft_n, draft_n_accepted,
    finish_reason) as model/probe records it (usage, finish_reason, reported.timings); the K line when ``k``."""
    lines = [json.dumps({"kind": "specledger-probe-run", "version": 1})]
    for i, (task_class, tokens, drafted, accepted, finish) in enumerate(records):
        lines.append(json.dumps({"label": f"fast {task_class} #{i}", "role": "fast", "task_class": task_class,
                                 "prompt_index": i, "context": 0, "repeat": 0, "max_tokens": 16, "events": [],
                                 "finish_reason": finish, "usage": {"completion_tokens": tokens},
                                 "reported": {"timings": {"predicted_n": tokens, "draft_n": drafted,
                                                          "draft_n_accepted": accepted}}, "error": None}))
    if k is not None:
        lines.append(json.dumps({"kind": "specledger-probe-k", "k": k, "k_source": "timing"}))
    return "\n".join(lines) + "\n"


def noise(n: int, seed: int = 0) -> list[str]:
    """Lines a server log is mostly made of: requests, throughput, HTTP access lines."""
    kinds = ["INFO:     127.0.0.1:52{:03d} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
             "0.12.{:03d}.001 I srv  update_slots: all slots are idle",
             "INFO 11-30 14:02:{:02d} [loggers.py:271] Engine 000: Avg prompt throughput: 908.0 tokens/s, Avg generation "
             "throughput: 26.9 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%",
             "[2026-11-30 14:02:{:02d}] Prefill batch. #new-seq: 1, #new-token: 31, #cached-token: 0"]
    return [kinds[(i + seed) % len(kinds)].format(i % 60) for i in range(n)]


def sglang_decode_line(steps: int, accepted: int, k: int, convention: str) -> str:
    """scheduler_metrics_mixin.log_decode_stats over one interval of ``steps`` verify steps that accepted ``accepted``
    drafts: "accept len: %.2f, accept rate: %.2f" with spec_num_accepted_tokens = accepted + steps (the bonus token
    of each step). "0.5.x": rate = that / (steps x speculative_num_draft_tokens), K + 1 for a chain; "current": rate =
    (that - steps) / (steps x (speculative_num_draft_tokens - 1))."""
    tokens = accepted + steps
    rate = tokens / (steps * (k + 1)) if convention == "0.5.x" else accepted / (steps * k)
    return (f"[2026-11-30 14:02:11 TP0] Decode batch, #running-req: 8, #token: 5210, token usage: 0.03, "
            f"accept len: {tokens / steps:.2f}, accept rate: {rate:.2f}, cuda graph: True, gen throughput (token/s): "
            f"412.55, #queue-req: 0, ")


def trtllm_bench_decoding(outputs: list[int], iterations: list[int], max_draft: int, mode: str = "MTP") -> list[str]:
    """tensorrt_llm/bench/dataclasses/reporting.py: per request, draft tokens max_draft x iterations, accepted output -
    iterations, draft acceptance rate their ratio, acceptance length output / iterations; printed as percentiles,
    f"[TAG] {key.upper():<7}: {value:.2f}" under "= DECODING STATISTICS ({mode})"."""
    import numpy as np

    def rows(tag: str, values: list[float]) -> list[str]:
        v = np.asarray(values, dtype=float)
        stats = {"minimum": v.min(), "maximum": v.max(), "average": v.mean(), "p50": np.percentile(v, 50),
                 "p90": np.percentile(v, 90), "p95": np.percentile(v, 95), "p99": np.percentile(v, 99)}
        return [f"[{tag}] {key.upper():<7}: {value:.2f}" for key, value in stats.items()]

    drafts = [max_draft * i for i in iterations]
    accepted = [o - i for o, i in zip(outputs, iterations)]
    bar = "=" * 59
    return ([bar, f"= DECODING STATISTICS ({mode})", bar, "", "-- Number of Draft Tokens Details " + "-" * 32, "", ""]
            + rows("DT", drafts) + ["-- Number of Accepted Draft Tokens Details " + "-" * 32, ""] + rows("ADT", accepted)
            + ["-- Draft Acceptance Rate Details " + "-" * 32, ""] + rows("DAR", [a / d for a, d in zip(accepted, drafts)])
            + ["-- Acceptance Length Details " + "-" * 32, ""] + rows("AL", [o / i for o, i in zip(outputs, iterations)])
            + [bar])
