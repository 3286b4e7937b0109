"""Runs one long model-side job at a time on a worker thread, with progress and cancel.

A job is a callable taking a `threading.Event` (the cancel flag) and returning a
generator: it yields progress values (anything: a fraction, a (done, total)
tuple, a message) and checks the flag between steps; its `return` value is the
result. The model stays Qt-free; this class turns that protocol into signals
delivered on the GUI thread.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

Job = Callable[[threading.Event], Generator[Any, None, Any]]

# errors whose own message is already written for the user: the class name adds nothing
_WORDED_ERRORS = ("ModelLoadError", "VocabularyMismatch", "PromptFileError", "WorkbookError", "ValueError",
                  "FileNotFoundError")


def worded_error(message: str) -> str:
    """A worker's "ClassName: message" without the class name, where the message speaks for itself."""
    kind, sep, rest = message.partition(": ")
    return rest if sep and kind in _WORDED_ERRORS else message


class _JobThread(QThread):
    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, job: Job, cancel: threading.Event) -> None:
        super().__init__()
        self._job = job
        self._cancel = cancel

    def run(self) -> None:  # runs on the worker thread
        try:
            generator = self._job(self._cancel)
            while True:
                try:
                    value = next(generator)
                except StopIteration as stop:
                    # a job that noticed the flag and returned early was cancelled, not finished
                    if self._cancel.is_set():
                        self.failed.emit("cancelled")
                    else:
                        self.succeeded.emit(stop.value)
                    return
                self.progressed.emit(value)
                if self._cancel.is_set():
                    generator.close()  # lets the job's finally blocks release files/sessions
                    self.failed.emit("cancelled")
                    return
        except Exception as exc:  # the GUI shows it; the thread must not die silently
            self.failed.emit(f"{exc.__class__.__name__}: {exc}" if str(exc) else exc.__class__.__name__)


class TaskRunner(QObject):
    """One task at a time. Signals arrive on the thread that owns the runner (the GUI thread)."""

    started = Signal(str)  # the task's label
    progressed = Signal(object)
    finished = Signal(object)  # the job's return value
    errored = Signal(str)  # an error message, or "cancelled"

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: _JobThread | None = None
        self._cancel = threading.Event()
        self.label = ""

    def is_busy(self) -> bool:
        return self._thread is not None

    def start(self, label: str, job: Job) -> bool:
        """Start `job`; returns False (and starts nothing) while another task runs."""
        if self._thread is not None:
            return False
        self._cancel = threading.Event()
        self.label = label
        thread = _JobThread(job, self._cancel)
        thread.progressed.connect(self.progressed)
        thread.succeeded.connect(self._on_thread_succeeded)
        thread.failed.connect(self._on_thread_failed)
        self._thread = thread
        thread.start()
        self.started.emit(label)
        return True

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Cancel and block until the worker has stopped (window close, test teardown)."""
        thread = self._thread
        if thread is None:
            return True
        self._cancel.set()
        done = thread.wait(timeout_ms)
        self._release()
        return bool(done)

    def _release(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.wait()
            thread.deleteLater()

    def _is_stale(self) -> bool:
        # a result queued before wait() released the thread must not be reported afterwards
        return self.sender() is not self._thread

    def _on_thread_succeeded(self, result: object) -> None:
        if self._is_stale():
            return
        self._release()
        self.finished.emit(result)

    def _on_thread_failed(self, message: str) -> None:
        if self._is_stale():
            return
        self._release()
        self.errored.emit(message)
