"""Acceptance beyond one alpha: a per-position profile or a mean acceptance length, per (tier, class).

docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths. A task class (or a tier's override) holds one of
three kinds of acceptance: ALPHA, the per-token alpha of the i.i.d. model; LENGTH, a mean acceptance length E
measured at a stated K; PROFILE, the conditional acceptance p_1..p_m at each draft position. The comparison asks
this module for E at each tier's K (and at every K of the optimal-K search) and gets, beside it,
whether that E was extrapolated past what was measured:

- PROFILE: E = 1 + sum_k prod_(j<=k) p_j over the profile extended to K by the stated rule
  (arithmetic.extend_profile, geometric decay by default); K beyond the m measured positions is
  extrapolated.
- LENGTH: the length itself at its own K; at another K, the i.i.d. alpha with the same E carries it
  (arithmetic.length_at_k), and that is extrapolated.
- ALPHA: E(alpha, K), never labelled extrapolated (it is the model itself).

Rows are read by their field names (profile, acceptance_length, acceptance_length_k), so this imports
no workbook module, like value.py.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.acceptance.value import ALPHA, LENGTH, PROFILE

EXTEND_RULE = "geometric"  # how a profile is carried past its measured positions
# the fields of a row AcceptanceGrid.of reads (kind_of, _length_ends): a grid is kept while these are unchanged
GRID_FIELDS = ("profile", "acceptance_length", "acceptance_length_k", "acceptance_length_low", "acceptance_length_high",
               "alpha_confidence")


def kind_of(row: Any) -> str:
    if getattr(row, "profile", ()):
        return PROFILE
    if getattr(row, "acceptance_length", None) is not None and getattr(row, "acceptance_length_k", None) is not None:
        return LENGTH
    return ALPHA


@dataclass(frozen=True)
class PositionRates:
    """A profile by position (position 1 first): what the per-position chart and the trailer's slots draw."""

    conditional: NDArray[np.float64]  # p_i: accepted at i, given 1..i-1 were
    cumulative: NDArray[np.float64]  # r_i = p_1 ... p_i: the share of steps that filled slot i
    extrapolated: NDArray[np.bool_]  # past the measured positions, by ``rule``
    measured: int
    rule: str


