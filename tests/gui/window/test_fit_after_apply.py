"""Texts that are wider than before (a measured interval '2.31x (2.19–2.42)', a profile '87.5% · profile') come
into the results grid, the per-tier summary and the acceptance grid by an Apply, not by typing: the columns refit
then, as they do when the classes change. Seen under Xvfb at 1366x768: after a probe's Apply the grid read
'2.31x (2.1…' and the acceptance grid '87.5% · p…'."""
from __future__ import annotations


def _probed(wb) -> None:
    """What a probe's Apply leaves on a tier: per class an override with an interval and a profile."""
    from model.workbook.rows import Override
    from tests.excel_cases import summarised

    for cls in wb.classes:
        wb.overrides.append(summarised(Override(
            tier="Northwind Turbo", task_class=cls.name, alpha=0.8, alpha_source="probed", alpha_low=0.75,
            alpha_high=0.85, alpha_confidence=0.95, alpha_requests=8, alpha_steps=100, profile=(0.9, 0.85, 0.8, 0.75),
            acceptance_length_low=3.5, acceptance_length_high=3.95)))


def _cut(view) -> list[tuple[int, int, str]]:
    model, metrics = view.model(), view.fontMetrics()
    out = []
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            if view.isColumnHidden(col):
                continue
            text = model.index(row, col).data()
            if isinstance(text, str) and text and metrics.horizontalAdvance(text) + 6 > view.columnWidth(col):
                out.append((row, col, text))
    return out


def test_columns_refit_when_an_apply_brings_intervals_and_profiles(qtbot, window):
    window.resize(1366, 768)
    assert not _cut(window.results_view)
    window.document.apply("Apply probed acceptance", _probed)
    window.document.flush()
    qtbot.wait(20)
    assert "(" in window.results_model.index(window.document.comparison.tier_names.index("Northwind Turbo"), 0).data()
    for view in (window.results_view, window.summary_view, window.override_view):
        assert not _cut(view), (view.objectName(), _cut(view)[:3])
