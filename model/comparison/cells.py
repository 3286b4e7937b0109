"""The per-(tier, class) half of the comparison, and the cache that keeps it from one edit to the next.

Every number of one cell (its c and v, E at the tier's K, the break-even, the optimal-K search, the speedup
and its interval, the speed verdict, the interval's note) depends only on that tier's mechanics, that class's
acceptance and context, the override on that cell and the settings. ``pair_block`` computes them for any
tiers x classes at once. ``PairCache`` keeps the last workbook's cells keyed on each tier's and each class's
values, so after an edit only the rows and columns whose values changed are computed again: one class edited
is one column, one tier's K one row, a price or a class's tokens none (compare() computes the mixes, prices
and baseline numbers, which read whole rows, in full every time: model/comparison/compute.py).

Exactness: a cell's numbers come out bit for bit as a full computation gives them (tests/model/
comparison/test_incremental_compare.py compares every field over random edits). What could tie a cell to the others
is held fixed across blocks: the optimal-K search's top K and the profiles' width are the whole workbook's,
and the solvers stop each cell at its own convergence (arithmetic.solve_alpha_for_tokens).
"""
from __future__ import annotations

import operator
from dataclasses import astuple, dataclass, fields
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.acceptance import acceptance_of
from model.acceptance.profiles import GRID_FIELDS, AcceptanceGrid
from model.acceptance.propagate import speedup_ends
from model.mechanics.solves import RootMemo, SolveMemo
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import speed_verdicts
from model.workbook.rows import Override, Settings, TaskClass, Tier

T = TypeVar("T")

NO_LENGTH_INTERVAL = "no interval on this mean acceptance length"
# a tree verifies N candidate tokens a step over its depth K: a per-token alpha is a chain's (E(alpha, K) counts
# one candidate a position), and no stated rule turns it into a tree's acceptance, so no number is made from it
TREE_NEEDS_LENGTH = ("a tree draft needs its acceptance as a mean acceptance length or a per-depth profile measured "
                     "on a tree: a per-token alpha describes a chain, and E(alpha, K) would understate a tree by an "
                     "unknown amount")

# the (tiers x classes) arrays of one block by type, kept as one stacked array per type (copied, gathered and
# filled in one operation each); compare() reads them by these names. And the nested lists.
STACKS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (np.float64, ("alpha", "a_lo", "a_hi", "a_conf", "c", "v", "e", "be_alpha", "margin", "stretch", "speedup", "s_lo",
                  "s_hi", "tokens_lo", "tokens_hi", "opt_s", "cf")),
    (np.bool_, ("extrapolated", "refused", "opt_x", "is_alpha", "not_given")),
    (np.int8, ("be_kind", "verdict")),
    (np.int64, ("opt_k",)))
LISTS = ("source", "notes")

# what a cell does not read: a tier's prices, baseline, claim and endpoint, a class's traffic (the mixes and the
# value verdict read them, in compare()). Every other field is in the key, so a field added later is too.
_TIER_ONLY = {"vendor", "claimed_speedup", "claim_context", "price_out", "price_in", "baseline", "notes",
              "endpoint_url", "endpoint_model", "api_key_env", "keyring_service", "keyring_user", "extra_body",
              "endpoint_api", "endpoint_headers",
              "measured_speedup", "measured_note", "concurrency", "measured_by_concurrency", "claim_concurrency",
              "defaulted"}
_MIX_ONLY = {"tokens_out", "tokens_in"}
_tier_key = operator.attrgetter(*[f.name for f in fields(Tier) if f.name not in _TIER_ONLY])
_class_key = operator.attrgetter(*[f.name for f in fields(TaskClass) if f.name not in _MIX_ONLY])
_override_key = operator.attrgetter(*[f.name for f in fields(Override)])
_grid_key = operator.attrgetter("name", *GRID_FIELDS)


@dataclass
class Pairs:
    """One block of cells: ``stacks`` (one per type of STACKS, (fields, tiers, classes)) and ``lists`` (per tier,
    per class); ``arrays`` names each field's (tiers x classes) view."""

    stacks: list[NDArray[Any]]
    lists: dict[str, list[list[str]]]

    def __post_init__(self) -> None:
        self.arrays = {name: stack[i] for stack, (_, names) in zip(self.stacks, STACKS) for i, name in enumerate(names)}


