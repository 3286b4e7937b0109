"""Deciding with as few requests as the data allow, without the error rate creeping up
(docs/design/intervals.md#until-decided-a-group-sequential-design).

Looking at an interval after every round and stopping as soon as it clears the break-even inflates the error
rate of a fixed-sample interval: each look is another chance for a chance excursion to look decided. The method
here is a group-sequential design with alpha spending (Lan and DeMets 1983), on a schedule of looks fixed before
any data are seen:

- the looks are dense: every request from MIN_REQUESTS to 2 * MIN_REQUESTS, then each about 10% more requests
  than the one before (5, 6, ..., 10, 11, 13, 15, 17, ..., the cap). A class stops at the first look after its
  interval clears, so sparse looks (5, 10, 20, 40: the first version) overshoot by a third on average;
- a decision can be wrong one way only (a class whose alpha is at or above the break-even can only be wrongly
  decided below it), so the error is spent on each side, and the goal is that a class is decided wrongly at
  most 1 - confidence of the time whatever its truth. On the break-even itself either decision is a coin's
  call, but a truth a hair below (above) it is wrongly decided above (below) as often as the truth on it is, so
  each of the two is held to 1 - confidence there (their sum is not: that would be a design at half the error
  a side, like the first version's Bonferroni split, and cost the tokens it did);
- SPEND_SHARE = 0.8 of 1 - confidence is spent on each side, and each look's decision is confirmed with the
  end of its interval toward the break-even corrected for the skewness of the prompts (``skew_factors``,
  ``side_at_look``). Acceptance's spread between prompts is skewed (bounded at 1, a long tail of hard prompts
  below the mean), and the studentised statistic of a few skewed units has a long tail on the side of the short
  one: a sample that missed the hard prompts looks both good and sure. Normal theory alone, spending all of the
  error, decided ABOVE on the break-even in 5.5-7.7% of simulated runs at alpha* 0.65 (0.05-0.15 between
  prompts), 7.3-8.1% at 0.8 and 12% at 0.9 with 0.10; spending 0.6 of it without a correction (the design
  before) held 0.65 to 4.0% but not 0.8 (5.3-5.4%), 0.9 (7.9%) or E (5.4-6.3%);
- the correction is Hall's (1992) monotone cubic transformation of the studentised statistic,
  T + g T^2 / 3 + g^2 T^3 / 27 + g / 6 with g the prompts' skewness over sqrt(prompts), inverted at the look's
  own t: the end toward the break-even is taken f >= 1 times as far from the point on the log-odds (the fill's
  for E). The skewness is that of the look's per-prompt residuals (model.acceptance.interval.residual_skewness),
  adjusted for small samples (sqrt(n (n - 1)) / (n - 2)) and weighted SKEW_WEIGHT = 1.5: the sample skewness of
  5 to 20 prompts is biased toward 0 even adjusted (in one simulated E cell -0.46 on average over 10 prompts
  where 160 give -0.77), and at weight 1 a profile class's E on the break-even was still decided above in 6.3%
  of 1,000 runs of a scratch simulation (spread 0.6 between prompts' log-odds; 4.9% at 1.5). It is bounded: g t is held at 1
  (past it the cubic's inverse shrinks again as the skewness grows) and f at SKEW_FAR = 4/3. Unbounded (the
  first try, reverted), serve-demo's code class (5 to 8 prompts, one of them hard, alpha about 0.9) had the far
  end of its E interval pushed to the bottom of the scale and was never decided; bounded, it is decided (E 3.41
  to 4.51 against a break-even length of 2.49 after 5 requests). f >= 1 always: the correction only makes
  deciding harder, never easier, so a class stopped as decided is decided by the plain interval the comparison
  shows too. Made two-sided (easing the other end) it decided BELOW on the break-even in up to 6.5% of runs
  (scratch simulation, 400 runs a cell);
- the error is spent as the square of the share of log requests: by the look at n requests,
  s (ln(n / n0) / ln(N / n0))^2 with s the error spent a side, N the cap and n0 half the first look. The requests
  a class needs grow as (spread / margin)^2, unknown before the run within a factor of 30, so the spending is
  laid out over log requests; the square keeps more of it for the late looks than spending evenly over them
  (the design before), because the skewness correction costs most where prompts are few: classes 5 points from
  the break-even with 0.15 between prompts need 80 to 130 requests, and even spending left 6-8% of them
  undecided at a cap of 160 (now 3.5-6.5%). It costs the classes decided within 20 requests some of their
  saving (the benchmark's table 2: 2.2-2.5x where even spending gave 2.7-2.9x with 0.05 between prompts).
  Spending evenly over requests (Pocock type, ln(1 + (e - 1) n / N)) keeps too much for the late looks of a
  long cap, and a design of O'Brien-Fleming type nearly all of it for the last look;
- each look's boundary is exact for the joint normal law of the statistic across looks (correlation
  sqrt(n_i / n_j)), found by the recursive numerical integration of Armitage, McPherson and Rowe (1969) with
  scipy's normal distribution, instead of Bonferroni's bound, which ignores that correlation and pays for it;
- a look's boundary z_k becomes its interval's confidence 1 - 2 (1 - Phi(z_k)), never below ``confidence``
  itself, so a class stopped as decided is decided by the plain interval the comparison shows too (the skewness
  correction only ever asks more). The interval is the cluster-robust one of model.acceptance.interval, with
  Student's t at each look (the usual way to use a normal-theory design's nominal levels with an estimated
  variance).

The design is for the normal approximation with equal information per request; tests/bench/bench_intervals.py
measures, on simulated probes with prompts that differ, the wrong decisions (at most 5%) and the tokens spent
against fixed plans, side by side with the design at another commit (--against).

What it saves, and what it cannot: the tokens against two fixed plans are in the benchmark's table 2 (the
matched one, which reaches the same error, is the one the goal is read on). The 95%-power yardstick at 5 points
with 0.05 between prompts (about 21 requests) leaves little room for any sequential test: Wald's SPRT, optimal
for that one alternative with the spread known, needs on average 2.65 / (d^2 / 2) requests at 5% errors a side
(d = margin / spread of a request, about 0.05 / 0.06): about 8, where the normal-theory fixed plan needs
((1.96 + 1.645) / d)^2, about 19, so 2.4x at best; a design valid for every margin, with the spread estimated
from 5 prompts up, cannot reach it there. Measured (tests/bench/bench_intervals.py 1000 --against 6cc1235,
1,000 runs a cell, cap 160): on the break-even decided above / below at most 5.0% each way at every break-even
from 0.3 to 0.9 and for E (the design before: up to 7.9%); at 5 points 2.5x / 2.2x (above / below the
break-even) fewer tokens than the matched plan with 0.05 between prompts, 2.8x / 3.7x with 0.10, 1.7x / 2.1x
with 0.15. Known limit: with 0.15 between prompts a class 5 points above the break-even saves 1.7x, short of
2x: its prompts are skewed (a Beta at 0.70 with sd 0.15), deciding above is what the correction makes harder,
and 6.5% of those runs reach the cap undecided; a profile class's E at 0.25 tokens per step above its
break-even with 0.9 between prompts' log-odds saves 1.4x.

``requests_to_decide`` says, before sending, how many requests a class is expected to need: from a measured
interval (the half-width shrinks as 1 / sqrt(requests)) or, with nothing measured, from the class's current
alpha with an assumed spread between prompts; it counts from the requests it is told a run will build on. Each
look's boundary is moved out by the skewness correction as the run moves it, with the measured interval's own
skewness or, where there is none (nothing measured, or an interval kept in a workbook), that of a Beta with the
assumed or implied spread (``beta_skewness``: -1.6 at alpha 0.9
with 0.10, so a class there needs more requests to be decided above than below a break-even as far away).

A class given as a profile or a length breaks even at a length, E* = K c + v tokens per verify step (or the
price break-even length), not at an alpha: ``LengthThreshold``. It is decided the same way on the interval on E
at the tier's K (``length_acceptance``: the comparison's own carriage of a measured E to K, so a class stopped
as decided is decided in the comparison after Apply too). E = 1 + K F with F the trailer fill, a ratio of sums
over requests like alpha (model.acceptance.interval.length_interval), so the same looks and error spending
apply, and ``requests_to_decide_length`` asks requests_to_decide in fill units.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from model.acceptance.interval import MIN_REQUESTS, z_quantile
from model.acceptance.value import LENGTH, Acceptance

ABOVE, BELOW, OPEN = "above", "below", "open"
ASSUMED_SPREAD = 0.10  # sd of alpha between prompts of one class, when nothing is measured yet
SPEND_SHARE = 0.8  # of 1 - confidence, spent on each side (see the docstring)
SPEND_POWER = 2.0  # the share spent by a look grows as the square of its log requests' share
SKEW_WEIGHT = 1.5  # times the units' (small-sample adjusted) skewness the decision corrects for
SKEW_FAR = 4.0 / 3.0  # the farthest the correction moves an end: a third farther from the point, on the log-odds
METHOD = ("group-sequential: alpha spending (Lan-DeMets) as the square of the share of log requests, dense looks, "
          "0.8 x (1 - confidence) spent on each side, each look's end toward the break-even corrected for the "
          "prompts' skewness (Hall's transformation, bounded)")
_GROWTH = 1.1  # each look past 2 * MIN_REQUESTS sees about 10% more requests than the one before


def look_schedule(max_requests: int, first: int = MIN_REQUESTS) -> list[int]:
    """Requests per class at each look: every request from ``first`` to twice it, then about 10% more at each
    look, and the cap as the last look."""
    if max_requests < first:
        return [max_requests] if max_requests > 0 else []
    looks = [first]
    while True:
        n = looks[-1]
        nxt = n + 1 if n < 2 * first else max(n + 1, math.ceil(n * _GROWTH))
        if nxt >= max_requests:
            break
        looks.append(nxt)
    if looks[-1] != max_requests:
        looks.append(max_requests)
    return looks


def _spent(error: float, n: float, first: float, last: float) -> float:
    """The error spent by the look at ``n`` requests: as the square of the share of log requests from half the
    first look's requests (so the first look spends a share too) to the last look's."""
    origin = first / 2.0
    return error * min(max(math.log(n / origin) / math.log(last / origin), 0.0), 1.0) ** SPEND_POWER


@functools.lru_cache(maxsize=64)
def look_boundaries(looks: tuple[int, ...], error: float) -> tuple[float, ...]:
    """The z boundary at each look: a path of the standardised statistic under no effect crosses the upper one
    (first, at look k) with the probability spent between looks k - 1 and k, and the lower one likewise.

    Armitage-McPherson-Rowe: the sub-density of the score S_k = Z_k sqrt(n_k) over the paths not yet stopped is
    carried on a grid from look to look by the normal kernel of the increment (variance n_k - n_(k-1)).
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    if not looks:
        return ()
    info = np.asarray(looks, dtype=np.float64)
    if np.any(np.diff(info) <= 0) or info[0] <= 0:
        raise ValueError("looks must be increasing request counts above 0")
    if not 0.0 < error < 1.0:  # a confidence of 50% spends 0.5 a side: the boundaries go to 0, not past it
        raise ValueError(f"the error to spend must be above 0 and below 1 (got {error})")
    bounds: list[float] = []
    grid = weights = density = np.empty(0)
    for k, n in enumerate(info):
        spend = _spent(error, n, info[0], info[-1]) - (_spent(error, info[k - 1], info[0], info[-1]) if k else 0.0)
        root_n = math.sqrt(n)
        if k == 0:
            z = float(norm.isf(spend)) if spend > 0 else math.inf
        else:
            sd = math.sqrt(n - info[k - 1])
            mass = weights * density

            def upper(c: float) -> float:
                return float(np.dot(mass, norm.sf((c * root_n - grid) / sd))) - spend
            z = math.inf if spend <= 0 else (0.0 if upper(0.0) <= 0 else brentq(upper, 0.0, 50.0, xtol=1e-7))
        bounds.append(z)
        if k + 1 == len(info):
            break
        # the grid for the paths still going at look k: fine against this look's sd and the next increment's
        edge = min(z, 12.0) * root_n
        step = min(root_n, math.sqrt(info[k + 1] - n)) / 10.0
        points = max(int(math.ceil(2 * edge / step)), 2) + 1
        new_grid = np.linspace(-edge, edge, points)
        new_weights = np.full(points, new_grid[1] - new_grid[0])
        new_weights[[0, -1]] *= 0.5  # trapezoid
        if k == 0:
            density = norm.pdf(new_grid, scale=root_n)
        else:
            kernel = norm.pdf((new_grid[:, None] - grid[None, :]) / sd) / sd
            density = kernel @ (weights * density)
        grid, weights = new_grid, new_weights
    return tuple(bounds)


