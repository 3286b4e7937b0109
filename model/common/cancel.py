"""Cooperative cancellation shared by the model loader, the speculative loop and the sampling run.

Long work in model/ checks a caller's flag between steps that cannot be
interrupted themselves (an onnxruntime call, a session creation) and raises
``Cancelled``; its own module so the loader and the loop can both raise it
without importing each other.
"""
from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any, Callable, TypeVar

Result = TypeVar("Result")

CancelFlag = Callable[[], bool] | None
# what a caller may pass to long work as its cancel: a flag to call, an Event the GUI sets, or nothing
CancelCheck = Callable[[], bool] | threading.Event | None


class Cancelled(Exception):
    """Raised between steps when the caller's cancel check says stop."""


def cancel_flag(cancel: CancelCheck) -> CancelFlag:
    """The flag to call between steps, from an Event (its is_set) or a callable; None for none."""
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def raise_if_cancelled(cancel: CancelFlag) -> None:
    if cancel is not None and cancel():
        raise Cancelled()


def run_to_end(gen: Generator[Any, None, Result], on_progress: Callable[[Any], None] | None = None) -> Result:
    """Drive a long-work generator to its return value, passing each progress event on."""
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            return stop.value
        if on_progress is not None:
            on_progress(event)
