"""Dialogs opened and closed with the keyboard only (Ctrl+O's file dialog, Ctrl+-'s delete question, closed with
Escape, nothing focused by xdotool on the way): X's focus comes back to the main window and Ctrl+S typed through
the X server next saves the workbook, with and without a window manager (gui/window/dialog_focus.py; before it,
without a window manager both saves were lost). tests/x11/test_dialog_focus_x.py tries the menu's dialogs."""
from __future__ import annotations

import pytest

from tests.x11.xsession import App, XServer, wait_until

pytestmark = pytest.mark.timeout(180)
# each opens a dialog with a key and closes it with Escape: the Open file dialog, the delete rows question
DIALOGS = {"Open (Ctrl+O)": "ctrl+o", "Delete rows (Ctrl+-)": "ctrl+minus"}


def _focus(x: XServer) -> int:
    return int(x.xdotool("getwindowfocus", "-f").strip() or 0)


def _dialog_has_focus(x: XServer, app: App) -> bool:
    shown = {int(w) for w in x.xdotool("search", "--onlyvisible", "--pid", str(app.pid)).split()}
    return len(shown) > 1 and _focus(x) in shown - {app.wid}


@pytest.mark.parametrize("wm", [None, "openbox"], ids=["no window manager", "openbox"])
def test_ctrl_s_after_a_keyboard_opened_dialog_saves(tmp_path, wm):
    saved = tmp_path / "day.json"
    written: dict[str, bool] = {}
    with XServer(tmp_path, wm=wm) as x, App(x, tmp_path) as app:
        assert app.ask(f"save-to {saved}")["saved"]
        app.ask("cell tiers 2")  # a tier row current, as after a click on it (Delete rows asks about it)
        for name, key in DIALOGS.items():
            # the window has the keyboard before each dialog (as after a click), so each dialog is tried alone
            x.xdotool("windowactivate" if wm else "windowfocus", "--sync", str(app.wid))
            saved.unlink(missing_ok=True)
            x.xdotool("key", key)
            # the dialog is up and has the keyboard: X's focus is on a mapped window of the app, not the main one
            wait_until(lambda: _dialog_has_focus(x, app), 20.0, f"{name}'s dialog to have the keyboard")
            x.xdotool("key", "Escape")
            wait_until(lambda: len(x.xdotool("search", "--onlyvisible", "--pid", str(app.pid)).split()) == 1, 20.0,
                       f"{name}'s dialog to close")
            # X's focus back on the main window (a person types on after a moment; xdotool would beat the app to
            # it), then Ctrl+S: without the focus given back it never comes, and the key goes to the root window
            try:
                wait_until(lambda: _focus(x) == app.wid, 5.0, f"the keyboard back after {name}")
            except AssertionError:
                pass
            x.xdotool("key", "ctrl+s")
            try:
                wait_until(saved.exists, 5.0, f"Ctrl+S after {name}")
                written[name] = True
            except AssertionError:
                written[name] = False
            app.ask("shot " + str(tmp_path / f"after-{key}.png"))
    assert written == {name: True for name in DIALOGS}, f"{written}: False is a Ctrl+S lost after that dialog"