@dataclass
class AcceptanceGrid:
    """The acceptance kind of every (tier, class) cell, with the profiles and lengths the cells hold."""

    kind: NDArray[np.int8]  # 0 alpha, 1 length, 2 profile, per (tier, class)
    profile: NDArray[np.float64]  # (tiers, classes, positions), NaN past each cell's measured positions
    positions: NDArray[np.int64]  # measured positions per cell (0 where not a profile)
    length: NDArray[np.float64]  # NaN where not a length
    length_k: NDArray[np.float64]
    # the same profiles per class row and per override, so a profile is extended once, not once per tier
    class_profile: NDArray[np.float64] | None = None  # (classes, positions)
    override_cells: tuple[tuple[int, int], ...] = ()
    # the interval on E at the K measured (NaN: none), E itself there, and the interval's confidence (NaN: the
    # workbook's, for a range typed without one)
    length_low: NDArray[np.float64] | None = None
    length_high: NDArray[np.float64] | None = None
    measured_length: NDArray[np.float64] | None = None
    length_confidence: NDArray[np.float64] | None = None

    KIND_CODES = (ALPHA, LENGTH, PROFILE)

    @classmethod
    def of(cls, class_rows: list[Any], override_rows: dict[tuple[int, int], Any], n_tiers: int,
           width: int | None = None) -> "AcceptanceGrid":
        """From the class rows and the overrides that apply, keyed by (tier index, class index).

        Built per class and then per override, never per cell: a workbook of 300,000 classes stays linear.
        ``width``: the positions held per cell (at least the longest profile here); a block of a workbook's
        cells gets the whole workbook's, so its sums run over as many positions as a full comparison's.
        """
        n_c = len(class_rows)
        codes = cls.KIND_CODES
        kind = np.tile(np.array([codes.index(kind_of(r)) for r in class_rows], dtype=np.int8), (n_tiers, 1))
        over = {cell: codes.index(kind_of(o)) for cell, o in override_rows.items()}
        for (i, j), code in over.items():
            kind[i, j] = code  # an override replaces the class's acceptance on that tier, kind and all
        if not kind.any():  # all alpha: nothing more to hold
            nothing = np.broadcast_to(np.nan, (n_tiers, n_c))
            return cls(kind, np.broadcast_to(np.nan, (n_tiers, n_c, 1)), np.zeros((n_tiers, n_c), dtype=np.int64),
                       nothing, nothing)
        rows_with = [r for r in class_rows if getattr(r, "profile", ())] + [o for o in override_rows.values()
                                                                          if getattr(o, "profile", ())]
        width = max([len(r.profile) for r in rows_with] + [width or 1])

        def fill(r: Any, p_row: NDArray[np.float64]) -> tuple[float, ...]:
            """The row's profile into p_row; returns its length, length K, E at the K measured and E's interval."""
            p_row[:] = np.nan
            if getattr(r, "profile", ()):
                p_row[: len(r.profile)] = r.profile
            ends = _length_ends(r)
            if kind_of(r) == LENGTH:
                return float(r.acceptance_length), float(r.acceptance_length_k), float(r.acceptance_length), *ends
            return np.nan, np.nan, np.nan, *ends  # a profile's E is computed below, all rows at once

        class_profile = np.full((n_c, width), np.nan)
        per_class = np.full((6, n_c), np.nan)
        for j, r in enumerate(class_rows):
            per_class[:, j] = fill(r, class_profile[j])
        profile = np.repeat(class_profile[None], n_tiers, axis=0)
        cells = np.repeat(per_class[:, None, :], n_tiers, axis=1)  # (6, tiers, classes)
        for (i, j), o in override_rows.items():
            cells[:, i, j] = fill(o, profile[i, j])
        positions = np.where(kind == 2, np.isfinite(profile).sum(axis=-1), 0)
        length, length_k, measured, low, high, conf = cells
        # a profile's E at its measured positions: NaN past them multiplies to nothing accepted there (summed in
        # order, cumsum's last, so the zeros past them change no rounding whatever the width)
        measured = np.where(kind == 2, 1.0 + np.cumsum(np.cumprod(np.nan_to_num(profile, nan=0.0), axis=-1), axis=-1)[..., -1],
                            measured)
        return cls(kind, profile, positions, length, length_k, class_profile, tuple(override_rows),
                   low, high, measured, conf)

    @property
    def any_beyond_alpha(self) -> bool:
        return bool(self.kind.any())

    @property
    def is_alpha(self) -> NDArray[np.bool_]:
        return self.kind == 0

    def kind_names(self) -> list[list[str]]:
        return [[self.KIND_CODES[int(x)] for x in row] for row in self.kind]

    def tokens(self, alpha: NDArray[np.float64], k: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """E per cell at K = k (broadcast against (tiers, classes), e.g. (K values, tiers, 1)), and whether
        it was extrapolated past what was measured."""
        if self.kind.all():  # no alpha cell: E(alpha, K) would be computed only to be replaced
            e = np.zeros(np.broadcast_shapes(np.shape(alpha), np.shape(k)))
        else:
            e = np.asarray(ar.expected_tokens(alpha, k), dtype=np.float64)
        extrapolated = np.zeros(e.shape, dtype=bool)
        if not self.any_beyond_alpha:
            return e, extrapolated
        kk = np.broadcast_to(np.asarray(k, dtype=np.float64), e.shape)
        k_top = int(np.nanmax(kk)) if kk.size else 1
        if (self.kind == 2).any():
            lengths = self._profile_lengths(k_top)  # E at K = 0..k_top per cell
            is_profile = np.broadcast_to(self.kind == 2, e.shape)
            if e.ndim == 3 and kk.shape[0] == k_top and np.array_equal(kk[:, 0, 0], np.arange(1, k_top + 1)):
                picked = np.moveaxis(lengths[..., 1:], -1, 0)  # the optimal-K search: every K from 1, no gather
            else:
                picked = np.take_along_axis(np.broadcast_to(lengths, e.shape + lengths.shape[-1:]),
                                            np.clip(kk, 0, k_top).astype(np.int64)[..., None], axis=-1)[..., 0]
            e = np.where(is_profile, picked, e)
            extrapolated |= is_profile & (kk > np.broadcast_to(self.positions, e.shape))
        if (self.kind == 1).any():
            is_length = np.broadcast_to(self.kind == 1, e.shape)
            carried, moved = ar.length_at_k(np.nan_to_num(self.length, nan=1.0), np.nan_to_num(self.length_k, nan=1.0), kk)
            e = np.where(is_length, carried, e)
            extrapolated |= is_length & moved
        return e, extrapolated

    def _profile_lengths(self, k_top: int) -> NDArray[np.float64]:
        """E at K = 0..k_top per cell from the extended profiles; kept for the next call (the tier's K and
        the optimal-K search both ask, up to the same K). Extended once per class and per override."""
        cached = getattr(self, "_lengths", None)
        if cached is not None and cached.shape[-1] >= k_top + 1:
            return cached[..., : k_top + 1]
        n_t, n_c = self.kind.shape
        base = self.class_profile if self.class_profile is not None else np.full((n_c, self.profile.shape[-1]), np.nan)
        cells = self.override_cells
        rows = np.concatenate([base, np.array([self.profile[i, j] for i, j in cells]).reshape(len(cells), base.shape[-1])])
        # rows without a profile get a stand-in (nothing accepted) so the stack extends as one array
        missing = ~np.isfinite(rows[:, 0])
        rows[missing, 0] = 0.0
        ext, _ = ar.extend_profile(rows, max(k_top, 1), EXTEND_RULE)
        per_row = np.concatenate([np.ones((ext.shape[0], 1)), 1.0 + np.cumsum(np.cumprod(ext, axis=-1), axis=-1)], axis=-1)
        lengths = np.repeat(per_row[None, :n_c], n_t, axis=0)
        for r, (i, j) in enumerate(cells):
            lengths[i, j] = per_row[n_c + r]
        self._lengths = lengths
        return lengths[..., : k_top + 1]

    def tokens_interval(self, e: NDArray[np.float64], k: NDArray[np.float64]
                        ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The ends of E at K = k for the cells with an interval on their length (NaN elsewhere), from E there.

        At the K measured the ends are the interval itself. At another K the accepted drafts E - 1 are scaled
        by the same factor as at the K measured, (E_low - 1) / (E_measured - 1): the whole profile moved up or
        down by one factor, which is what an interval on one length can say about another K (the E there is
        extrapolated and labelled so anyway). Capped at 1 and K + 1.
        """
        nan = np.full(np.broadcast_shapes(np.shape(e), self.kind.shape), np.nan)
        if self.length_low is None or not np.isfinite(self.length_low).any():
            return nan, nan.copy()
        has = (self.kind != 0) & np.isfinite(self.length_low) & np.isfinite(self.length_high) & (self.measured_length > 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            lo_f = (self.length_low - 1.0) / (self.measured_length - 1.0)
            hi_f = (self.length_high - 1.0) / (self.measured_length - 1.0)
            top = np.asarray(k, dtype=np.float64) + 1.0
            lo = np.clip(1.0 + (e - 1.0) * lo_f, 1.0, top)
            hi = np.clip(1.0 + (e - 1.0) * hi_f, 1.0, top)
        return np.where(has, lo, np.nan), np.where(has, hi, np.nan)

    def position_rates(self, i: int, j: int, k: int) -> PositionRates | None:
        """Cell (i, j)'s profile at positions 1..max(k, measured): the conditional rate and the share of steps
        accepted through each position, and which were extrapolated by the stated rule; None if not a profile."""
        if self.kind[i, j] != 2:
            return None
        m = int(self.positions[i, j])
        ext, cumulative, beyond = _extended(tuple(self.profile[i, j, :m].tolist()), max(int(k), m))
        return PositionRates(ext, cumulative, beyond, m, EXTEND_RULE)

    def shifted_tokens(self, k: NDArray[np.float64], shift: float) -> NDArray[np.float64]:
        """E per cell at its tier's K (``k``, one per tier) with every conditional rate moved by ``shift``, clipped
        to 0..1; NaN on alpha cells. A profile is extended to K by its rule first, then moved (the rates the
        report's profiles table holds, measured and extrapolated alike); a length moves the flat i.i.d. alpha
        that carries it (arithmetic.length_at_k). With a flat profile this is E(alpha + shift, K): the
        sensitivity of an alpha, for acceptance that is not one alpha."""
        out = np.full(self.kind.shape, np.nan)
        for i, j in np.argwhere(self.kind != 0):
            kk = int(k[i])
            if self.kind[i, j] == 2:
                rates = np.asarray(self.position_rates(i, j, kk).conditional[:kk])
            else:
                alpha = float(ar.mean_acceptance_length_to_alpha(self.length[i, j], self.length_k[i, j]).alpha)
                rates = np.full(kk, 1.0 if np.isnan(alpha) else alpha)
            out[i, j] = 1.0 + np.cumprod(np.clip(rates + shift, 0.0, 1.0)).sum()
        return out

    def profile_list(self, i: int, j: int) -> list[float] | None:
        if self.kind[i, j] != 2:
            return None
        return [float(x) for x in self.profile[i, j, : int(self.positions[i, j])]]


@functools.lru_cache(maxsize=4096)
def _extended(measured: tuple[float, ...], k: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """A measured profile extended to k positions, its cumulative rates and which were extrapolated; read-only
    and remembered: the trailer chart asks for every profile class of a tier on each edit, and an edit of
    anything but a profile leaves them as they were (30 classes: 3 ms an edit)."""
    ext, beyond = ar.extend_profile(np.array(measured, dtype=np.float64), k, EXTEND_RULE)
    out = (ext, np.cumprod(ext), beyond)
    for a in out:
        a.setflags(write=False)
    return out


def _length_ends(row: Any) -> tuple[float, float, float]:
    """A row's interval on E (low, high) and its confidence; NaN where it has none (or no confidence given)."""
    low, high = getattr(row, "acceptance_length_low", None), getattr(row, "acceptance_length_high", None)
    if low is None or high is None:
        return np.nan, np.nan, np.nan
    conf = getattr(row, "alpha_confidence", None)
    return float(low), float(high), float(conf) if conf is not None else np.nan
