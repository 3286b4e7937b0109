"""The comparison's solves of E(alpha, K) = target, gathered and run as one call, and kept between edits.

Every break-even of a priced number (the price break-even per cell and per mix, the effective alpha and its
interval's ends, a claim's implied alpha) is a solve of E(alpha, K) = target. ``SolveBatch`` gathers them from
all over compare() and runs the solver once: it works per cell (arithmetic.solve_alpha_for_tokens stops each at
its own convergence), and most of each separate call was its fixed cost, a few Newton steps of a dozen array
operations over arrays of a hundred tiers or fewer. With a ``SolveMemo`` (model/comparison/cells.PairCache holds
one), only the targets that differ from the last batch's are solved: a class edit moves one column of the
price break-evens and every tier's mix, not the 3,000 cells of a 100 x 30 workbook.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar


class SolveMemo:
    """The last batch's targets, Ks and roots (one batch: the memory of one comparison)."""

    def __init__(self) -> None:
        self.inputs: NDArray[np.float64] | None = None  # (2, n): targets, Ks
        self.solve: ar.AlphaSolve | None = None
        self.last_solved = 0  # cells solved by the last batch (tests read it)


class SolveBatch:
    """Solves added one by one (any shapes), run together; each read back by the handle ``add`` gave."""

    def __init__(self, memo: SolveMemo | None = None) -> None:
        self._memo = memo
        self._targets: list[NDArray[np.float64]] = []
        self._ks: list[NDArray[np.float64]] = []
        self._shapes: list[tuple[int, ...]] = []
        self._out: list[ar.AlphaSolve] = []

    def add(self, target: NDArray[np.float64], k: NDArray[np.float64]) -> int:
        t, kk = np.broadcast_arrays(np.asarray(target, dtype=np.float64), np.asarray(k, dtype=np.float64))
        self._targets.append(t.ravel())
        self._ks.append(kk.ravel())
        self._shapes.append(t.shape)
        return len(self._shapes) - 1

    def run(self) -> None:
        inputs = np.stack([np.concatenate(self._targets), np.concatenate(self._ks)])
        solve = self._solve(inputs)
        at = np.cumsum([0] + [t.size for t in self._targets])
        self._out = [ar.AlphaSolve(solve.alpha[a:b].reshape(shape), solve.kind[a:b].reshape(shape))
                     for a, b, shape in zip(at[:-1], at[1:], self._shapes)]

    def __getitem__(self, handle: int) -> ar.AlphaSolve:
        return self._out[handle]

    def _solve(self, inputs: NDArray[np.float64]) -> ar.AlphaSolve:
        memo = self._memo
        if memo is None or memo.inputs is None or memo.solve is None or memo.inputs.shape != inputs.shape:
            solve = ar.solve_alpha_for_tokens(inputs[0], inputs[1])
            solved = inputs.shape[1]
        else:
            # the same bits, the same root (NaN included); anything else is solved again
            changed = (inputs.view(np.int64) != memo.inputs.view(np.int64)).any(axis=0)
            alpha, kind = memo.solve.alpha.copy(), memo.solve.kind.copy()
            if changed.any():
                part = ar.solve_alpha_for_tokens(inputs[0, changed], inputs[1, changed])
                alpha[changed], kind[changed] = part.alpha, part.kind
            solve, solved = ar.AlphaSolve(alpha, kind), int(changed.sum())
        if memo is not None:
            memo.inputs, memo.solve, memo.last_solved = inputs, solve, solved
        return solve


class RootMemo:
    """Roots of E(alpha, K) = target kept by the bits of their target and K, for the cells' break-evens: a class's
    alpha edited recomputes its column (model/comparison/cells.py), whose K, c and v, and so whose break-evens,
    are as they were. A root looked up is the one solving it again gives (the solver stops each cell at its own
    convergence); blocks larger than ``BLOCK`` are solved as one call and not kept (a whole workbook's cells, which
    a lookup per cell would only slow)."""

    BLOCK = 512
    LIMIT = 50_000

    def __init__(self) -> None:
        self._roots: dict[tuple[int, int], tuple[float, int]] = {}
        self.last_solved = 0  # cells the last call solved (tests read it)

    def solve(self, target: NDArray[np.float64], k: NDArray[np.float64]) -> ar.AlphaSolve:
        t, kk = np.broadcast_arrays(np.asarray(target, dtype=np.float64), np.asarray(k, dtype=np.float64))
        self.last_solved = t.size
        if t.size > self.BLOCK:
            return ar.solve_alpha_for_tokens(t, kk)
        flat_t, flat_k = t.ravel(), kk.ravel()  # copies, contiguous: their bits are the keys
        keys = list(zip(flat_t.view(np.int64).tolist(), flat_k.view(np.int64).tolist()))
        found = [self._roots.get(key) for key in keys]
        missing = [i for i, root in enumerate(found) if root is None]
        self.last_solved = len(missing)
        if missing:
            part = ar.solve_alpha_for_tokens(flat_t[missing], flat_k[missing])
            if len(self._roots) + len(missing) > self.LIMIT:
                self._roots.clear()
            for i, alpha, kind in zip(missing, part.alpha.tolist(), part.kind.tolist()):
                found[i] = self._roots[keys[i]] = (alpha, kind)
        alpha = np.array([root[0] for root in found], dtype=np.float64).reshape(t.shape)
        return ar.AlphaSolve(alpha, np.array([root[1] for root in found], dtype=np.int8).reshape(t.shape))
