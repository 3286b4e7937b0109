"""compare() with a PairCache after any sequence of edits equals a full compare() of the same workbook, every field.

The edits are drawn at random (seeded): every kind of field of tiers, classes and overrides, rows added, removed and
moved, renames, the settings, and jumps back to earlier snapshots as undo and redo make them.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from model.comparison.records import pair_records
from model.comparison import Comparison, PairCache, compare
from model.workbook.json_file import load_demo
from model.workbook.rows import Override, TaskClass, Tier, Workbook, drop_acceptance_shape, type_acceptance


def _same(a: object, b: object) -> bool:
    """Equal to the last bit (NaN equals NaN), through arrays, lists, tuples and dataclasses."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind == "f":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)):
        return isinstance(b, type(a)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return a == b


def _differences(got: Comparison, want: Comparison) -> list[str]:
    return [f.name for f in dataclasses.fields(Comparison) if not _same(getattr(got, f.name), getattr(want, f.name))]


def _profile(rng: np.random.Generator, alpha: float) -> tuple[float, ...]:
    n = int(rng.integers(1, 20))  # past K max too, so the search's width moves
    return tuple(float(np.clip(alpha + 0.1 - rng.uniform(0.0, 0.04) * i, 0.05, 0.99)) for i in range(n))


def _acceptance(rng: np.random.Generator, row: TaskClass | Override) -> None:
    """One of the ways an acceptance changes: alpha typed (with or without a range), a profile, a length, intervals."""
    what = rng.integers(0, 6)
    alpha = float(np.round(rng.uniform(0.2, 0.95), 3))
    if what == 0:
        type_acceptance(row, alpha, ())
    elif what == 1:
        type_acceptance(row, alpha, (max(0.01, alpha - 0.1), min(0.99, alpha + 0.05)))
    elif what == 2:
        drop_acceptance_shape(row)
        row.profile = _profile(rng, alpha)
        if rng.random() < 0.5:
            e = 1.0 + float(np.cumprod(row.profile).sum())
            row.acceptance_length_low, row.acceptance_length_high = 1.0 + (e - 1.0) * 0.9, 1.0 + (e - 1.0) * 1.05
            row.alpha_confidence = float(rng.choice([0.9, 0.95]))
    elif what == 3:
        drop_acceptance_shape(row)
        k = int(rng.integers(1, 8))
        row.acceptance_length, row.acceptance_length_k = float(1.0 + rng.uniform(0.2, 0.9) * k), k
        if rng.random() < 0.5:
            row.acceptance_length_low, row.acceptance_length_high = row.acceptance_length * 0.95, row.acceptance_length * 1.02
    elif what == 4:
        row.alpha_low, row.alpha_high = max(0.01, row.alpha - 0.05), min(0.99, row.alpha + 0.05)
        row.alpha_confidence, row.alpha_requests, row.alpha_method = 0.95, int(rng.integers(5, 50)), "wilson"
    else:
        row.alpha_source = str(rng.choice(["assumed", "measured", "imported", "probed"]))


def _edit(rng: np.random.Generator, wb: Workbook) -> None:
    """One random edit of ``wb`` in place, keeping it valid (names unique, baselines and overrides pointing at rows)."""
    tiers, classes = wb.tiers, wb.classes
    what = int(rng.integers(0, 14))
    t = tiers[int(rng.integers(len(tiers)))]
    c = classes[int(rng.integers(len(classes)))]
    if what <= 2:
        _acceptance(rng, c)
    elif what == 3:
        c.context = int(rng.choice([1024, 2048, 4096, 16384, 65536]))
    elif what == 4:
        c.tokens_out, c.tokens_in = float(rng.choice([0.0, 1e6, 5e7])), float(rng.choice([0.0, 2e6, 3e8]))
    elif what == 5:
        t.k = int(rng.integers(1, 20 if rng.random() < 0.2 else 9))  # now and then past K max
    elif what == 6:
        field = str(rng.choice(["c", "v", "batch", "price_out", "price_in", "claimed_speedup", "claim_context"]))
        value = {"c": round(float(rng.uniform(0.01, 0.3)), 3), "v": round(float(rng.uniform(0.9, 1.4)), 3),
                 "batch": int(rng.choice([1, 4, 16, 64])), "price_out": float(rng.choice([0.0, 9.0, 14.0, 30.0])),
                 "price_in": float(rng.choice([0.0, 1.0, 3.0])), "claimed_speedup": float(rng.choice([1.5, 2.5, 4.0])),
                 "claim_context": int(rng.choice([2048, 8192]))}[field]
        setattr(t, field, value)
    elif what == 7:
        t.speculative = str(rng.choice(["yes", "no", "unknown"]))
        t.cost_model = str(rng.choice(["typed", "roofline"]))
        t.tree_size = None if rng.random() < 0.6 else int(t.k + rng.integers(1, 30))
        t.defaulted = "" if rng.random() < 0.8 else str(rng.choice(["k", "c, v", "speculative"]))
    elif what == 8:
        others = [x.name for x in tiers if x is not t]
        t.baseline = "" if rng.random() < 0.3 or not others else str(rng.choice(others))
    elif what == 9:
        if rng.random() < 0.3 and wb.overrides:
            o = wb.overrides[int(rng.integers(len(wb.overrides)))]
            wb.set_override(o.tier, o.task_class, None)
        else:
            wb.set_override(t.name, c.name, float(np.round(rng.uniform(0.2, 0.9), 3)))
            _acceptance(rng, wb.overrides[-1])
    elif what == 10:  # rows added, removed, moved
        if rng.random() < 0.5:
            if rng.random() < 0.5 and len(tiers) > 3:
                gone = tiers.pop(int(rng.integers(len(tiers))))
                for x in tiers:
                    x.baseline = "" if x.baseline == gone.name else x.baseline
                wb.overrides = [o for o in wb.overrides if o.tier != gone.name]
            elif len(classes) > 2:
                gone = classes.pop(int(rng.integers(len(classes))))
                wb.overrides = [o for o in wb.overrides if o.task_class != gone.name]
        elif rng.random() < 0.5:
            new = dataclasses.replace(t, name=f"{t.name} copy {rng.integers(1_000_000)}")
            tiers.insert(int(rng.integers(len(tiers) + 1)), new)
        else:
            new = dataclasses.replace(c, name=f"{c.name} copy {rng.integers(1_000_000)}")
            classes.insert(int(rng.integers(len(classes) + 1)), new)
    elif what == 11:
        i, j = rng.integers(len(tiers)), rng.integers(len(tiers))
        tiers[i], tiers[j] = tiers[j], tiers[i]
        a, b = rng.integers(len(classes)), rng.integers(len(classes))
        classes[a], classes[b] = classes[b], classes[a]
    elif what == 12:
        if rng.random() < 0.5:
            wb.rename_tier(t.name, f"{t.name}'")
        else:
            wb.rename_class(c.name, f"{c.name}'")
    else:
        s = wb.settings
        field = str(rng.choice(["k_max", "marginal_band", "confidence", "claim_tolerance"]))
        setattr(s, field, {"k_max": int(rng.choice([4, 8, 16])), "marginal_band": float(rng.choice([0.0, 0.05, 0.2])),
                           "confidence": float(rng.choice([0.8, 0.9, 0.95])),
                           "claim_tolerance": float(rng.choice([0.0, 0.1]))}[field])


def _generated(seed: int) -> Workbook:
    """A workbook with every kind in it: roofline and typed tiers, a tree, profiles, lengths, intervals, overrides."""
    rng = np.random.default_rng(seed)
    wb = load_demo()
    for i in range(12):
        base = wb.tiers[i % 8]
        wb.tiers.append(dataclasses.replace(base, name=f"{base.name} {i}", k=int(rng.integers(2, 9)),
                                            baseline=base.baseline))
    wb.tiers[-1].tree_size = 24
    for j in range(6):
        c = dataclasses.replace(wb.classes[j % 6], name=f"{wb.classes[j % 6].name} {j}")
        wb.classes.append(c)
        _acceptance(rng, c)
    for _ in range(10):
        t, c = wb.tiers[int(rng.integers(len(wb.tiers)))], wb.classes[int(rng.integers(len(wb.classes)))]
        wb.set_override(t.name, c.name, 0.5)
        _acceptance(rng, wb.overrides[-1])
    return wb


@pytest.mark.parametrize("start, seed, edits", [("demo", 1, 120), ("demo", 2, 120), ("generated", 3, 80),
                                                ("generated", 4, 80)])
def test_cached_compare_equals_a_full_one_after_random_edits(start: str, seed: int, edits: int) -> None:
    rng = np.random.default_rng(seed)
    wb = load_demo() if start == "demo" else _generated(seed)
    cache = PairCache()
    history = [wb]
    partial = 0
    for step in range(edits):
        if rng.random() < 0.15 and len(history) > 1:
            wb = history[int(rng.integers(len(history)))]  # undo or redo to any earlier snapshot
        else:
            wb = wb.copy()
            _edit(rng, wb)
            history.append(wb)
        got, want = compare(wb, cache), compare(wb)
        assert not _differences(got, want), (step, _differences(got, want))
        assert [r for r in pair_records(got)] == [r for r in pair_records(want)] or _records_equal(got, want)
        rows, cols = cache.last_recomputed
        partial += rows < len(wb.tiers) or cols < len(wb.classes)
    # most edits touch one row or one column: the cache must have been used, not recomputed in full each time
    assert partial > edits // 2


def _records_equal(got: Comparison, want: Comparison) -> bool:
    return _same(pair_records(got), pair_records(want))


def test_one_class_edit_recomputes_one_column_and_a_price_none() -> None:
    cache = PairCache()
    wb = load_demo()
    compare(wb, cache)
    edited = wb.copy()
    type_acceptance(edited.classes[2], 0.61, ())
    assert not _differences(compare(edited, cache), compare(edited))
    assert cache.last_recomputed == (0, 1)
    # of the break-evens solved in one batch, only those whose target moved: not the cells of other classes
    assert 0 < cache.solves.last_solved < cache.solves.inputs.shape[1]
    priced = edited.copy()
    priced.tiers[1].price_out = 99.0
    priced.classes[0].tokens_out = 1.0
    assert not _differences(compare(priced, cache), compare(priced))
    assert cache.last_recomputed == (0, 0)
    moved = priced.copy()
    moved.tiers[3].k = 7
    compare(moved, cache)
    assert cache.last_recomputed == (1, 0)
