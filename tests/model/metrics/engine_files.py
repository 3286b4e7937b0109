"""Metrics files written the way each engine writes them, from counts a test chooses.

Names, labels, HELP/TYPE lines and log layouts follow the engines' sources (see model/metrics/*.py).
"""
from __future__ import annotations

from model.mechanics import arithmetic as ar


def iid_steps(alpha: float, k: int, steps: int) -> list[int]:
    """Steps by accepted drafts 0..K under i.i.d. alpha, as whole counts."""
    return [round(steps * p) for p in ar.iid_histogram(alpha, k)]


def per_position(hist: list[int]) -> list[int]:
    """Cumulative: steps whose draft i (1..K) was accepted."""
    return [sum(hist[i:]) for i in range(1, len(hist))]


def vllm_scrape(models: dict[str, list[int]], engines: int = 1) -> str:
    """vLLM v1 /metrics text for {model_name: histogram}; counts split over `engines` DP engines."""
    lines = []

    def family(name: str, help_text: str, rows: list[tuple[dict[str, str], float]]) -> None:
        lines.append(f"# HELP {name}_total {help_text}")
        lines.append(f"# TYPE {name}_total counter")
        for labels, value in rows:
            text = ",".join(f'{k}="{v}"' for k, v in labels.items())
            lines.append(f"{name}_total{{{text}}} {value}")
        lines.append(f"# HELP {name}_created {help_text}")
        lines.append(f"# TYPE {name}_created gauge")
        for labels, _ in rows:
            text = ",".join(f'{k}="{v}"' for k, v in labels.items())
            lines.append(f"{name}_created{{{text}}} 1.764e+09")

    def split(value: int) -> list[float]:
        share = [value // engines] * engines
        share[0] += value - sum(share)
        return [float(x) for x in share]

    rows: dict[str, list] = {"drafts": [], "draft_tokens": [], "accepted": [], "pos": []}
    for model, hist in models.items():
        k = len(hist) - 1
        steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
        for e in range(engines):
            labels = {"engine": str(e), "model_name": model}
            rows["drafts"].append((labels, split(steps)[e]))
            rows["draft_tokens"].append((labels, split(steps * k)[e]))
            rows["accepted"].append((labels, split(accepted)[e]))
            for i, p in enumerate(per_position(hist)):
                rows["pos"].append(({**labels, "position": str(i)}, split(p)[e]))
    lines.append("# HELP vllm:num_requests_running Number of requests in model execution batches.")
    lines.append("# TYPE vllm:num_requests_running gauge")
    lines.append('vllm:num_requests_running{engine="0",model_name="%s"} 0.0' % next(iter(models)))
    family("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", rows["drafts"])
    family("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", rows["draft_tokens"])
    family("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", rows["accepted"])
    family("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", rows["pos"])
    return "\n".join(lines) + "\n"


def llamacpp_scrape(hist: list[int], predicted: int = 0) -> str:
    """llama-server --metrics /metrics text (tools/server server_task_result_metrics::to_metrics) for a histogram:
    HELP/TYPE/value per family, no labels but the per-position counter's `position`, values written by a C++
    ostream at its default precision (six significant digits, as %g)."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    lines = []
    for name, kind, help_text, value in (
            ("prompt_tokens_total", "counter", "Number of prompt tokens processed, excluding cached tokens", 40 * k),
            ("tokens_predicted_total", "counter", "Number of generation tokens processed", predicted or steps + accepted),
            ("spec_decode_num_draft_tokens_total", "counter", "Speculative: Total draft tokens generated", steps * k),
            ("spec_decode_num_accepted_tokens_total", "counter", "Speculative: Total draft tokens accepted by the target model",
             accepted),
            ("spec_decode_num_drafts_total", "counter", "Speculative: Total speculative decoding verification steps", steps),
            ("requests_processing", "gauge", "Number of requests processing", 0)):
        lines += [f"# HELP llamacpp:{name} {help_text}", f"# TYPE llamacpp:{name} {kind}", f"llamacpp:{name} {float(value):g}"]
    lines += ["# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position",
              "# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter"]
    lines += [f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {p}'
              for i, p in enumerate(per_position(hist))]
    return "\n".join(lines) + "\n"


def vllm_log_line(hist: list[int], seconds: float = 10.0) -> str:
    """One SpecDecodingLogging.log line (vLLM v1), with the engine's own rounding."""
    k = len(hist) - 1
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    drafted = steps * k
    rates = ", ".join(f"{p / steps:.3f}" for p in per_position(hist))
    return (f"INFO 11-30 14:02:11 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: {1 + accepted / steps:.2f}, "
            f"Accepted throughput: {accepted / seconds:.2f} tokens/s, Drafted throughput: {drafted / seconds:.2f} tokens/s, "
            f"Accepted: {accepted} tokens, Drafted: {drafted} tokens, Per-position acceptance rate: {rates}, "
            f"Avg Draft acceptance rate: {100 * accepted / drafted:.1f}%")


def sglang_log_line(alpha: float, k: int) -> str:
    length = float(ar.expected_tokens(alpha, k))
    rate = (length - 1) / k
    return (f"[2026-11-30 14:02:11] Decode batch. #running-req: 8, #token: 5210, token usage: 0.03, "
            f"accept len: {length:.2f}, accept rate: {rate:.2f}, cuda graph: True, gen throughput (token/s): 412.55, #queue-req: 0, ")


def sglang_scrape(alpha: float, k: int) -> str:
    length = float(ar.expected_tokens(alpha, k))
    return ("# HELP sglang:spec_accept_length The average acceptance length of speculative decoding.\n"
            "# TYPE sglang:spec_accept_length gauge\n"
            f'sglang:spec_accept_length{{model_name="qwen",engine_type="unified",tp_rank="0",pp_rank="0"}} {length}\n'
            "# HELP sglang:spec_accept_rate The average acceptance rate of speculative decoding.\n"
            "# TYPE sglang:spec_accept_rate gauge\n"
            f'sglang:spec_accept_rate{{model_name="qwen",engine_type="unified",tp_rank="0",pp_rank="0"}} {(length - 1) / k}\n')


def trtllm_scrape(draft_tokens: int, accepted: int, length: float = 2.4) -> str:
    labels = 'engine_type="trtllm",model_name="llama"'
    return ("# HELP trtllm_spec_decode_num_draft_tokens_total Total number of draft tokens in speculative decoding\n"
            "# TYPE trtllm_spec_decode_num_draft_tokens_total counter\n"
            f"trtllm_spec_decode_num_draft_tokens_total{{{labels}}} {float(draft_tokens)}\n"
            "# HELP trtllm_spec_decode_num_accepted_tokens_total Total number of accepted tokens in speculative decoding\n"
            "# TYPE trtllm_spec_decode_num_accepted_tokens_total counter\n"
            f"trtllm_spec_decode_num_accepted_tokens_total{{{labels}}} {float(accepted)}\n"
            "# HELP trtllm_spec_decode_acceptance_length Acceptance length in speculative decoding\n"
            "# TYPE trtllm_spec_decode_acceptance_length gauge\n"
            f"trtllm_spec_decode_acceptance_length{{{labels}}} {length}\n")


def tgi_scrape(hist: list[int], requests: int) -> str:
    """metrics-exporter-prometheus output: buckets 0..speculate; the prefill step of each request lands in 0."""
    lines = ["# TYPE tgi_request_success counter", f"tgi_request_success {requests}",
             "# TYPE tgi_request_skipped_tokens histogram"]
    observed = [hist[0] + requests] + hist[1:]
    running = 0
    for j, n in enumerate(observed):
        running += n
        lines.append(f'tgi_request_skipped_tokens_bucket{{le="{j}"}} {running}')
    lines.append(f'tgi_request_skipped_tokens_bucket{{le="+Inf"}} {running}')
    lines.append(f"tgi_request_skipped_tokens_sum {sum(j * n for j, n in enumerate(hist))}")
    lines.append(f"tgi_request_skipped_tokens_count {running}")
    return "\n".join(lines) + "\n"
