"""The dock's words about an edit it made (Apply, Save endpoint), kept true through the window's undo and redo.

'Applied the probe to tier X' stayed on screen after Ctrl+Z undid the apply; an AppliedStep knows the undo
command its edit pushed and says, from where the undo stack stands, whether the edit is in effect now.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

DONE, UNDONE, GONE = "done", "undone", "gone"
TIER = "{tier}"  # in the words: the tier's name as it is now (AppliedStep.tier)


@dataclass
class AppliedStep:
    """An edit the dock pushed: its command, the words while it is in effect and after an undo. The command is
    held weakly: the stack owns it, and a strong reference from here crashed the garbage collector after the
    stack had deleted it (tests/gui/probe, test_after_apply then test_probe_binding)."""

    command: "weakref.ref[QUndoCommand]"
    done_words: str
    undone_words: str
    kind: str = ""  # what the edit was ("apply", "endpoint"), for what else follows it
    state: str = DONE
    tier: Callable[[], str] | None = None  # the edited tier's name now, for TIER in the words

    @classmethod
    def last_of(cls, stack: QUndoStack, done_words: str, undone_words: str, kind: str = "",
                tier: Callable[[], str] | None = None) -> "AppliedStep":
        """The step the last push made (the one just below the stack's index)."""
        return cls(weakref.ref(stack.command(stack.index() - 1)), done_words, undone_words, kind, tier=tier)

    @property
    def in_effect(self) -> bool:
        return self.state == DONE

    def follow(self, stack: QUndoStack) -> bool:
        """Update ``state`` from ``stack``; True when it changed. A command no longer in the stack (undone then
        replaced by another edit, or past the undo limit) keeps its last state: an undone edit stays undone, and
        one that fell off the undo limit is still in effect."""
        mine = self.command()
        where = None if mine is None else next((i for i in range(stack.count()) if stack.command(i) is mine), None)
        now = GONE if where is None else (DONE if where < stack.index() else UNDONE)
        if now == GONE or now == self.state:
            return False
        self.state = now
        return True

    def words(self) -> str:
        text = self.done_words if self.state == DONE else self.undone_words
        return text.replace(TIER, self.tier()) if self.tier is not None else text
