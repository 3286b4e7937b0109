"""Work around PySide6 6.12.0 on Python < 3.12: Qt calls drop references to None and True.

Measured here: each void call such as QPainter.drawLine or QWidget.resize lowers
sys.getrefcount(None) by one, and each Signal.emit lowers sys.getrefcount(True) by one,
so a process that paints charts for a while dies with "Fatal Python error: none_dealloc"
(or bool_dealloc). 6.11.3 does not do this, and from Python 3.12 on these singletons are
immortal, so the guard only acts on the affected combination. It gives None, True and
False a large reference surplus, which is harmless: they are never freed.
"""
from __future__ import annotations

import ctypes
import sys

_SURPLUS = 1 << 40


def guard_none_refcount() -> bool:
    """Apply the surplus once per process when needed; True if it was applied now."""
    if sys.version_info >= (3, 12) or getattr(sys, "_specledger_none_guard", False):
        return False
    import PySide6

    if not PySide6.__version__.startswith("6.12."):
        return False
    # CPython keeps the reference count in the first word of every object
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _SURPLUS
    sys._specledger_none_guard = True  # type: ignore[attr-defined]
    return True
