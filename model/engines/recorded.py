"""Per-request counts that a wing read from a file of its own, handed to the metrics import as they are.

One file has one reader: the probe alone reads its run file (model/probe/run_counts.py), and the metrics import
shows, checks and applies what that reader found beside the files it reads itself. The wings do not import each
other, so they meet here, in the core: the front end (commands/, gui/) passes the probe's reader to the import
(docs/dev/layout.md#one-reader-per-file).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.engines.reports import SpecCounts


@dataclass
class RecordedClass:
    """One task class's requests: each one's counts, named; its prompt beside it (None where the file names none);
    what the reader says about how it read them."""
    task_class: str
    requests: list[tuple[str, SpecCounts]]
    prompts: list[str | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class RecordedFile:
    """What a reader found in one file. ``classes`` is empty where no request carries counts; ``empty`` then says
    so in one line naming the file. ``k_unknown`` says why the file gives no K, where it gives none."""
    file: str
    kind: str  # the source's kind in the import's JSON ("probe-run")
    format: str  # the format, in words
    classes: list[RecordedClass] = field(default_factory=list)
    k_unknown: str = ""
    empty: str = ""
