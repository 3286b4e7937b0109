"""The dock's Against (the baseline to probe with) follows its tier by identity through renames, undo and a
delete that is undone; it went back to "(none)" once after renames during a run."""
from __future__ import annotations

from gui.document import Document
from gui.probe.panel import ProbePanel
from gui.tier_choice import chosen_tier
from model.workbook import row_edits
from model.workbook.json_file import load_demo


def _panel(qtbot):
    doc = Document(load_demo())
    panel = ProbePanel(doc)
    qtbot.addWidget(panel)
    combo, base = panel.endpoint.tier_combo, panel.endpoint.baseline_combo
    combo.setCurrentIndex(combo.findText("Northwind Turbo"))
    # an endpoint typed, as during a run: the form is no longer filled from the tier on every edit
    panel.endpoint.url_edit.setText("http://127.0.0.1:9/v1")
    panel.endpoint.model_edit.setText("demo-fast")
    base.setCurrentIndex(base.findText("Northwind Standard"))
    return doc, panel


def _against(doc, panel):
    tier = chosen_tier(panel.endpoint.baseline_combo, doc.workbook)
    return tier.name if tier is not None else panel.endpoint.baseline_combo.currentText()


def test_against_follows_renames_and_their_undo(qtbot):
    doc, panel = _panel(qtbot)
    for old, new in (("Northwind Standard", "NW Std"), ("Northwind Turbo", "NW Turbo"), ("NW Std", "Standard")):
        doc.apply("rename", lambda wb, o=old, n=new: wb.rename_tier(o, n))
        doc.flush()
    assert _against(doc, panel) == "Standard"
    for _ in range(3):
        doc.undo_stack.undo()
        doc.flush()
    assert _against(doc, panel) == "Northwind Standard"


def test_against_comes_back_with_an_undone_delete(qtbot):
    doc, panel = _panel(qtbot)
    i = doc.workbook.tier_index("Northwind Standard")
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "tiers", [i]))
    doc.flush()
    assert chosen_tier(panel.endpoint.baseline_combo, doc.workbook) is None  # gone: no baseline probed
    doc.undo_stack.undo()
    doc.flush()
    assert _against(doc, panel) == "Northwind Standard"


def test_the_apply_message_names_the_tier_as_it_is_called_now(qtbot):
    """After renames the dock said 'Applied the probe to tier Apex Express', a name another tier then had."""
    from tests.model.probe.test_apply import _report

    doc = Document(load_demo())
    panel = ProbePanel(doc)
    qtbot.addWidget(panel)
    probed = doc.workbook.tiers[doc.workbook.tier_index("Apex Express")]
    panel.report, panel.report_tier = _report("yes", {"code": 0.8}), probed.identity
    panel._update_apply()
    panel.apply_row.apply_button.click()
    assert panel.message_label.text().startswith("Applied the probe to tier Apex Express.")
    doc.apply("rename", lambda wb: wb.rename_tier("Apex Express", "Apex Turbo"))
    doc.apply("rename", lambda wb: wb.rename_tier("Apex Standard", "Apex Express"))
    doc.flush()
    assert panel.message_label.text().startswith("Applied the probe to tier Apex Turbo.")
    for _ in range(3):  # both renames and the apply undone: the words say the apply is undone, on its tier
        doc.undo_stack.undo()
    doc.flush()
    assert panel.message_label.text().startswith("Undid the apply to tier Apex Express:")
