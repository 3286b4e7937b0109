"""What a probe will send before it sends it: the requests in order, their tokens and what they cost.

Requests go one at a time (a queue behind other traffic would blur the timing), fast and baseline
interleaved prompt by prompt, so a slow minute on the server falls on both tiers alike.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from model.common import formatting as fmt
from model.probe.endpoint import Endpoint
from model.probe.events import BASELINE, FAST
from model.probe.filler import context_label
from model.probe.prompt_file import ProbePrompt
from model.workbook.rows import Tier

MAX_REPEATS = 1000  # each prompt sent this many times at most: a run stays in hours, not years
MAX_CONCURRENCY = 256  # one thread and one connection per stream
MAX_TEMPERATURE = 2.0  # OpenAI's range
CHARS_PER_TOKEN = 4.0  # English text; for the estimate only, the run file keeps the server's usage


# said beside every estimate with prices: the bill's basis, and why it is an upper bound
PRICE_BASIS = ("at list prices, every request to the tier at its fast price: one the vendor downgrades is billed at "
               "the standard price, and cached input at less")
SHORT_PRICE_BASIS = "the fast list price on every request: downgraded ones bill less"  # where a line is short


@dataclass(frozen=True)
class Prices:
    price_in: float  # currency per 1M input tokens
    price_out: float  # currency per 1M output tokens
    # a vendor's context band (docs/design/vendor-terms.md): past this many input tokens its long prices apply
    band_threshold: int | None = None
    price_in_long: float | None = None
    price_out_long: float | None = None

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """One request's cost at these prices, its band chosen by its own input tokens."""
        long = self.band_threshold is not None and tokens_in > self.band_threshold
        p_in = self.price_in_long if long and self.price_in_long is not None else self.price_in
        p_out = self.price_out_long if long and self.price_out_long is not None else self.price_out
        return (tokens_in * p_in + tokens_out * p_out) / 1e6


def tier_prices(tier: Tier | None) -> Prices | None:
    """A workbook tier's list prices for the probe's estimate (its context band with them)."""
    if tier is None:
        return None
    return Prices(tier.price_in, tier.price_out, tier.band_threshold, tier.price_in_long, tier.price_out_long)


@dataclass
class ProbeSettings:
    fast: Endpoint
    prompts: list[ProbePrompt]
    baseline: Endpoint | None = None
    contexts: tuple[int, ...] = (0,)
    repeats: int = 1
    max_tokens: int = 64
    fast_name: str = "fast tier"
    baseline_name: str = "baseline"
    fast_prices: Prices | None = None
    baseline_prices: Prices | None = None
    prompts_path: str = ""
    concurrency: tuple[int, ...] = (1,)  # parallel streams per level, one level at a time (model/probe/load.py)
    tier_k: int | None = None  # the probed tier's K in the workbook: the result says when the K measured differs
    # a speed SLA to judge, (tokens/s, share of requests), e.g. (80.0, 0.99): `probe --sla 80@0.99` or the tier's
    sla: tuple[float, float] | None = None
    # above 0: the repeats are sampled at it (the quality test, docs/design/quality.md), after one greedy answer
    # per prompt and tier that identity and the greedy-agreement statistic compare with
    temperature: float = 0.0
    check_margin_points: float = 2.0  # the task checks' margin: fast within it of the baseline is "same"

    def check(self) -> None:
        if not self.prompts:
            raise ValueError("no prompts to send")
        if not 1 <= self.repeats <= MAX_REPEATS:
            raise ValueError(f"--repeats must be from 1 to {MAX_REPEATS}")
        if not 2 <= self.max_tokens <= 4096:
            raise ValueError("--max-tokens must be between 2 and 4096")
        if not self.contexts or any(c < 0 or c > 1_048_576 for c in self.contexts):
            raise ValueError("contexts must be between 0 and 1M tokens")
        if not self.concurrency or any(not 1 <= n <= MAX_CONCURRENCY for n in self.concurrency):
            raise ValueError(f"--concurrency levels must be from 1 to {MAX_CONCURRENCY} parallel streams")
        if not (math.isfinite(self.check_margin_points) and 0 <= self.check_margin_points <= 100):
            raise ValueError("--check-margin must be from 0 to 100 points")
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            raise ValueError(f"--temperature must be from 0 to {MAX_TEMPERATURE:g}")


@dataclass(frozen=True)
class PlannedRequest:
    role: str
    prompt_index: int
    prompt: ProbePrompt
    context: int
    repeat: int
    temperature: float = 0.0

    @property
    def label(self) -> str:
        sampled = f" at temperature {self.temperature:g}" if self.temperature > 0 else ""
        return (f"request {self.role} {self.prompt.task_class} #{self.prompt_index + 1} "
                f"(line {self.prompt.line}), {context_label(self.context)}, repeat {self.repeat + 1}{sampled}")


def plan_requests(settings: ProbeSettings) -> list[PlannedRequest]:
    """Every request in order; at a temperature above 0, one greedy pass first, then the repeats at it."""
    roles = [FAST] + ([BASELINE] if settings.baseline is not None else [])
    greedy = [PlannedRequest(role, i, p, ctx, 0)
              for ctx in settings.contexts for i, p in enumerate(settings.prompts) for role in roles]
    if settings.temperature <= 0:
        return [PlannedRequest(role, i, p, ctx, rep)
                for rep in range(settings.repeats) for ctx in settings.contexts
                for i, p in enumerate(settings.prompts) for role in roles]
    return greedy + [PlannedRequest(role, i, p, ctx, rep, settings.temperature)
                     for rep in range(settings.repeats) for ctx in settings.contexts
                     for i, p in enumerate(settings.prompts) for role in roles]


@dataclass
class Estimate:
    requests: int
    tokens_in: int
    tokens_out: int  # at most: max_tokens per request
    cost: float | None  # None when a tier has no prices
    by_role: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # requests, in, out

    def describe(self, currency: str = "") -> str:
        cost = (f"at most {fmt.cost(self.cost, currency)} ({PRICE_BASIS})" if self.cost is not None
                else "cost unknown (no prices given)")
        return (f"{fmt.count(self.requests, 'request')}{self._split()}, about {self.tokens_in:,} input tokens and "
                f"at most {self.tokens_out:,} output tokens; {cost}")

    def _split(self) -> str:
        """' (48 to the tier, 48 to its baseline)' where some go to the baseline: they are not the tier's."""
        base = self.by_role.get(BASELINE, (0, 0, 0))[0]
        if not base:
            return ""
        return f" ({self.by_role.get(FAST, (0, 0, 0))[0]} to the tier, {base} to its baseline)"


def input_tokens(prompt: ProbePrompt, context: int) -> int:
    """A request's input tokens as the estimate reckons them (CHARS_PER_TOKEN), its filler context with them."""
    return int(math.ceil(prompt.chars / CHARS_PER_TOKEN)) + context


def estimate(settings: ProbeSettings) -> Estimate:
    plan = plan_requests(settings)
    est = Estimate(len(plan), 0, 0, 0.0)
    for role in {r.role for r in plan}:
        mine = [r for r in plan if r.role == role]
        ins = [input_tokens(r.prompt, r.context) for r in mine]
        t_in, t_out = sum(ins), len(mine) * settings.max_tokens
        est.by_role[role] = (len(mine), t_in, t_out)
        est.tokens_in += t_in
        est.tokens_out += t_out
        prices = settings.fast_prices if role == FAST else settings.baseline_prices
        if prices is None or est.cost is None:
            est.cost = None
        else:
            est.cost += sum(prices.cost(n, settings.max_tokens) for n in ins)
    return est
