"""The probe dock's apply row: what Apply will set, the tier it writes to (or why it cannot), and the button.

Only shows; ProbePanel turns a click into one undo step (model.probe.apply.apply_probe).
"""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from model.acceptance.k_check import KMismatch

ACCEPTANCE_BUTTON, SPEED_BUTTON = "Apply probed acceptance", "Apply probed speed"
ACCEPTANCE_TIP = ("One undoable step: α per class as the tier's overrides (source probed), the speculative flag, the "
                  "measured speedup, the downgraded share and the SLA's measured share")
SPEED_TIP = ("One undoable step: the measured speedup with its interval, the share of fast requests served at "
             "standard speed and the SLA's measured share (this API shows no steps: no acceptance to apply)")


class ApplyRow(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flag_check = QCheckBox("Set the tier's Speculative from the verdict", checked=True)
        self.speedup_check = QCheckBox("Keep the measured speedup beside the claim", checked=True)
        # shown only when the K measured is not the tier's; never ticked for the analyst: a K from timing can read
        # short (few steps reach the last positions), so Apply changes K only where the analyst chooses it
        self.k_check = QCheckBox("Set the tier's K to the K measured", checked=False, visible=False)
        self.k_check.setToolTip("The acceptance and speedup applied were measured at the vendor's K; the tier's K "
                                "sets its draft cost K c + v. Untick to keep the workbook's K: numbers there are then "
                                "extrapolated where they reach past what was measured.")
        self.k_check.toggled.connect(self._say_k)
        self._mismatch: KMismatch | None = None
        self.apply_button = QPushButton(ACCEPTANCE_BUTTON, enabled=False)
        self.apply_button.setToolTip(ACCEPTANCE_TIP)
        # one width whatever it says: sized to its text, 'Apply to <a long tier name>' widened the footer and the
        # dock with it, 46 px, and the dock never narrowed again (it changed width between runs)
        fm = self.apply_button.fontMetrics()
        self._text_room = max(fm.horizontalAdvance(t) for t in (ACCEPTANCE_BUTTON, SPEED_BUTTON))
        self.apply_button.setFixedWidth(self.apply_button.sizeHint().width()
                                        + self._text_room - fm.horizontalAdvance(ACCEPTANCE_BUTTON))
        # which tier Apply writes to, or why it cannot: the report's tier, never the combo's current row
        self.apply_label = QLabel("", wordWrap=True)
        # a K mismatch in one short line, its whole story in the tooltip: said in full it took 5 lines of the
        # footer at 1366x768 and squeezed the results table above to its header
        self.k_label = QLabel("", wordWrap=True, visible=False)
        # stacked, so the dock still fits beside the tables on a 1366 px screen
        checks = QVBoxLayout()
        checks.addWidget(self.flag_check)
        checks.addWidget(self.speedup_check)
        checks.addWidget(self.k_check)
        row = QHBoxLayout()
        row.addLayout(checks, 1)
        row.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.apply_label)
        layout.addWidget(self.k_label)
        layout.addLayout(row)

    def update_for(self, has_report: bool, ran_on_a_tier: bool, tier_name: str | None, running: bool,
                   mismatch: KMismatch | None = None, stores: str = "", speed_only: bool = False) -> None:
        """``tier_name``: the probed tier's name now, None when the report has none or the tier is gone;
        ``mismatch``: the K measured against that tier's K now, None when they agree; ``stores``: which of two
        disagreeing readings Apply stores (model.probe.apply.disagreeing_sources), "" when none disagree;
        ``speed_only``: the run's stream hid the steps, so it carries speed, downgrades and the SLA, no acceptance."""
        new = mismatch if has_report and tier_name is not None else None
        if new != self._mismatch:
            self.k_check.setChecked(False)  # a tick was for the K it named, not this one
        self._mismatch = new
        self.k_check.setVisible(self._mismatch is not None)
        if self._mismatch is not None:
            self.k_check.setText(f"Set the tier's K to {self._mismatch.measured}, as measured")
        if not has_report:
            self.apply_label.setText("")
        elif not ran_on_a_tier:
            self.apply_label.setText("This probe ran without a tier of this workbook; nothing to apply it to.")
        elif tier_name is None:
            self.apply_label.setText("<span style='color:#8a1c12'>The probed tier is no longer in the workbook "
                                     "(deleted, or another file opened): Apply is off. Undo the delete to "
                                     "apply it.</span>")
        else:
            caution = f" <span style='color:#8a5a00'>⚠ {escape(stores)}</span>" if stores else ""
            self.apply_label.setText(f"Apply writes to the probed tier <b>{escape(tier_name)}</b>.{caution}")
        self._say_k()
        self.apply_button.setEnabled(not running and has_report and tier_name is not None)
        fallback = SPEED_BUTTON if speed_only else ACCEPTANCE_BUTTON
        self.apply_button.setText(self._named(tier_name, speed_only) or fallback)
        tip = SPEED_TIP if speed_only else ACCEPTANCE_TIP
        self.apply_button.setToolTip(f"Apply to {tier_name}. {tip}" if tier_name is not None else tip)

    def _named(self, tier_name: str | None, speed_only: bool) -> str:
        """'Apply to <tier>', the name elided to the button's one width: a name too long for it used to turn the
        button into 'Apply probed acceptance' (after a rename it read as another action); whole in the words above.
        A run without steps names its tier only whole: else the button says it applies the speed, not acceptance."""
        if tier_name is None:
            return ""
        fm = self.apply_button.fontMetrics()
        room = self._text_room - fm.horizontalAdvance("Apply to ")
        if speed_only and fm.horizontalAdvance(tier_name) > room:
            return ""
        return "Apply to " + fm.elidedText(tier_name, Qt.TextElideMode.ElideRight, room)

    @property
    def set_k(self) -> bool:
        """Whether Apply sets the tier's K to the K measured (only asked where they differ)."""
        return self._mismatch is not None and self.k_check.isChecked()

    def _say_k(self, *_args: object) -> None:
        """The K mismatch line (what Apply does about it, in short), and all of it in the tooltip."""
        m = self._mismatch
        self.k_label.setVisible(m is not None)
        if m is None:
            self.k_label.setToolTip("")
            return
        does = (f"Apply sets it to {m.measured}" if self.k_check.isChecked()
                else f"kept at {m.tier}" + (", numbers extrapolated" if "extrapolated" in m.text else ""))
        self.k_label.setText(f"<span style='color:#8a5a00'>⚠ K mismatch: measured {m.measured}, the tier has "
                             f"{m.tier}; {does}</span>")
        self.k_label.setToolTip(f"{m.text}.\n\n"
                                f"{m.apply_text(self.k_check.isChecked())}")
