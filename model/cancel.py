"""Cooperative cancellation shared by the model loader, the speculative loop and the sampling run.

Long work in model/ checks a caller's flag between steps that cannot be
interrupted themselves (an onnxruntime call, a session creation) and raises
``Cancelled``; its own module so the loader and the loop can both raise it
without importing each other.
"""
from __future__ import annotations

from typing import Callable

CancelFlag = Callable[[], bool] | None


class Cancelled(Exception):
    """Raised between steps when the caller's cancel check says stop."""


def raise_if_cancelled(cancel: CancelFlag) -> None:
    if cancel is not None and cancel():
        raise Cancelled()