def search_top(tiers: list[Tier], settings: Settings) -> int:
    """The optimal-K search's top K: at least the tier's own K, so "optimal K" is never worse than it."""
    return max(settings.k_max, max((t.k for t in tiers), default=1))


def profile_width(classes: list[TaskClass], overrides: list[Override]) -> int:
    return max([len(r.profile) for r in (*classes, *overrides) if r.profile] or [1])


@dataclass
class _Acceptance:
    """One block's acceptance per cell, the overrides applied: alpha, its interval's ends at its confidence, where
    it came from and why it has no interval, the overrides by cell, and the grid (each cell's kind beyond alpha)."""

    alpha: NDArray[np.float64]
    a_lo: NDArray[np.float64]
    a_hi: NDArray[np.float64]
    a_conf: NDArray[np.float64]
    source: list[list[str]]
    notes: list[list[str]]
    cells: dict[tuple[int, int], Override]
    grid: AcceptanceGrid


def _acceptance(tiers: list[Tier], classes: list[TaskClass], overrides: list[Override], s: Settings,
                width: int) -> _Acceptance:
    n_t, n_c = len(tiers), len(classes)
    alpha = np.tile(np.array([c.alpha for c in classes], dtype=np.float64), (n_t, 1))
    # read once per class and once per override, then laid out per tier: per cell, acceptance_of and its
    # interval's three lists cost 100 x 30 an edit 7 ms of the window's 16 ms frame
    class_acc = [acceptance_of(c, s.confidence) for c in classes]
    class_source = ["not given" if "alpha" in c.defaulted_fields() else c.alpha_source for c in classes]
    class_note = [a.note for a in class_acc]
    source = [list(class_source) for _ in tiers]
    notes = [list(class_note) for _ in tiers]
    a_lo, a_hi, a_conf = (np.tile(np.array([getattr(a, end) if a.has_interval else np.nan for a in class_acc],
                                           dtype=np.float64), (n_t, 1)).reshape(n_t, n_c)
                          for end in ("low", "high", "confidence"))
    cells = override_cells(tiers, classes, overrides)
    for (i, j), o in cells.items():
        alpha[i, j] = o.alpha
        source[i][j] = f"{o.alpha_source} (tier override)"
        a = acceptance_of(o, s.confidence)  # the override's own interval, or none: not the class's
        notes[i][j] = a.note
        a_lo[i, j], a_hi[i, j], a_conf[i, j] = ((a.low, a.high, a.confidence) if a.has_interval
                                                 else (np.nan, np.nan, np.nan))
    return _Acceptance(alpha, a_lo, a_hi, a_conf, source, notes, cells, AcceptanceGrid.of(classes, cells, n_t, width))


