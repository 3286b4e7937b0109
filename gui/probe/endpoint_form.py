"""The probe dock's endpoint box: which tier, its OpenAI-compatible endpoint, the load it runs at, and the baseline.

Only shows and edits: the values go to the tier through the one validator (``parsed``) and the panel's undo step;
the API key is never here, only the name of where it lives.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QWidget

from model.probe.endpoint import Endpoint, parse_extra_body
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import parse_field

ENDPOINT_EDITS = ("endpoint_url", "endpoint_model", "api_key_env", "keyring_service", "keyring_user", "extra_body")


class EndpointForm(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Endpoint (OpenAI-compatible chat completions)", parent)
        self.tier_combo = QComboBox(toolTip="The tier to probe")
        self.baseline_combo = QComboBox(toolTip="The tier to compare with (speedup, identity); none to skip")
        self.url_edit = QLineEdit(placeholderText="https://api.vendor.example/v1")
        self.model_edit = QLineEdit(placeholderText="model name")
        self.key_env_edit = QLineEdit(placeholderText="VENDOR_API_KEY", toolTip="Name of the environment "
                                      "variable that holds the key (never the key itself)")
        self.keyring_service_edit = QLineEdit(placeholderText="keyring service")
        self.keyring_user_edit = QLineEdit(placeholderText="user")
        self.extra_edit = QLineEdit(placeholderText='{"service_tier": "priority"}', toolTip="Extra request fields")
        self.save_endpoint_button = QPushButton("Save endpoint to tier")
        keyring = QHBoxLayout()
        keyring.addWidget(self.keyring_service_edit, 1)
        keyring.addWidget(self.keyring_user_edit, 1)
        form = QFormLayout(self)
        form.addRow("Tier", self.tier_combo)
        form.addRow("Base URL", self.url_edit)
        form.addRow("Model", self.model_edit)
        form.addRow("API key env var", self.key_env_edit)
        form.addRow("or keyring", keyring)
        form.addRow("Extra fields", self.extra_edit)
        # the load the analyst runs: saved to the tier with the endpoint; the comparison judges the tier there
        self.load_spin = QSpinBox(minimum=1, maximum=4096, value=1,
                                  toolTip="Parallel streams you will run on this tier (a batch job's workers). "
                                          "Saved with the endpoint; the comparison uses the speedup measured at "
                                          "this concurrency where a probe measured one")
        self.claim_load_spin = QSpinBox(minimum=1, maximum=4096, value=1,
                                        toolTip="The parallel streams the vendor's claim was measured at, where "
                                                "the vendor says (a claim is usually for one stream on a quiet server)")
        load_row = QHBoxLayout()
        load_row.addWidget(self.load_spin)
        load_row.addWidget(QLabel("streams; the claim at"))
        load_row.addWidget(self.claim_load_spin)
        load_row.addWidget(QLabel("streams"))
        load_row.addStretch(1)
        form.addRow("Your load", load_row)
        form.addRow("", self.save_endpoint_button)
        form.addRow("Against", self.baseline_combo)

    def edits(self) -> tuple[QLineEdit, ...]:
        """The line edits in ENDPOINT_EDITS' order."""
        return (self.url_edit, self.model_edit, self.key_env_edit, self.keyring_service_edit, self.keyring_user_edit,
                self.extra_edit)

    def clear(self) -> None:
        for edit in self.edits():
            edit.clear()

    def fill(self, tier: Tier, workbook: Workbook) -> None:
        """Show ``tier``'s saved endpoint and load, and its baseline as the one to compare with."""
        for name, edit in zip(ENDPOINT_EDITS, self.edits()):
            edit.setText(getattr(tier, name))
        self.load_spin.setValue(tier.concurrency)
        self.claim_load_spin.setValue(tier.claim_concurrency)
        i = workbook.tier_index(tier.baseline)
        base = workbook.tiers[i] if i is not None else None
        self.baseline_combo.setCurrentIndex(max(0, self.baseline_combo.findData(base.identity)) if base else 0)

    def parsed(self, tier_name: str) -> dict[str, Any]:
        """The tier's fields as the form gives them, through the one validator (ValueError naming the field)."""
        values = {name: parse_field(Tier, name, edit.text(), tier_name) for name, edit in zip(ENDPOINT_EDITS, self.edits())}
        values["concurrency"] = parse_field(Tier, "concurrency", self.load_spin.value(), tier_name)
        values["claim_concurrency"] = parse_field(Tier, "claim_concurrency", self.claim_load_spin.value(), tier_name)
        return values

    def endpoint(self) -> Endpoint:
        """The endpoint the form describes (not yet checked)."""
        return Endpoint(self.url_edit.text().strip(), self.model_edit.text().strip(), self.key_env_edit.text().strip(),
                        self.keyring_service_edit.text().strip(), self.keyring_user_edit.text().strip(),
                        parse_extra_body(self.extra_edit.text()))
