"""The sampling table shows the measured speedup with its spread, and says what the spread means."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.sampling.results import SamplingResultsModel
from model.sampling.run import ClassResult


def _result(**kw) -> ClassResult:
    base = dict(task_class="code", prompts=4, stretches=10, drafted_tokens=40, accepted_tokens=30,
                generated_tokens=60, alpha=0.8, draft_acceptance_rate=0.75, mean_acceptance_length=4.0,
                histogram=[1, 1, 2, 2, 4], position_acceptance=[0.9, 0.8, 0.8, 0.7], c_measured=0.3,
                v_measured=1.1, speedup_measured=1.36, speedup_predicted=1.7,
                tokens_per_second_speculative=100.0, tokens_per_second_target=73.5)
    base.update(kw)
    return ClassResult(**base)


def test_measured_speedup_shows_its_spread_over_prompts(qtbot):
    model = SamplingResultsModel()
    col = next(c for c in range(model.columnCount())
               if str(model.headerData(c, Qt.Orientation.Horizontal)).startswith("Speedup\nmeasured"))
    model.set_results([_result(speedup_measured_low=0.9, speedup_measured_high=1.8), _result(task_class="json")])
    assert model.data(model.index(0, col)) == "1.36x (0.90–1.80)"
    assert model.data(model.index(1, col)) == "1.36x"  # no spread known: none invented
    tip = model.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "noise" in tip and "α is the measurement" in tip
