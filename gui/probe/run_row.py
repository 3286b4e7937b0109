"""The probe dock's run row: Run, Cancel, the progress bar (requests done of planned) and the rate and time left.

Only shows: ProbePanel starts and stops the run and tells the row what happened.
"""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget


def seconds_left(s: float | None) -> str:
    if s is None:
        return "estimating time left"
    s = max(0, round(s))
    return f"{s} s left" if s < 60 else f"{s // 60} min {s % 60:02d} s left"


class RunRow(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel", enabled=False)
        self.progress_bar = QProgressBar(textVisible=True)
        # room for its words ('25 of 120 requests'): at a laptop's dock width the rate beside it squeezed the bar to
        # 95 px and cut them; the rate wraps onto two lines instead
        self.progress_bar.setMinimumWidth(self.progress_bar.fontMetrics().horizontalAdvance("888 of 888 requests") + 24)
        # the rate over the time left, each on its line and never broken inside: wrapped at the label's edge,
        # '63 tokens/s · 38 s' left 'left' alone on a second line at 1366 x 768; unwrapped, a line is as wide as
        # it needs (the label's minimum), the bar keeps its own minimum above
        self.rate_label = QLabel("")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.rate_label)
        self._at_most = False  # the run's count is a cap (until decided), not a plan
        self.set_idle("no run yet")

    def set_idle(self, words: str) -> None:
        # no run in progress: words, not a count ("0 of 1 requests" read as a plan of one request)
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat(words)

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def started(self, planned: int, at_most: bool = False) -> None:
        """``at_most``: ``planned`` is a cap (run until decided), not a count: the bar counts against it to the end
        ('16 of 40' beside 'at most 40' ended at '29 of 29', three plans for one run)."""
        self._at_most = at_most
        self.progress_bar.setFormat("%v of at most %m requests" if at_most else "%v of %m requests")
        self.progress_bar.setRange(0, max(1, planned))
        self.progress_bar.setValue(0)
        self.rate_label.setText("starting…")

    def progressed(self, done: int, total: int, tokens_per_second: float, seconds: float | None) -> None:
        self.progress_bar.setRange(0, max(1, total))
        self.progress_bar.setValue(done)
        if done:
            self.rate_label.setText(f"{tokens_per_second:,.0f} tokens/s\n{seconds_left(seconds)}")

    def cancelling(self) -> None:
        self.rate_label.setText("cancelling…")
        self.cancel_button.setEnabled(False)

    def finished(self, done: int, stopped: bool, all_sent: bool = False) -> None:
        """``all_sent``: the run sent all it meant to although fewer than planned (a run until decided plans its
        caps and stops each class once decided: '33 of 240 requests' beside 'done' read as cut short)."""
        capped = self._at_most
        self.progress_bar.setRange(0, max(1, done if all_sent and not stopped and not capped
                                          else self.progress_bar.maximum()))
        self.progress_bar.setValue(done)
        # 'done' once: beside a count, or in the bar's own words ('done' twice read as two things finished; beside
        # 'stopped after' it contradicted the bar)
        self.rate_label.setText("" if capped or stopped else "done")
        if capped and not stopped:  # the same cap as the run's words: the rest was not needed, not cut short
            self.progress_bar.setFormat("done after %v of at most %m requests")
        if stopped:  # the bar says the run stopped, not that it is a sixth done
            self.progress_bar.setFormat("stopped after %v of %m requests")

    def errored(self) -> None:
        # words, not the count format left from the run: it read "0 of 1 requests"
        self.set_idle("stopped by an error")
        self.rate_label.setText("")

    def cancelled(self, done: int) -> None:
        """Cancelled with ``done`` requests completed: the bar keeps the plan it was counting against."""
        self.progress_bar.setValue(min(done, self.progress_bar.maximum()))
        self.progress_bar.setFormat("cancelled after %v of %m requests")
        self.rate_label.setText("")
