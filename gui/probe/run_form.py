"""The probe dock's run form: the prompt file, contexts, tokens, repeats, concurrency levels and run-until-decided.

Only shows and edits; what a run sends is built by ProbePanel.settings() from this form and the endpoint box.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QToolButton, QWidget

from gui.tables.cell_format import locale_decimal
from model.probe.filler import parse_context
from model.probe.plan import MAX_TEMPERATURE
from model.workbook.validation import (HALF_WIDTH_FIELD, LENGTH_HALF_WIDTH_FIELD, MAX_COST_FIELD, FieldSpec,
                                       ValidationError)

DEMO_PROMPTS = Path(__file__).resolve().parents[2] / "resources" / "prompts" / "demo.jsonl"


class RunForm(QWidget):
    changed = Signal()  # anything that moves what deciding each class would take (the panel re-estimates)
    refused = Signal(str)  # a value typed that the validator refused, in words (the old value is kept)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self._build_requests(form)
        self._build_until_decided(form)
        for edit in (self.prompts_edit, self.contexts_edit):
            edit.textChanged.connect(self.changed)
        for spin in (self.tokens_spin, self.max_requests_spin):
            spin.valueChanged.connect(self.changed)
        self.decide_check.toggled.connect(self.changed)

    def _build_requests(self, form: QFormLayout) -> None:
        """What each request is: the prompts, the filler before them, tokens, repeats, the levels and temperature."""
        self.prompts_edit = QLineEdit(str(DEMO_PROMPTS))
        browse = QToolButton(text="…", toolTip="Browse")
        browse.clicked.connect(self._on_prompts_browse_clicked)
        prompts_row = QHBoxLayout()
        prompts_row.addWidget(self.prompts_edit, 1)
        prompts_row.addWidget(browse)
        self.contexts_edit = QLineEdit("0", toolTip="Filler before each prompt, e.g. 1K,8K,32K (0: the prompt alone)")
        self.contexts_edit.setMaximumWidth(120)
        self.tokens_spin = QSpinBox(minimum=2, maximum=4096, value=64, toolTip="Output tokens per request")
        self.repeats_spin = QSpinBox(minimum=1, maximum=100, value=1,
                                     toolTip="Times each prompt is sent; at a temperature above 0, the samples per "
                                             "prompt and tier the quality test reads")
        # above 0: one greedy answer per prompt and tier (identity), then the repeats sampled at it, and the test of
        # whether the fast tier samples from the baseline's model (docs/guide/quality.md)
        self.temperature_spin = QDoubleSpinBox(minimum=0.0, maximum=MAX_TEMPERATURE, value=0.0, singleStep=0.1,
                                               decimals=2, toolTip="Sample at the temperature your product uses (0: "
                                               "greedy, identity only): the quality test says whether the fast tier "
                                               "samples from the same model as the baseline")
        self.levels_edit = QLineEdit("1", toolTip="Parallel streams per level, one level at a time, e.g. 1,4,16: "
                                     "fast and baseline at each level")
        form.addRow("Prompts (JSONL)", prompts_row)
        knobs = QHBoxLayout()
        for text, w in (("Contexts", self.contexts_edit), ("Max tokens", self.tokens_spin),
                        ("Repeats", self.repeats_spin)):
            knobs.addWidget(QLabel(text))
            knobs.addWidget(w)
        form.addRow(knobs)
        levels_row = QHBoxLayout()
        levels_row.addWidget(QLabel("Concurrency"))
        levels_row.addWidget(self.levels_edit, 1)
        levels_row.addWidget(QLabel("parallel streams per level, e.g. 1,4,16"))
        form.addRow(levels_row)
        temperature_row = QHBoxLayout()
        temperature_row.addWidget(QLabel("Temperature"))
        temperature_row.addWidget(self.temperature_spin)
        temperature_row.addWidget(QLabel("0: greedy; above: the quality test"), 1)
        form.addRow(temperature_row)

    def _build_until_decided(self, form: QFormLayout) -> None:
        """Run until decided, and the caps that stop it: requests a class, a cost, an interval's half-width."""
        # until decided: rounds to the classes still undecided against their price break-even (the workbook's)
        self.decide_check = QCheckBox("Run until decided", toolTip="Send rounds of requests (this tier only) to the "
                                      "classes whose acceptance interval still reaches across their price break-even, "
                                      "and stop each once it does not (or at the caps)")
        self.max_requests_spin = QSpinBox(minimum=5, maximum=10000, value=40, suffix=" a class",
                                          toolTip="Most requests per class")
        self.max_cost_edit = QLineEdit(placeholderText="no cap", toolTip="Stop before a round would pass this cost "
                                       "(at the tier's prices)")
        self.max_cost_edit.setMaximumWidth(90)
        self.half_width_edit = QLineEdit(placeholderText="none", toolTip="Stop a class once its interval is this "
                                         "narrow either side, e.g. 0.03 or 3% (3 points); blank: stop when it clears "
                                         "the price break-even")
        self.half_width_edit.setMaximumWidth(70)
        # a class the workbook holds as a profile or a length is judged on E, not alpha: its own target, in tokens
        # per verify step at the tier's K (the CLI's one --half-width is read in each class's unit)
        self.length_half_width_edit = QLineEdit(placeholderText="none", toolTip="For a class held as a profile or "
                                                "a length: stop it once E's interval at the tier's K is this narrow "
                                                "either side, in tokens per verify step, e.g. 0.1; blank: stop when "
                                                "it clears the price break-even")
        self.length_half_width_edit.setMaximumWidth(55)
        # the last values accepted: a refused one leaves them
        self._accepted: dict[str, float | None] = {HALF_WIDTH_FIELD.name: None, LENGTH_HALF_WIDTH_FIELD.name: None,
                                                   MAX_COST_FIELD.name: None}
        # each cap is refused as it is typed, with its reason, the old value back in the field (a max cost of -5
        # stayed in it until Run said why)
        self.max_cost_edit.editingFinished.connect(self._commit_max_cost)
        self.half_width_edit.editingFinished.connect(self._commit_half_width)
        self.length_half_width_edit.editingFinished.connect(self._commit_length_half_width)
        # the caps on a line of their own under the check box, each line narrower than the endpoint form, so
        # the dock is no wider for the third cap (three on one line widened it)
        decide_row = QHBoxLayout()
        decide_row.addWidget(self.decide_check)
        decide_row.addWidget(QLabel("Max requests"))
        decide_row.addWidget(self.max_requests_spin)
        decide_row.addStretch(1)
        form.addRow(decide_row)
        caps_row = QHBoxLayout()
        caps_row.addSpacing(22)  # under the check box's text: these belong to it
        for text, w in (("Max cost", self.max_cost_edit), ("Half-width", self.half_width_edit),
                        ("E ±", self.length_half_width_edit)):
            caps_row.addWidget(QLabel(text))
            caps_row.addWidget(w)
        caps_row.addStretch(1)
        form.addRow(caps_row)

    def prompts_path(self) -> str:
        return self.prompts_edit.text().strip()

    def contexts(self) -> tuple[int, ...]:
        """The filler lengths typed, each once, in order (ValueError on one that is not a length)."""
        return tuple(dict.fromkeys(parse_context(c) for c in self.contexts_edit.text().split(",") if c.strip()))

    def show_levels_for(self, concurrency: int) -> None:
        """Probe one stream and, where the tier runs at more, that load too."""
        self.levels_edit.setText("1" if concurrency == 1 else f"1,{concurrency}")

    def max_cost(self) -> float | None:
        """The cost cap a run until decided stops before (None: none), as typed if it is one."""
        self._commit_max_cost()
        return self._accepted[MAX_COST_FIELD.name]

    def _commit_max_cost(self) -> None:
        self._commit(self.max_cost_edit, MAX_COST_FIELD)

    def half_width(self) -> float | None:
        """The half-width on alpha a run until decided stops an alpha class at (None: none), as typed if it is one."""
        self._commit_half_width()
        return self._accepted[HALF_WIDTH_FIELD.name]

    def length_half_width(self) -> float | None:
        """The half-width on E, tokens per verify step, it stops a profile or length class at (None: none)."""
        self._commit_length_half_width()
        return self._accepted[LENGTH_HALF_WIDTH_FIELD.name]

    def _commit_half_width(self) -> None:
        self._commit(self.half_width_edit, HALF_WIDTH_FIELD)

    def _commit_length_half_width(self) -> None:
        self._commit(self.length_half_width_edit, LENGTH_HALF_WIDTH_FIELD)

    def _commit(self, edit: QLineEdit, spec: FieldSpec) -> None:
        """Take what ``edit`` holds through ``spec``'s validator; a refused value is said (``refused``) and the
        field goes back to the value it had."""
        text, mark = edit.text().strip(), locale_decimal()
        was = self._accepted[spec.name]
        try:
            value = spec.parse(text, decimal=mark)
        except ValidationError as exc:
            old = "" if was is None else f"{was:g}".replace(".", mark)
            edit.setText(old)
            self.refused.emit(f"{spec.label} {exc}; kept {old or 'none'}")
            return
        if value != was:
            self._accepted[spec.name] = value
            self.changed.emit()

    def _on_prompts_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Prompt set", self.prompts_edit.text(),
                                              "Prompt sets (*.jsonl);;All files (*)")
        if path:
            self.prompts_edit.setText(path)