def _intervals_on_e(grid: AcceptanceGrid, has_e: NDArray[np.bool_], a_lo: NDArray[np.float64],
                    a_hi: NDArray[np.float64], a_conf: NDArray[np.float64], notes: list[list[str]],
                    confidence: float) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The cells whose acceptance is a profile or a length: no interval on alpha (theirs is on E, at its own
    confidence), and ``notes`` (changed in place) say why one has none."""
    # an interval on alpha says nothing of a profile or a length: theirs is on E, at its own confidence
    a_lo, a_hi = (np.where(grid.is_alpha, x, np.nan) for x in (a_lo, a_hi))
    e_conf = np.where(np.isfinite(grid.length_confidence), grid.length_confidence, confidence)
    a_conf = np.where(grid.is_alpha, a_conf, np.where(has_e, e_conf, np.nan))
    # why such a cell has no interval: its own on E, or none (an interval on alpha beside it does not count)
    # (plain lists: numpy scalars per cell cost 2.6 ms at 100 x 30 with every cell a profile, lists 0.6 ms)
    has_e_rows = has_e.tolist()
    for i, beyond_row in enumerate((grid.kind != 0).tolist()):
        row, has_row = notes[i], has_e_rows[i]
        for j, beyond in enumerate(beyond_row):
            if beyond:
                row[j] = "" if has_row[j] else (row[j] or NO_LENGTH_INTERVAL)
    return a_lo, a_hi, a_conf


def _optimal_k(e_all: NDArray[np.float64], x_all: NDArray[np.bool_], ks: NDArray[np.float64], k: NDArray[np.float64],
               c: NDArray[np.float64], v: NDArray[np.float64], context: NDArray[np.float64], costs: TierCosts,
               withheld: NDArray[np.bool_] | None, s: Settings) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Each cell's best K up to its tier's search top, the speedup there and whether E was extrapolated to it;
    ``withheld``: the cells with no number (a refused alpha, an acceptance or context not given), None for none."""
    n_t, n_c = c.shape
    s_all = e_all / ar.stretch_cost(ks, c[None], costs.v(ks, context[None]) if n_t else v[None])
    # each tier searches 1..max(K max, its own K): another tier's larger K is no option for this one
    allowed = ks <= np.maximum(s.k_max, k)[None, :, None]
    if withheld is not None:
        s_all = np.where(withheld[None], np.nan, s_all)
        allowed = allowed & ~withheld[None]
    best = (np.argmax(np.where(allowed, s_all, -np.inf), axis=0) if s.k_max and n_t and n_c
            else np.zeros((n_t, n_c), dtype=np.int64))
    opt_s = np.take_along_axis(s_all, best[None], axis=0)[0] if n_t and n_c else np.zeros((n_t, n_c))
    opt_x = np.take_along_axis(x_all, best[None], axis=0)[0] if n_t and n_c else np.zeros((n_t, n_c), dtype=bool)
    return best, opt_s, opt_x


