"""The probe dock's apply row: what Apply will set, the tier it writes to (or why it cannot), and the button.

Only shows; ProbePanel turns a click into one undo step (model.probe.apply.apply_probe).
"""
from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class ApplyRow(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flag_check = QCheckBox("Set the tier's Speculative from the verdict", checked=True)
        self.speedup_check = QCheckBox("Keep the measured speedup beside the claim", checked=True)
        self.apply_button = QPushButton("Apply probed acceptance", enabled=False)
        self.apply_button.setToolTip("One undoable step: α per class as the tier's overrides (source probed), "
                                     "the speculative flag, the measured speedup")
        # which tier Apply writes to, or why it cannot: the report's tier, never the combo's current row
        self.apply_label = QLabel("", wordWrap=True)
        # stacked, so the dock still fits beside the tables on a 1366 px screen
        checks = QVBoxLayout()
        checks.addWidget(self.flag_check)
        checks.addWidget(self.speedup_check)
        row = QHBoxLayout()
        row.addLayout(checks, 1)
        row.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.apply_label)
        layout.addLayout(row)

    def update_for(self, has_report: bool, ran_on_a_tier: bool, tier_name: str | None, running: bool) -> None:
        """``tier_name``: the probed tier's name now, None when the report has none or the tier is gone."""
        if not has_report:
            self.apply_label.setText("")
        elif not ran_on_a_tier:
            self.apply_label.setText("This probe ran without a tier of this workbook; nothing to apply it to.")
        elif tier_name is None:
            self.apply_label.setText("<span style='color:#8a1c12'>The probed tier is no longer in the workbook "
                                     "(deleted, or another file opened): Apply is off. Undo the delete to "
                                     "apply it.</span>")
        else:
            self.apply_label.setText(f"Apply writes to the probed tier <b>{escape(tier_name)}</b>.")
        self.apply_button.setEnabled(not running and has_report and tier_name is not None)
        self.apply_button.setText(f"Apply to {tier_name}" if tier_name is not None and len(tier_name) <= 24
                                  else "Apply probed acceptance")
