"""What the import dialog shows of one source: its row's cells (in the three conventions) and its notes."""
from __future__ import annotations

import math
from pathlib import Path

from model.common import formatting as fmt
from model.metrics.result import SourceResult

COLUMNS = ("File", "Engine", "Model", "Class", "K", "Steps", "α per token", "Draft acceptance rate",
           "Mean acceptance length", "α applied", "Per position (conditional)")


def row_cells(source: SourceResult) -> tuple[str, ...]:
    """The texts of the source's row, one per column of COLUMNS."""
    c = source.counts
    cond = c.per_position_conditional
    return (fmt.printable(Path(source.file).name), fmt.printable(source.engine), fmt.printable(source.model or ""),
            fmt.printable(source.task_class or ""),
            str(c.k) if c.k else "?", f"{c.steps:,.0f}" if source.has_counts and c.steps else "–",
            fmt.pct(c.alpha, 1), fmt.pct(c.draft_acceptance_rate, 1), _length_cell(source),
            fmt.pct(source.alpha_applied, 1), ", ".join(fmt.pct(x, 0) for x in cond) if cond else "–")


def notes_for(source: SourceResult) -> str:
    """The notes under the table for a selected source: its convention, how it was read, the α rule, the engine's
    per-position rates and histogram where it has them, and what the reader noticed."""
    row = source.to_dict()
    lines = [f"{Path(source.file).name} [{source.engine}]: {source.counts.convention_note}",
             *([f"Read as: {source.format}"] if source.format else []),
             f"α applied: {source.alpha_rule}"]
    if row["per_position_engine"]:
        lines.append("Engine's per-position rate (cumulative): "
                     + ", ".join(fmt.pct(x, 1) for x in row["per_position_engine"]))
    if row["histogram"]:
        lines.append("Histogram (steps by accepted drafts 0..K): " + ", ".join(f"{h:,.0f}" for h in row["histogram"]))
    lines += [f"• {n}" for n in row["notes"]]
    return "\n".join(fmt.printable(line, 2000) for line in lines)


def _length_cell(source: SourceResult) -> str:
    """The mean acceptance length, or the bounds the counts allow where the steps were bounded, not counted."""
    c = source.counts
    bounds = c.mean_acceptance_length_range
    if c.mean_acceptance_length is None and bounds is not None:
        return f"{bounds[0]:.2f}–{bounds[1]:.2f}" if math.isfinite(bounds[1]) else f"≥ {bounds[0]:.2f}"
    return fmt.fixed(c.mean_acceptance_length, 2)