def pair_block(tiers: list[Tier], classes: list[TaskClass], overrides: list[Override], s: Settings,
               k_top: int, width: int, costs: TierCosts | None = None, roots: RootMemo | None = None) -> Pairs:
    """Every cell of ``tiers`` x ``classes`` (the overrides among them applied), the search up to ``k_top``;
    ``costs``: these tiers' TierCosts when the caller has them; ``roots``: break-evens solved before."""
    n_t, n_c = len(tiers), len(classes)
    spec = np.array([t.speculative != "no" for t in tiers], dtype=bool)
    k = np.array([t.k for t in tiers], dtype=np.float64)
    context = np.array([c.context for c in classes], dtype=np.float64)[None, :]

    acc = _acceptance(tiers, classes, overrides, s, width)
    alpha, a_lo, a_hi, a_conf, source, notes, cells, grid = (acc.alpha, acc.a_lo, acc.a_hi, acc.a_conf, acc.source,
                                                              acc.notes, acc.cells, acc.grid)

    costs = costs if costs is not None else TierCosts(tiers)
    kk = k[:, None]
    c = np.array(costs.c(context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    v = np.array(costs.v(kk, context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    be = ar.break_even(kk, c, v) if roots is None else roots.solve(ar.stretch_cost(kk, c, v), kk)
    # the search's E first: a profile is extended once, to the whole workbook's top K, and E at the tier's K is
    # read from that (extended to this block's largest K instead, a fit could round differently from a full one)
    ks = np.arange(1, k_top + 1, dtype=np.float64)[:, None, None]
    e_all, x_all = grid.tokens(alpha[None], ks)
    e, extrapolated = grid.tokens(alpha, kk)  # a profile's or a length's E where a cell has one
    # a tree draft given a per-token alpha: refused (TREE_NEEDS_LENGTH), no number made up for it
    refused = spec[:, None] & np.array([t.tree_size is not None for t in tiers], dtype=bool)[:, None] & grid.is_alpha
    for i, j in zip(*np.nonzero(refused)):
        notes[i][j] = TREE_NEEDS_LENGTH
    # a class whose acceptance or context nobody gave (TaskClass.defaulted): no number from its placeholders
    not_given, no_alpha, no_context = _not_given_cells(classes, cells, spec)
    for i, j in zip(*np.nonzero(not_given)):
        notes[i][j] = classes[j].missing_acceptance((i, j) in cells)
    alpha = np.where(no_alpha, np.nan, alpha) if no_alpha.any() else alpha  # a placeholder, on a plain tier too
    refused_or_not_given = refused | not_given
    any_refused = bool(refused_or_not_given.any())
    if any_refused:
        e = np.where(refused_or_not_given, np.nan, e)
        a_lo, a_hi, a_conf = (np.where(refused_or_not_given, np.nan, x) for x in (a_lo, a_hi, a_conf))
    # a profile's or a length's own interval on E, carried to the tier's K (NaN where a cell has none)
    e_lo, e_hi = grid.tokens_interval(e, kk)
    has_e = np.isfinite(e_lo) & np.isfinite(e_hi)
    if grid.any_beyond_alpha:
        a_lo, a_hi, a_conf = _intervals_on_e(grid, has_e, a_lo, a_hi, a_conf, notes, s.confidence)
    sp = e / ar.stretch_cost(kk, c, v)
    best, opt_s, opt_x = _optimal_k(e_all, x_all, ks, k, c, v, context, costs,
                                    refused_or_not_given if any_refused else None, s)
    cf = (kk * costs.c_flops + kk + 1.0) / e  # arithmetic.flops_factor over this E

    sp_row = spec[:, None]
    speedup = np.where(sp_row, sp, 1.0)
    # alpha* is the i.i.d. translation of E* = K c + v: it does not apply to a profile or a length
    be_alpha = np.where(sp_row & grid.is_alpha & ~refused, be.alpha, np.nan)
    be_kind = np.where(sp_row, be.kind, -1).astype(np.int8)
    # margin: how far above (or below) the break-even this class runs; a never-paying
    # setting has no break-even, so no margin either
    margin = np.where(sp_row & (be.kind != ar.NEVER) & grid.is_alpha & ~refused, alpha - be.alpha, np.nan)
    stretch = ar.stretch_cost(kk, c, v)
    if no_context.any():  # the tier's c and v at a context nobody gave: none
        c, v, stretch = (np.where(no_context[None, :] & sp_row, np.nan, x) for x in (c, v, stretch))
    s_lo, s_hi = speedup_ends(a_lo, a_hi, kk, stretch)
    if has_e.any():
        s_lo, s_hi = np.where(has_e, e_lo / stretch, s_lo), np.where(has_e, e_hi / stretch, s_hi)
    tokens_lo, tokens_hi = (np.where(has_e, e_x, ar.expected_tokens(a_x, kk)) for e_x, a_x in ((e_lo, a_lo), (e_hi, a_hi)))
    s_lo, s_hi = np.where(sp_row, s_lo, np.nan), np.where(sp_row, s_hi, np.nan)
    verdict = speed_verdicts(speedup, np.broadcast_to(sp_row, (n_t, n_c)), s.marginal_band, s_lo, s_hi)
    opt_k = best + 1
    if not_given.any():
        be_alpha, be_kind = np.where(not_given, np.nan, be_alpha), np.where(not_given, -1, be_kind).astype(np.int8)
        opt_k, opt_s = np.where(not_given, 0, opt_k), np.where(not_given, np.nan, opt_s)
    arrays = dict(alpha=alpha, a_lo=a_lo, a_hi=a_hi, a_conf=a_conf, c=c, v=v, e=e, extrapolated=extrapolated,
                  refused=refused, be_alpha=be_alpha, be_kind=be_kind, margin=margin, stretch=stretch, speedup=speedup,
                  s_lo=s_lo, s_hi=s_hi, tokens_lo=tokens_lo, tokens_hi=tokens_hi, opt_k=opt_k, opt_s=opt_s,
                  opt_x=opt_x, cf=cf, verdict=verdict, is_alpha=grid.is_alpha, not_given=not_given)
    stacks = []
    for dtype, names in STACKS:
        stack = np.empty((len(names), n_t, n_c), dtype=dtype)
        for i, name in enumerate(names):
            stack[i] = arrays[name]
        stacks.append(stack)
    return Pairs(stacks, {"source": source, "notes": notes})


def _not_given_cells(classes: list[TaskClass], cells: dict[tuple[int, int], Override], spec: NDArray[np.bool_]
                     ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Per cell of a speculative tier: its acceptance or its context is not given (an override gives a cell its
    acceptance); per cell of any tier: its acceptance is not given; per class: its context is not given. A plain
    tier's speedup is 1 whatever the class."""
    n_t, n_c = len(spec), len(classes)
    no_alpha = np.broadcast_to(np.array(["alpha" in c.defaulted_fields() for c in classes], dtype=bool),
                               (n_t, n_c)).copy()
    no_context = np.array(["context" in c.defaulted_fields() for c in classes], dtype=bool)
    if no_alpha.any():
        for (i, j) in cells:
            no_alpha[i, j] = False
    return (no_alpha | no_context[None, :]) & spec[:, None], no_alpha, no_context


class PairCache:
    """The cells of the last workbook compared, reused for the rows and columns whose values did not change.

    One workbook's cells at a time (a few arrays of tiers x classes): an undo or a redo is an edit like any
    other, and memory does not grow with the undo history.
    """

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._tiers: list[Any] = []
        self._classes: list[Any] = []
        self._pairs: Pairs | None = None
        self._costs: tuple[list[Any], TierCosts] | None = None
        self._grid: tuple[Any, AcceptanceGrid] | None = None
        self.solves = SolveMemo()  # the tier-level break-evens (model/mechanics/solves.py)
        self.roots = RootMemo()  # the cells' break-evens, by their K, c and v
        self._kept: dict[str, tuple[Any, Any]] = {}
        self.last_recomputed = (0, 0)  # (rows, columns) computed by the last call: what the tests and bench read

    def kept(self, name: str, key: Any, make: Callable[[], T]) -> T:
        """``make()``, or what it gave when ``name`` was last asked for, if with an equal ``key``: a number compare()
        reads whole rows of (each class's traffic priced on each tier, the claim's c and v), kept while what it is
        made of is as it was. The caller's key holds all of that, to the bit; one value a name."""
        found = self._kept.get(name)
        if found is not None and found[0] == key:
            return found[1]
        value = make()
        for part in value if isinstance(value, tuple) else (value,):
            if isinstance(part, np.ndarray):
                part.setflags(write=False)  # handed to every comparison made while it is kept: read-only
        self._kept[name] = (key, value)
        return value

    def costs(self, tiers: list[Tier]) -> TierCosts:
        """TierCosts(tiers), kept while no tier's mechanics change (every class edit reads the same presets)."""
        keys = [_tier_key(t) for t in tiers]
        if self._costs is None or self._costs[0] != keys:
            self._costs = keys, TierCosts(tiers)
        return self._costs[1]

    def grid(self, tiers: list[Tier], classes: list[TaskClass], overrides: list[Override]) -> AcceptanceGrid:
        """The acceptance of every cell (acceptance_grid), kept while no class's or override's acceptance, and no
        tier's name or place, changes (a tier's K, a class's context or traffic: the same grid)."""
        key = ([t.name for t in tiers], [_grid_key(c) for c in classes], [_override_key(o) for o in overrides])
        if self._grid is None or self._grid[0] != key:
            self._grid = key, acceptance_grid(tiers, classes, overrides)
        return self._grid[1]

    def pairs(self, tiers: list[Tier], classes: list[TaskClass], overrides: list[Override], s: Settings,
              k_top: int, width: int, costs: TierCosts) -> Pairs:
        by_tier: dict[str, list[Any]] = {}
        for o in overrides:
            by_tier.setdefault(o.tier, []).append(_override_key(o))
        # a tier's row holds its overrides: one changed recomputes that row
        t_keys = [(_tier_key(t), tuple(by_tier.get(t.name, ()))) for t in tiers]
        c_keys = [_class_key(c) for c in classes]
        key = (astuple(s), k_top, width)
        old = self._pairs
        names_unique = len({t.name for t in tiers}) == len(tiers) and len({c.name for c in classes}) == len(classes)
        rows = cols = None
        if old is not None and key == self._key and names_unique and self._tiers and self._classes:
            old_rows = {t_key: i for i, t_key in enumerate(self._tiers)}
            old_cols = {c_key: j for j, c_key in enumerate(self._classes)}
            rows = [old_rows.get(t_key, -1) for t_key in t_keys]
            cols = [old_cols.get(c_key, -1) for c_key in c_keys]
        dirty_r = [] if rows is None else [i for i, r in enumerate(rows) if r < 0]
        dirty_c = [] if cols is None else [j for j, c in enumerate(cols) if c < 0]
        n_t, n_c = len(tiers), len(classes)
        # past half the cells, one block of them all is cheaper than two blocks and the reuse
        if (rows is None or cols is None or old is None or not n_t or not n_c or (len(dirty_r) * n_c + len(dirty_c) * n_t) * 2 > n_t * n_c):
            out = pair_block(tiers, classes, overrides, s, k_top, width, costs, self.roots)
            self.last_recomputed = (n_t, n_c)
        else:
            out = _reuse(old, rows, cols)
            if dirty_r:
                names = {tiers[i].name for i in dirty_r}
                _fill(out, pair_block([tiers[i] for i in dirty_r], classes, [o for o in overrides if o.tier in names],
                                      s, k_top, width, costs.rows(dirty_r), self.roots), dirty_r, None)
            if dirty_c:
                names = {classes[j].name for j in dirty_c}
                _fill(out, pair_block(tiers, [classes[j] for j in dirty_c],
                                      [o for o in overrides if o.task_class in names], s, k_top, width, costs,
                                      self.roots),
                      None, dirty_c)
            self.last_recomputed = (len(dirty_r), len(dirty_c))
        # the result's arrays are views of these: read-only, so no reader can change the cells kept for the next edit
        for stack in out.stacks:
            stack.setflags(write=False)
        self._key, self._tiers, self._classes, self._pairs = key, t_keys, c_keys, out
        return out


def _reuse(old: Pairs, rows: list[int], cols: list[int]) -> Pairs:
    """The old cells laid out at the new rows and columns (a fresh copy: results handed out are never changed);
    the rows and columns marked -1 are filled after."""
    n_rows, n_cols = old.stacks[0].shape[1:]
    # the usual edit moves no row: each row and column where it was, or to be filled
    in_place = (len(rows) == n_rows and len(cols) == n_cols and all(r == i or r < 0 for i, r in enumerate(rows))
                and all(c == j or c < 0 for j, c in enumerate(cols)))
    if in_place:
        return Pairs([stack.copy() for stack in old.stacks],
                     {name: [list(row) for row in rows_] for name, rows_ in old.lists.items()})
    r, c = np.maximum(np.array(rows, dtype=np.int64), 0), np.maximum(np.array(cols, dtype=np.int64), 0)
    stacks = [stack[:, r[:, None], c[None, :]] for stack in old.stacks]
    rl, cl = r.tolist(), c.tolist()
    return Pairs(stacks, {name: [[rows_[i][j] for j in cl] for i in rl] for name, rows_ in old.lists.items()})


def _fill(out: Pairs, block: Pairs, rows: list[int] | None, cols: list[int] | None) -> None:
    """Write ``block`` (those rows, every column; or every row, those columns) into ``out``."""
    for stack, part in zip(out.stacks, block.stacks):
        if rows is not None:
            stack[:, rows, :] = part
        else:
            stack[:, :, cols] = part
    for name, block_rows in block.lists.items():
        target = out.lists[name]
        if rows is not None:
            for r, i in enumerate(rows):
                target[i] = list(block_rows[r])
        else:
            for i, row in enumerate(target):
                for r, j in enumerate(cols):
                    row[j] = block_rows[i][r]


def acceptance_grid(tiers: list[Tier], classes: list[TaskClass], overrides: list[Override]) -> AcceptanceGrid:
    """The acceptance of every cell, for the result (the window's profile cells, charts and the JSON read it)."""
    return AcceptanceGrid.of(classes, override_cells(tiers, classes, overrides), len(tiers))


def override_cells(tiers: list[Tier], classes: list[TaskClass], overrides: list[Override]
                   ) -> dict[tuple[int, int], Override]:
    """The override that applies to each (tier index, class index): the last one naming both; one naming a
    tier or a class not here applies nowhere."""
    t_index = {t.name: i for i, t in enumerate(tiers)}
    c_index = {c.name: j for j, c in enumerate(classes)}
    cells: dict[tuple[int, int], Override] = {}
    for o in overrides:
        i, j = t_index.get(o.tier), c_index.get(o.task_class)
        if i is not None and j is not None:
            cells[i, j] = o
    return cells
