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

from PySide6.QtCore import QObject, QTimer, Signal

Job = Callable[[threading.Event], Generator[Any, None, Any]]

# errors whose own message is already written for the user: the class name adds nothing
_WORDED_ERRORS = ("ModelLoadError", "ModelOutputError", "VocabularyMismatch", "PromptFileError", "WorkbookError",
                  "ValueError", "FileNotFoundError", "FileRefused", "RayError")


def worded_error(message: str) -> str:
    """A worker's "ClassName: message" without the class name, where the message speaks for itself."""
    kind, sep, rest = message.partition(": ")
    return rest if sep and kind in _WORDED_ERRORS else message


# how long Cancel waits for a job to notice its flag before the runner stops waiting for it; a job stuck
# inside one call (a read that blocks, a session being created) cannot check the flag at all
CANCEL_GRACE_MS = 3_000


class _JobThread(QObject):
    """One job on a daemon Python thread, reporting through signals (queued to the runner's thread).

    A daemon thread, not a QThread: a job stuck where it cannot check its cancel flag can be abandoned,
    and the process still exits when the window closes (a QThread destroyed while running aborts it).
    """

    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, job: Job, cancel: threading.Event, label: str) -> None:
        super().__init__()
        self._job = job
        self._cancel = cancel
        self._thread = threading.Thread(target=self.run, name=f"specledger worker: {label}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wait(self, timeout_ms: int) -> bool:
        self._thread.join(max(0, timeout_ms) / 1000)
        return not self._thread.is_alive()

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
    """One task at a time. Signals arrive on the thread that owns the runner (the GUI thread).

    Cancel sets the job's flag; a job that has not stopped CANCEL_GRACE_MS later is abandoned: the runner
    reports it cancelled and is free again, and the stuck thread's late results are ignored.
    """

    started = Signal(str)  # the task's label
    progressed = Signal(object)
    finished = Signal(object)  # the job's return value
    errored = Signal(str)  # an error message, or "cancelled"
    abandoned = Signal(str)  # the label of a task that did not stop when asked and was left behind

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: _JobThread | None = None
        self._cancel = threading.Event()
        self.label = ""
        self._grace = QTimer(self)
        self._grace.setSingleShot(True)
        self._grace.setInterval(CANCEL_GRACE_MS)
        self._grace.timeout.connect(self._on_grace_timeout)

    def is_busy(self) -> bool:
        return self._thread is not None

    def start(self, label: str, job: Job) -> bool:
        """Start `job`; returns False (and starts nothing) while another task runs."""
        if self._thread is not None:
            return False
        self._cancel = threading.Event()
        self.label = label
        thread = _JobThread(job, self._cancel, label)
        thread.progressed.connect(self._on_thread_progressed)
        thread.succeeded.connect(self._on_thread_succeeded)
        thread.failed.connect(self._on_thread_failed)
        self._thread = thread
        thread.start()
        self.started.emit(label)
        return True

    def cancel(self) -> None:
        self._cancel.set()
        if self._thread is not None and not self._grace.isActive():
            self._grace.start()

    def wait(self, timeout_ms: int = 5_000) -> bool:
        """Cancel and wait at most `timeout_ms` for the worker (window close, test teardown).

        True if it stopped; False if it was stuck and has been abandoned (it runs on as a daemon thread,
        its results ignored, and ends with the process).
        """
        thread = self._thread
        if thread is None:
            return True
        self._cancel.set()
        done = thread.wait(timeout_ms)
        if not done:
            self.abandoned.emit(self.label)
        self._release()
        return done

    def _release(self) -> None:
        self._grace.stop()
        thread, self._thread = self._thread, None
        # a thread still running keeps its emitter (its target holds it) until it ends: deleting the Qt
        # object under it would make its last emit raise on that thread
        if thread is not None and thread.wait(0):
            thread.deleteLater()

    def _is_stale(self) -> bool:
        # a result queued before wait() released the thread, or from an abandoned one, is not reported
        return self.sender() is not self._thread

    def _on_grace_timeout(self) -> None:
        if self._thread is None:
            return
        label = self.label
        self._release()
        self.abandoned.emit(label)
        self.errored.emit("cancelled (the task did not stop in time; it was left to finish in the background)")

    def _on_thread_progressed(self, value: object) -> None:
        if not self._is_stale():
            self.progressed.emit(value)

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
