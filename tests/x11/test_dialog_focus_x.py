"""After a dialog closes, the keyboard is the main window's again, with a window manager and without one: the
test closes the dialog with the keyboard, presses Ctrl+S through the X server and checks the file was written.
Without a window manager X left the focus nowhere until a click, and the Ctrl+S was lost (the title's '*' that
would have said so has no title bar to show in)."""
from __future__ import annotations

import json

import pytest

from tests.x11.xsession import App, XServer, wait_until

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("dialog", ["settings", "about"])
@pytest.mark.parametrize("wm", [None, "openbox"], ids=["no window manager", "openbox"])
def test_ctrl_s_after_a_dialog_saves(tmp_path, wm, dialog):
    path = tmp_path / "book.json"
    with XServer(tmp_path, wm=wm) as x, App(x, tmp_path / "home") as app:
        assert app.ask(f"save-to {path}")["saved"]
        x.xdotool("windowactivate" if wm else "windowfocus", "--sync", str(app.wid))
        app.ask(f"edit-title Typed before the {dialog} dialog")
        app.ask(f"dialog {dialog}")
        up = wait_until(lambda: app.ask("dialogs")["dialogs"] or None, 20.0, "the dialog to show")
        wid = up[0]["wid"]
        # the dialog has the keyboard (as a user who opened it from the menu finds it), and Escape closes it
        x.xdotool("windowactivate" if wm else "windowfocus", "--sync", str(wid))
        x.xdotool("key", "Escape")
        wait_until(lambda: not app.ask("dialogs")["dialogs"], 20.0, "the dialog to close")
        wait_until(lambda: app.ask("state")["active"] or None, 10.0, "the main window to be active again")
        x.xdotool("key", "ctrl+s")
        wait_until(lambda: "Typed before" in path.read_text() or None, 10.0, "Ctrl+S to write the file")
    assert json.loads(path.read_text())["title"] == f"Typed before the {dialog} dialog"
