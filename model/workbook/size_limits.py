"""The largest workbook read or kept, and what is too big about one. Part of the one validator,
model/workbook/validation.py, which re-exports these names.
"""
from __future__ import annotations


# the largest workbook read or kept: past these a comparison takes minutes and gigabytes (300,000
# classes x 8 tiers took 2.9 GB in `compare --json`, 60,000 tiers x 6 classes over 120 s).
# tests/bench/bench_big_workbooks.py measures time and peak memory up to them
MAX_TIERS = 5_000
MAX_CLASSES = 20_000
MAX_PAIRS = 250_000  # tiers x task classes (and overrides); as many rows as a report's Inputs sheet reads


def size_problems(n_tiers: int, n_classes: int, n_overrides: int = 0) -> list[str]:
    """What is too big about a workbook of these counts (empty when within the limits)."""
    problems = []
    if n_tiers > MAX_TIERS:
        problems.append(f"{n_tiers:,} tiers, over the {MAX_TIERS:,} a workbook may hold")
    if n_classes > MAX_CLASSES:
        problems.append(f"{n_classes:,} task classes, over the {MAX_CLASSES:,} a workbook may hold")
    if n_tiers * n_classes > MAX_PAIRS:
        problems.append(f"{n_tiers:,} tiers x {n_classes:,} task classes = {n_tiers * n_classes:,} tier-class pairs, "
                        f"over the {MAX_PAIRS:,} a workbook may hold; split it into several workbooks")
    if n_overrides > MAX_PAIRS:
        problems.append(f"{n_overrides:,} overrides, over the {MAX_PAIRS:,} a workbook may hold")
    return problems
