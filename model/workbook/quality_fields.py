"""A tier's quality as a probe found it (docs/design/quality.md): the verdict and its sentence, set by Apply from a
probe's `quality` and `checks` (model/probe/quality_apply.py), kept in the workbook file, read by the comparison."""
from __future__ import annotations

from model.workbook.field_spec import FieldSpec

LOSSY, WORSE, UNDECIDED, LOSSLESS = "lossy", "worse", "undecided", "lossless"
QUALITY_VERDICTS = ("", LOSSY, WORSE, UNDECIDED, LOSSLESS)
FLAGGED = (LOSSY, WORSE)  # a tier with one of these never goes without its quality line

QUALITY_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("quality_verdict", "Quality", "choice", choices=QUALITY_VERDICTS),
    FieldSpec("quality_note", "Quality note", "text"),
)
