"""Keep the app alive on PySide6 6.12.0 with Python < 3.12, which leaks references *from* None/True.

On that combination some void Qt calls and signal emissions decrement the
reference count of None / True / False without having incremented it; after a
few minutes of editing and painting CPython aborts with "none_dealloc". The
singletons are never meant to be freed, so giving them a huge surplus is
harmless. From Python 3.12 they are immortal and nothing is done.
"""
from __future__ import annotations

import ctypes
import sys

_SURPLUS = 1 << 40


def guard_singletons() -> bool:
    """Apply once per process where the bug exists; True when applied by this call."""
    if sys.version_info >= (3, 12) or getattr(sys, "_specledger_none_guard", False):
        return False
    import PySide6

    if not PySide6.__version__.startswith("6.12."):
        return False
    for singleton in (None, True, False):
        # CPython stores ob_refcnt in the first machine word of every object
        ctypes.c_ssize_t.from_address(id(singleton)).value += _SURPLUS
    sys._specledger_none_guard = True  # type: ignore[attr-defined]  # shared flag: the test helper checks it too
    return True