def look_confidences(confidence: float, looks: list[int] | tuple[int, ...]) -> list[float]:
    """The confidence of each look's two-sided interval: its boundary's nominal level on each side, never below
    ``confidence`` (so a class decided at a look is decided by the plain interval too)."""
    from scipy.stats import norm

    bounds = look_boundaries(tuple(looks), SPEND_SHARE * (1.0 - confidence))
    return [max(confidence, 1.0 - 2.0 * float(norm.sf(z))) for z in bounds]


def skew_factors(skew: float | np.ndarray, units: float | np.ndarray, t: float | np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """How many times farther from the point, on the log-odds, a look's interval's lower and upper ends must be
    taken for deciding: Hall's (1992) cubic transformation of the studentised statistic, inverted at the
    interval's own critical value ``t``. ``skew`` is the units' sample skewness m3 / m2^(3/2)
    (model.acceptance.interval.residual_skewness), adjusted for small samples (sqrt(n (n - 1)) / (n - 2)) and
    weighted by SKEW_WEIGHT. Each factor is at least 1 (the correction only ever makes deciding harder, so the
    plain interval decides too) and at most SKEW_FAR (a few strongly skewed prompts stay decidable). Below 3
    units: 1.

    With g the weighted skewness over sqrt(units), Hall's g(T) = T + g T^2 / 3 + g^2 T^3 / 27 + g / 6 is monotone
    and about normal where T is skewed, and g(T) >= t holds for T >= 3 ((1 + g (t - g / 6))^(1/3) - 1) / g.
    """
    n = np.maximum(np.asarray(units, dtype=np.float64), 3.0)
    adjusted = np.asarray(skew, dtype=np.float64) * np.sqrt(n * (n - 1.0)) / (n - 2.0)
    t = np.asarray(t, dtype=np.float64)
    # past |g| t = 1 the cubic's inverse at t shrinks again as the skewness grows: held there, the correction
    # grows with the skewness up to SKEW_FAR and stays there
    g = np.where(np.asarray(units) >= 3, np.clip(SKEW_WEIGHT * adjusted / np.sqrt(n), -1.0 / t, 1.0 / t), 0.0)
    tiny = np.abs(g) < 1e-9
    safe = np.where(tiny, 1.0, g)

    def inverse(u: np.ndarray) -> np.ndarray:  # the T at which g(T) = u
        return np.where(tiny, u - g / 6.0, 3.0 * (np.cbrt(1.0 + safe * (u - safe / 6.0)) - 1.0) / safe)

    with np.errstate(invalid="ignore"):  # (a NaN skewness gives NaN factors: side_at_look keeps the plain side)
        return np.clip(inverse(t) / t, 1.0, SKEW_FAR), np.clip(-inverse(-t) / t, 1.0, SKEW_FAR)


def side_at_look(acc: Acceptance, threshold: float, scale: tuple[float, float] = (0.0, 1.0)) -> str:
    """The side a run until decided stops a class on: ``side`` of the interval shown, confirmed with the end
    toward the break-even moved skew_factors times farther from the point on the log-odds of ``scale`` (alpha's
    (0, 1); E's (1, K + 1), whose log-odds is the fill's). Without a skewness (an interval made elsewhere) the
    plain side."""
    s = side(acc, threshold)
    if s == OPEN or acc.skew is None or not math.isfinite(acc.skew) or not acc.confidence or acc.requests < 2:
        return s
    from model.acceptance.interval import t_quantile

    lo_s, hi_s = scale

    def logit(x: float) -> float:
        f = (x - lo_s) / (hi_s - lo_s)
        return math.log(f / (1.0 - f)) if 0.0 < f < 1.0 else math.nan
    mid, end, at = logit(float(acc.point)), logit(float(acc.low if s == ABOVE else acc.high)), logit(threshold)  # type: ignore[arg-type]
    if not (math.isfinite(mid) and math.isfinite(end) and math.isfinite(at)):
        return s
    low_f, high_f = skew_factors(acc.skew, acc.requests, t_quantile(float(acc.confidence), acc.requests - 1))
    far = mid + float(low_f if s == ABOVE else high_f) * (end - mid)
    return s if (far >= at if s == ABOVE else far < at) else OPEN


def side(acc: Acceptance, threshold: float) -> str:
    """ABOVE or BELOW where the whole interval lies on one side of ``threshold`` (alpha >= threshold is ABOVE,
    as a verdict reads it), OPEN where it reaches both sides or there is no interval."""
    if not acc.has_interval:
        return OPEN
    if float(acc.low) >= threshold:  # type: ignore[arg-type]
        return ABOVE
    if float(acc.high) < threshold:  # type: ignore[arg-type]
        return BELOW
    return OPEN


@dataclass(frozen=True)
class Need:
    """Requests a class is expected to need beyond those it starts from, and why (from data or assumed)."""

    extra: float  # math.inf where it cannot be decided (the point sits on the threshold)
    basis: str


def requests_to_decide(acc: Acceptance | None, alpha: float, threshold: float | None, confidence: float,
                       half_width: float | None = None, trials_per_request: float = 60.0,
                       looks: list[int] | None = None, have: int | None = None) -> Need:
    """Expected further requests for the interval at ``confidence`` to clear ``threshold`` (or, with
    ``half_width``, to be that narrow, whichever comes first, as the run stops a class).

    The spread between requests comes from ``acc``'s interval where it has one (h at n requests: a per-request
    spread of h sqrt(n) / z), else from ``alpha`` with ASSUMED_SPREAD between prompts. ``have``: the requests a
    run builds on (default: ``acc``'s; 0 for a run that starts afresh). With ``looks`` (a run until decided), the
    answer is the first look whose boundary the expected interval clears, at that look's own confidence.
    """
    start = (acc.requests if acc is not None else 0) if have is None else have
    # a run stops a class at whichever comes first, decided or the half-width reached: the wider margin
    margins = [abs(alpha - threshold)] if threshold is not None and math.isfinite(threshold) else []
    if half_width is not None:
        margins.append(half_width)
    if not margins:
        return Need(math.inf, "no break-even to decide against")
    margin = max(margins)
    deciding = threshold is not None and math.isfinite(threshold) and alpha != threshold  # margins[0] decides
    if margin <= 0:
        return Need(math.inf, "the acceptance sits on the break-even")
    skew = None
    if acc is not None and acc.has_interval and acc.confidence and acc.requests >= MIN_REQUESTS:
        spread = acc.half_width * math.sqrt(acc.requests) / float(z_quantile(acc.confidence))
        basis = f"spread from the interval over {acc.requests} requests"
        # an interval kept in a workbook has no skewness: a Beta's with the spread it implies
        skew = acc.skew if acc.skew is not None else beta_skewness(alpha, spread)
    else:
        spread = math.sqrt(ASSUMED_SPREAD ** 2 + alpha * (1.0 - alpha) / max(trials_per_request, 1.0))
        basis = f"assumed spread {ASSUMED_SPREAD:.2f} between prompts"
        skew = beta_skewness(alpha, ASSUMED_SPREAD)
    if looks:
        for n, conf in zip(looks, look_confidences(confidence, looks)):
            z = float(z_quantile(conf))
            # deciding, the end toward the break-even is corrected for skewness as the run corrects it
            stops = [(z * spread / m) ** 2 for m in margins if m > 0]
            if deciding and skew is not None and math.isfinite(skew):
                low_f, high_f = skew_factors(skew, n, z)
                stops[0] *= float(low_f if alpha >= threshold else high_f) ** 2  # type: ignore[operator]
            if n >= start and n >= min(stops) - 1e-9:
                return Need(float(n - start), basis)
        return Need(math.inf, basis + f"; more than the cap of {looks[-1]} requests")
    need = max((float(z_quantile(confidence)) * spread / margin) ** 2, float(MIN_REQUESTS))
    return Need(max(0.0, math.ceil(need - start - 1e-9)), basis)  # 20.000000001 is 20 requests


def beta_skewness(mean: float, sd: float) -> float | None:
    """The skewness of a Beta of this mean and sd (the spread between prompts assumed where none is measured);
    None where no Beta has them."""
    if not 0.0 < mean < 1.0 or sd <= 0 or sd * sd >= mean * (1.0 - mean):
        return None
    c = mean * (1.0 - mean) / (sd * sd) - 1.0
    a, b = mean * c, (1.0 - mean) * c
    return 2.0 * (b - a) * math.sqrt(a + b + 1.0) / ((a + b + 2.0) * math.sqrt(a * b))


@dataclass(frozen=True)
class LengthThreshold:
    """The tokens per verify step a profile or length class is judged against, at the tier's K."""

    length: float
    k: int

    def words(self) -> str:
        return f"break-even length {self.length:.2f} at K {self.k}"


def length_acceptance(row: object, k: int, default_confidence: float) -> Acceptance:
    """E at ``k`` of a profile or length row (read by field names), with its interval carried to ``k`` as the
    comparison carries it (model.acceptance.profiles.AcceptanceGrid); kind LENGTH."""
    from model.acceptance.profiles import AcceptanceGrid

    grid = AcceptanceGrid.of([row], {}, 1)
    kk = np.full((1, 1), float(k))
    e, _ = grid.tokens(np.full((1, 1), np.nan), kk)
    lo, hi = (float(x[0, 0]) for x in grid.tokens_interval(e, kk))
    conf = float(grid.length_confidence[0, 0]) if grid.length_confidence is not None else math.nan
    has = math.isfinite(lo) and math.isfinite(hi)
    return Acceptance(float(e[0, 0]), lo if has else None, hi if has else None,
                      (conf if math.isfinite(conf) else default_confidence) if has else None,
                      int(getattr(row, "alpha_requests", 0) or 0), int(getattr(row, "alpha_steps", 0) or 0),
                      getattr(row, "alpha_method", "") or "", LENGTH)


def requests_to_decide_length(acc: Acceptance, threshold: LengthThreshold, confidence: float,
                              looks: list[int] | None = None, have: int | None = None,
                              half_width: float | None = None) -> Need:
    """requests_to_decide for E at K against a break-even length, in trailer-fill units F = (E - 1) / K (the
    proportion the interval is built on; the assumed spread between prompts applies to it). ``half_width`` is
    on E, in tokens per verify step (F's is half_width / K)."""
    k = float(threshold.k)

    def fill(x: float | None) -> float | None:
        return None if x is None else (float(x) - 1.0) / k

    f_acc = Acceptance(fill(acc.point), fill(acc.low), fill(acc.high), acc.confidence, acc.requests, acc.steps,
                       acc.method, skew=acc.skew)
    return requests_to_decide(f_acc, float(fill(acc.point)), fill(threshold.length), confidence,
                              None if half_width is None else half_width / k, looks=looks, have=have)
