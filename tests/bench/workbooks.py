"""Synthetic workbooks for benchmarks and scale tests: the demo's rows repeated with new names."""
from __future__ import annotations

import dataclasses

import numpy as np

from model.workbook.acceptance_fields import summary_alpha
from model.workbook.rows import Override, Workbook
from model.workbook.json_file import load_demo


def large_workbook(n_tiers: int = 100, n_classes: int = 30, seed: int = 0) -> Workbook:
    demo = load_demo()
    rng = np.random.default_rng(seed)
    tiers = []
    for i in range(n_tiers):
        t = dataclasses.replace(demo.tiers[i % len(demo.tiers)])
        t.name = f"{t.name} #{i}"
        if t.baseline:
            base = i - (i % len(demo.tiers)) + [x.name for x in demo.tiers].index(t.baseline)
            t.baseline = f"{t.baseline} #{base}" if base < n_tiers else ""
        t.k = int(rng.integers(2, 9)) if t.speculative != "no" else t.k
        tiers.append(t)
    classes = []
    for j in range(n_classes):
        c = dataclasses.replace(demo.classes[j % len(demo.classes)])
        c.name = f"{c.name} #{j}"
        c.alpha = float(rng.uniform(0.3, 0.9))
        classes.append(c)
    overrides = [Override(tiers[i].name, classes[j].name, float(rng.uniform(0.2, 0.9)))
                 for i, j in zip(rng.integers(0, n_tiers, 50), rng.integers(0, n_classes, 50))]
    seen = set()
    unique = []
    for o in overrides:
        if (o.tier, o.task_class) not in seen:
            seen.add((o.tier, o.task_class))
            unique.append(o)
    return Workbook(tiers, classes, unique, demo.settings, title=f"synthetic {n_tiers} x {n_classes}")


def profile_workbook(n_tiers: int = 100, n_classes: int = 30, positions: int = 16, seed: int = 0) -> Workbook:
    """``large_workbook`` with every class and override a per-position profile of ``positions`` conditional
    acceptances, falling along the stretch from about its alpha (the K of every tier stays within them)."""
    wb = large_workbook(n_tiers, n_classes, seed)
    rng = np.random.default_rng(seed + 1)

    def profile(alpha: float) -> tuple[float, ...]:
        fall = rng.uniform(0.005, 0.03)
        return tuple(float(np.clip(alpha + 0.08 - fall * i, 0.05, 0.98)) for i in range(positions))

    for row in (*wb.classes, *wb.overrides):
        row.profile = profile(row.alpha)
        # the alpha beside a profile is its summary (docs/design/arithmetic.md#the-alpha-beside-a-profile)
        row.alpha = summary_alpha(row.profile, None, None)
    return wb
