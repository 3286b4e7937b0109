"""Editable table models over the workbook's inputs: tiers and task classes (the overrides grid: override_grid.py).

Every change goes through Document.apply, so it is one undo step; every value
goes through model/validation, so a refused value leaves the workbook as it
was and `refused` carries the reason for the status bar.
"""
from __future__ import annotations

from gui.tables.workbook_table_model import Cell, Index, WorkbookTableModel, column_letter  # noqa: F401  (re-exported)
from gui.tables.row_table_model import RowTableModel  # noqa: F401  (re-exported)
from gui.tables.tier_table_model import TierTableModel  # noqa: F401  (re-exported)
from gui.tables.class_table_model import ClassTableModel  # noqa: F401  (re-exported)
