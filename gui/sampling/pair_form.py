"""The Measure panel's form: the draft/target pair, the prompt file, the run's knobs and where it runs (here or on
Ray), read as RunParams and set back from them.

Only collects; SamplingPanel starts the run and remembers the form (gui.sampling.form).
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGridLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QSpinBox, QToolButton, QVBoxLayout, QWidget)

from model.sampling.prompts import DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET
from model.workbook.validation import K_LIMITS

from gui.sampling.form import RunParams


class PairForm(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.draft_edit, draft_row = self._path_row(str(DEMO_DRAFT), self._on_draft_browse_clicked)
        self.target_edit, target_row = self._path_row(str(DEMO_TARGET), self._on_target_browse_clicked)
        self.prompts_edit, prompts_row = self._path_row(str(DEMO_PROMPTS), self._on_prompts_browse_clicked)
        self.k_spin = QSpinBox(minimum=K_LIMITS[0], maximum=K_LIMITS[1], value=4, toolTip="Draft tokens per stretch")
        self.tokens_spin = QSpinBox(minimum=1, maximum=4096, value=48, toolTip="Tokens generated per prompt")
        self.temperature_spin = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.1, decimals=2, value=0.0,
                                               toolTip="0 = greedy; above 0 = speculative sampling")
        self.seed_spin = QSpinBox(minimum=0, maximum=999_999, value=0, toolTip="Same seed, same tokens")
        self.provider_combo = QComboBox(toolTip="Execution provider: auto uses CUDA when it works here")
        for key, text in (("auto", "Auto (CUDA if usable)"), ("cuda", "CUDA"), ("cpu", "CPU")):
            self.provider_combo.addItem(text, key)

        self.ray_check = QCheckBox("Run on a Ray cluster")
        self.ray_check.setToolTip("Measure on Ray workers, each loading the pair once; the same numbers as "
                                  "here (pip install -e '.[ray]')")
        self.ray_address_edit = QLineEdit(enabled=False)
        self.ray_address_edit.setPlaceholderText("blank: a local Ray · auto · ray://head:10001")
        self.ray_address_edit.setToolTip("Ray's address: auto for the cluster this machine belongs to, "
                                         "ray://HOST:10001 for a remote one, blank for a local Ray")
        self.ray_check.toggled.connect(self.ray_address_edit.setEnabled)
        ray_row = QWidget()
        ray_box = QHBoxLayout(ray_row)
        ray_box.setContentsMargins(0, 0, 0, 0)
        ray_box.addWidget(self.ray_check)
        ray_box.addWidget(self.ray_address_edit, 1)

        pair = QGroupBox("Draft/target pair and prompts")
        form = QFormLayout(pair)
        form.addRow("Draft model folder", draft_row)
        form.addRow("Target model folder", target_row)
        form.addRow("Prompts (JSONL)", prompts_row)
        # two rows of three, so the panel still fits a side dock about 540 px wide
        knobs = QGridLayout()
        for i, (text, widget) in enumerate((("K", self.k_spin), ("Max new tokens", self.tokens_spin),
                                            ("Temperature", self.temperature_spin), ("Seed", self.seed_spin),
                                            ("Provider", self.provider_combo))):
            row, col = divmod(i, 3)
            knobs.addWidget(QLabel(text), row, 2 * col, Qt.AlignmentFlag.AlignRight)
            knobs.addWidget(widget, row, 2 * col + 1, 1, 3 if i == 4 else 1)
        knobs.setColumnStretch(6, 1)
        form.addRow(knobs)
        form.addRow(ray_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(pair)

    def _path_row(self, text: str, pick: Callable[[], None]) -> tuple[QLineEdit, QWidget]:
        edit = QLineEdit(text)
        edit.setToolTip(text)
        edit.textChanged.connect(edit.setToolTip)  # long paths: the whole path on hover
        button = QToolButton()
        button.setText("…")
        button.setToolTip("Browse")
        button.clicked.connect(pick)
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        box.addWidget(button)
        return edit, row

    # --- reading and setting the form ------------------------------------------------
    def params(self) -> RunParams:
        return RunParams(self.draft_edit.text().strip(), self.target_edit.text().strip(),
                         self.prompts_edit.text().strip(), self.k_spin.value(), self.tokens_spin.value(),
                         self.temperature_spin.value(), self.seed_spin.value(), self.provider_combo.currentData(),
                         self.ray_check.isChecked(), self.ray_address_edit.text().strip())

    def set_params(self, params: RunParams) -> None:
        self.draft_edit.setText(params.draft_dir)
        self.target_edit.setText(params.target_dir)
        self.prompts_edit.setText(params.prompts_path)
        self.k_spin.setValue(params.k)  # spin boxes clamp what is out of their range
        self.tokens_spin.setValue(params.max_new_tokens)
        self.temperature_spin.setValue(params.temperature)
        self.seed_spin.setValue(params.seed)
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(params.provider)))
        self.ray_check.setChecked(params.ray)
        self.ray_address_edit.setText(params.ray_address)

    def connect_changes(self, slot: Callable[..., None]) -> None:
        """Call ``slot`` whenever any field changes (the panel remembers the form)."""
        for edit in (self.draft_edit, self.target_edit, self.prompts_edit, self.ray_address_edit):
            edit.textChanged.connect(slot)
        for spin in (self.k_spin, self.tokens_spin, self.temperature_spin, self.seed_spin):
            spin.valueChanged.connect(slot)
        self.provider_combo.currentIndexChanged.connect(slot)
        self.ray_check.toggled.connect(slot)

    # --- slots: browsing ---------------------------------------------------------------
    def _on_draft_browse_clicked(self) -> None:
        self._pick_folder(self.draft_edit, "Draft model folder (ONNX export)")

    def _on_target_browse_clicked(self) -> None:
        self._pick_folder(self.target_edit, "Target model folder (ONNX export)")

    def _pick_folder(self, edit: QLineEdit, title: str) -> None:
        folder = QFileDialog.getExistingDirectory(self, title, edit.text())
        if folder:
            edit.setText(folder)

    def _on_prompts_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Prompt set", self.prompts_edit.text(),
                                              "Prompt sets (*.jsonl);;All files (*)")
        if path:
            self.prompts_edit.setText(path)
