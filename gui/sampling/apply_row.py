"""The Measure panel's apply row: where the measured α goes (the classes, or one tier's overrides, kept by the
tier's identity), whether missing classes are added, and the button, on only while that target exists.

Only shows; SamplingPanel turns a click into one undo step (model.workbook.measured_apply).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QLabel, QPushButton, QWidget

from model.workbook.rows import Workbook

from gui.tier_choice import chosen_tier, names_gone_tier, refill_tiers

_APPLY_TIP = "One undoable step: sets α, marks it measured and names the pair"


class SamplingApplyRow(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.apply_target_combo = QComboBox(toolTip="Where the measured α goes")
        # as narrow as a dock allows: the long tier entries ('Overrides of tier … (not speculative: not used)')
        # would ask 430 px, and below the scrolled form the row's width is the dock's minimum
        self.apply_target_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.apply_target_combo.setMinimumContentsLength(16)
        self.add_missing_check = QCheckBox("Add missing classes")
        self.add_missing_check.setToolTip("Add the measured classes the workbook lacks; otherwise they are listed, "
                                          "not added")
        self.apply_button = QPushButton("Apply measured acceptance", enabled=False)
        self.apply_button.setToolTip(_APPLY_TIP)
        # stacked, so the row is no wider than the dock's scrolled part: below it, its width is the dock's minimum
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Apply to"), 0, 0)
        grid.addWidget(self.apply_target_combo, 0, 1)
        grid.addWidget(self.add_missing_check, 1, 0, 1, 2)
        grid.addWidget(self.apply_button, 2, 0, 1, 2, Qt.AlignmentFlag.AlignRight)
        grid.setColumnStretch(1, 1)

    def refill(self, wb: Workbook) -> None:
        # keep the chosen target across edits by the tier's identity: through a rename it stays on its tier,
        # and a deleted one stays named as gone (Apply off) rather than falling back to another target
        refill_tiers(self.apply_target_combo, wb.tiers, [("Task classes' α (all tiers without an override)", None)],
                     label=lambda t: f"Overrides of tier “{t.name}”"
                                     + (" (not speculative: not used)" if t.speculative == "no" else ""),
                     gone="Overrides of a tier no longer in the workbook")

    def target_gone(self, wb: Workbook) -> bool:
        return names_gone_tier(self.apply_target_combo, wb)

    def chosen_target(self, wb: Workbook) -> str | None:
        """The name, now, of the tier the Apply-to box names (None: the classes' α, or a tier gone)."""
        tier = chosen_tier(self.apply_target_combo, wb)
        return None if tier is None else tier.name

    def update_for(self, wb: Workbook, can_apply: bool) -> None:
        """``can_apply``: a result is there and no run is going."""
        gone = self.target_gone(wb)
        self.apply_button.setEnabled(can_apply and not gone)
        self.apply_button.setToolTip("The chosen tier is no longer in the workbook: choose another, or undo the delete"
                                     if gone else _APPLY_TIP)
