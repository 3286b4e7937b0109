"""The probe dock's endpoint box: which tier, its endpoint (the API it speaks, extra fields and headers), the load it
runs at, the speed SLA to judge, and the baseline.

Only shows and edits: the values go to the tier through the one validator (``parsed``) and the panel's undo step;
the API key and secret headers are never here, only the names of where they live (env:VAR, keyring:SERVICE/USER).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QWidget

from model.probe.endpoint import Endpoint, parse_endpoint_headers, parse_extra_body
from model.probe.sla import parse_sla
from model.workbook.field_spec import ENDPOINT_APIS
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import parse_field

ENDPOINT_EDITS = ("endpoint_url", "endpoint_model", "api_key_env", "keyring_service", "keyring_user", "extra_body")


class EndpointForm(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Endpoint", parent)
        self.tier_combo = QComboBox(toolTip="The tier to probe")
        self.baseline_combo = QComboBox(toolTip="The tier to compare with (speedup, identity); none to skip")
        self.url_edit = QLineEdit(placeholderText="https://api.vendor.example/v1")
        self.model_edit = QLineEdit(placeholderText="model name")
        self.key_env_edit = QLineEdit(placeholderText="VENDOR_API_KEY", toolTip="Name of the environment "
                                      "variable that holds the key (never the key itself)")
        self.keyring_service_edit = QLineEdit(placeholderText="keyring service")
        self.keyring_user_edit = QLineEdit(placeholderText="user")
        self.extra_edit = QLineEdit(placeholderText='{"service_tier": "priority"}', toolTip="Extra request fields")
        self.api_combo = QComboBox(toolTip="The API the endpoint speaks: Chat Completions, OpenAI's Responses API or "
                                           "Anthropic's Messages API (its fast mode: {\"speed\": \"fast\"})")
        self.api_combo.addItems(ENDPOINT_APIS)
        self.headers_edit = QLineEdit(placeholderText="anthropic-beta: fast-mode-2026-02-01; X-Org-Token: env:VAR",
                                      toolTip="Extra request headers, 'Name: value' separated by ';'. A header whose "
                                              "name says key, token, auth, secret, cookie, password or credential "
                                              "takes only where its value lives: env:VAR or keyring:SERVICE/USER")
        self.sla_edit = QLineEdit(placeholderText="80@0.99", toolTip="A speed SLA to judge: 80@0.99 is 99% of "
                                  "requests above 80 output tokens/s (tokens after the first over the time from the "
                                  "first content to the last). Saved with the endpoint; blank for none")
        self.save_endpoint_button = QPushButton("Save endpoint to tier")
        keyring = QHBoxLayout()
        keyring.addWidget(self.keyring_service_edit, 1)
        keyring.addWidget(self.keyring_user_edit, 1)
        form = QFormLayout(self)
        form.addRow("Tier", self.tier_combo)
        form.addRow("API", self.api_combo)
        form.addRow("Base URL", self.url_edit)
        form.addRow("Model", self.model_edit)
        form.addRow("API key env var", self.key_env_edit)
        form.addRow("or keyring", keyring)
        form.addRow("Extra fields", self.extra_edit)
        form.addRow("Headers", self.headers_edit)
        form.addRow("SLA", self.sla_edit)
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
        for edit in (*self.edits(), self.headers_edit, self.sla_edit):
            edit.clear()
        self.api_combo.setCurrentIndex(0)

    def fill(self, tier: Tier, workbook: Workbook) -> None:
        """Show ``tier``'s saved endpoint and load, and its baseline as the one to compare with."""
        for name, edit in zip(ENDPOINT_EDITS, self.edits()):
            edit.setText(getattr(tier, name))
        self.api_combo.setCurrentText(tier.endpoint_api or ENDPOINT_APIS[0])
        self.headers_edit.setText(tier.endpoint_headers.replace("\n", "; "))
        sla = (tier.sla_tokens_per_s, tier.sla_share)
        self.sla_edit.setText(f"{sla[0]:g}@{sla[1]:g}" if sla[0] and sla[1] else "")
        self.load_spin.setValue(tier.concurrency)
        self.claim_load_spin.setValue(tier.claim_concurrency)
        i = workbook.tier_index(tier.baseline)
        base = workbook.tiers[i] if i is not None else None
        self.baseline_combo.setCurrentIndex(max(0, self.baseline_combo.findData(base.identity)) if base else 0)

    def parsed(self, tier_name: str) -> dict[str, Any]:
        """The tier's fields as the form gives them, through the one validator (ValueError naming the field)."""
        values = {name: parse_field(Tier, name, edit.text(), tier_name) for name, edit in zip(ENDPOINT_EDITS, self.edits())}
        values["endpoint_api"] = parse_field(Tier, "endpoint_api", self.api_combo.currentText(), tier_name)
        values["endpoint_headers"] = parse_field(Tier, "endpoint_headers", self.headers_edit.text(), tier_name)
        x, q = self.sla() or (None, None)
        values["sla_tokens_per_s"] = parse_field(Tier, "sla_tokens_per_s", x, tier_name)
        values["sla_share"] = parse_field(Tier, "sla_share", q, tier_name)
        values["concurrency"] = parse_field(Tier, "concurrency", self.load_spin.value(), tier_name)
        values["claim_concurrency"] = parse_field(Tier, "claim_concurrency", self.claim_load_spin.value(), tier_name)
        return values

    def endpoint(self) -> Endpoint:
        """The endpoint the form describes (not yet checked)."""
        return Endpoint(self.url_edit.text().strip(), self.model_edit.text().strip(), self.key_env_edit.text().strip(),
                        self.keyring_service_edit.text().strip(), self.keyring_user_edit.text().strip(),
                        parse_extra_body(self.extra_edit.text()), api=self.api_combo.currentText(),
                        headers=parse_endpoint_headers(self.headers_edit.text(), "header"))

    def sla(self) -> tuple[float, float] | None:
        """The SLA typed (tokens/s, share), None when blank; ValueError (one line) when it is not one."""
        text = self.sla_edit.text().strip()
        return parse_sla(text) if text else None
