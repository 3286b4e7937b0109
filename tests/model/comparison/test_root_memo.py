"""The cells' break-evens are kept by their K and target between edits (model/mechanics/solves.py RootMemo): an
alpha edited solves none again, and every cell comes out as a full computation gives it."""
from __future__ import annotations

import numpy as np

from model.comparison.cells import PairCache, pair_block, profile_width, search_top
from model.mechanics import arithmetic as ar
from model.mechanics.solves import RootMemo
from model.mechanics.tier_costs import TierCosts
from model.workbook.json_file import load_demo


def _pairs(wb, cache=None):  # noqa: ANN001, ANN202
    args = (wb.tiers, wb.classes, wb.overrides, wb.settings, search_top(wb.tiers, wb.settings),
            profile_width(wb.classes, wb.overrides))
    return cache.pairs(*args, TierCosts(wb.tiers)) if cache else pair_block(*args)


def test_an_alpha_edited_solves_no_break_even_again_and_matches_a_full_computation() -> None:
    wb = load_demo()
    cache = PairCache()
    _pairs(wb, cache)
    edited = wb.copy()
    edited.classes[2].alpha = 0.555 if edited.classes[2].alpha != 0.555 else 0.565
    got = _pairs(edited, cache)
    assert cache.last_recomputed == (0, 1)
    assert cache.roots.last_solved == 0
    full = _pairs(edited)
    for kept, fresh in zip(got.stacks, full.stacks):
        assert kept.dtype == fresh.dtype and kept.tobytes() == fresh.tobytes()


def test_a_root_kept_is_the_root_solved_including_the_cells_without_one() -> None:
    rng = np.random.default_rng(3)
    k = rng.integers(1, 12, (40, 1)).astype(np.float64)
    target = np.concatenate([rng.uniform(0.5, 14.0, (40, 5)), np.full((40, 1), np.nan)], axis=1)
    memo = RootMemo()
    first = memo.solve(target[:20], k[:20])
    assert memo.last_solved == 120
    again = memo.solve(target, k)

    def keys(rows: slice) -> list[tuple[bytes, bytes]]:
        t, kk = np.broadcast_arrays(target[rows], k[rows])
        return [(a.tobytes(), b.tobytes()) for a, b in zip(t.ravel(), kk.ravel())]

    kept = set(keys(slice(0, 20)))  # the first 20 rows, NaN targets (no root) among them
    assert memo.last_solved == sum(key not in kept for key in keys(slice(0, 40))) < 120
    plain = ar.solve_alpha_for_tokens(target, k)
    assert again.alpha.tobytes() == plain.alpha.tobytes() and again.kind.tobytes() == plain.kind.tobytes()
    assert first.alpha.tobytes() == plain.alpha[:20].tobytes()
