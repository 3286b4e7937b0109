"""The status bar's view of the window's long task: its label, a progress bar and a Cancel button.

The runner's progress values are whatever the job yields: a fraction, a (done, total)
pair, a message, or a sampling run's SamplingProgress (read by its fields, so that
model.sampling.run and onnxruntime are not imported to recognise it).
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from gui.worker import TaskRunner, worded_error

_FRACTION_STEPS = 1000


class TaskStatus(QObject):
    def __init__(self, bar: QStatusBar, tasks: TaskRunner, show_message: Callable[[str, int], None]) -> None:
        super().__init__(bar)
        self.tasks = tasks
        self._show_message = show_message
        self.label = QLabel()
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(180)
        self.progress_bar.setRange(0, _FRACTION_STEPS)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(tasks.cancel)
        for w in self._widgets():
            w.setVisible(False)
            bar.addPermanentWidget(w)
        tasks.started.connect(self._on_task_started)
        tasks.progressed.connect(self._on_task_progressed)
        tasks.finished.connect(self._on_task_ended)
        tasks.errored.connect(self._on_task_errored)

    def _widgets(self) -> tuple[QLabel, QProgressBar, QPushButton]:
        return self.label, self.progress_bar, self.cancel_button

    def _on_task_started(self, label: str) -> None:
        self.label.setText(label)
        self.progress_bar.setRange(0, _FRACTION_STEPS)
        self.progress_bar.setFormat("%p%")
        self.progress_bar.setValue(0)
        for w in self._widgets():
            w.setVisible(True)

    def _on_task_progressed(self, value: object) -> None:
        unit = next((u for u in ("prompts", "requests") if isinstance(getattr(value, f"{u}_total", None), int)), None)
        if unit is not None:
            # a sampling run counts prompts, a probe requests: show the same count as the panel does
            total = int(getattr(value, f"{unit}_total"))
            done = int(getattr(value, f"{unit}_done", 0))
            self.progress_bar.setRange(0, max(1, total))
            self.progress_bar.setFormat(f"%v/%m {unit}")
            self.progress_bar.setValue(min(done, max(1, total)))
            message = getattr(value, "message", "")
            self.label.setText(f"{self.tasks.label}: {message}" if message and not done else self.tasks.label)
            return
        if isinstance(value, tuple) and len(value) == 2 and value[1]:
            value = value[0] / value[1]
        if isinstance(value, (int, float)):
            self.progress_bar.setRange(0, _FRACTION_STEPS)
            self.progress_bar.setFormat("%p%")
            self.progress_bar.setValue(int(max(0.0, min(1.0, float(value))) * _FRACTION_STEPS))
        elif isinstance(value, str):
            self.label.setText(f"{self.tasks.label}: {value}")

    def _on_task_ended(self, _result: object = None) -> None:
        for w in self._widgets():
            w.setVisible(False)

    def _on_task_errored(self, message: str) -> None:
        self._on_task_ended()
        if message.lower().startswith("cancelled"):
            self._show_message(f"{self.tasks.label}: cancelled", 8000)
            return

        self._show_message(f"{self.tasks.label} failed: {worded_error(message)}", 15000)
