"""The first start with no saved settings, on a real X server at 1366 x 768, with and without a window manager:
the whole window (its frame too) is on the screen (it opened at 1600 x 980, the charts, part of the
summary and the status bar off a laptop's screen; `screenshot --size` hid this, since it sizes the window). A size
saved on a larger screen is clamped to this one when the window opens again."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.x11.xsession import APP_ROOT, SCREEN, App, XServer, app_env, stop, wait_until

pytestmark = pytest.mark.timeout(180)


def _inside(rect: tuple[int, int, int, int]) -> bool:
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= SCREEN[0] and y + h <= SCREEN[1]


def _start_specledger(x: XServer, home) -> tuple[subprocess.Popen, int]:  # noqa: ANN001
    with open(home / "main.stderr", "w") as stderr:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([sys.executable, str(APP_ROOT / "main.py")], cwd=home, env=app_env(x, home),
                                stdout=subprocess.DEVNULL, stderr=stderr)
    found = wait_until(lambda: x.xdotool("search", "--onlyvisible", "--name", "SpecLedger").split(), 60.0,
                       "the window to be mapped")
    return proc, int(found[0])


def _settled_rect(x: XServer, wid: int) -> tuple[int, int, int, int]:
    """The window's outer rectangle once it stops moving (the app fits its frame 300 ms after showing)."""
    seen: list[tuple[int, int, int, int]] = []

    def steady() -> bool:
        seen.append(x.window_rect(wid))
        return len(seen) >= 6 and len(set(seen[-6:])) == 1
    wait_until(steady, 20.0, "the window to settle", interval=0.25)
    return seen[-1]


def _start_and_measure(x: XServer, home) -> tuple[int, int, int, int]:  # noqa: ANN001
    """`specledger` started as a user starts it; its window's outer rectangle once settled; then closed."""
    proc, wid = _start_specledger(x, home)
    try:
        return _settled_rect(x, wid)
    finally:
        stop(proc)


@pytest.mark.parametrize("wm", [None, "openbox"], ids=["no window manager", "openbox"])
def test_the_first_start_opens_inside_a_1366x768_screen(tmp_path, wm):
    with XServer(tmp_path, wm=wm) as x:
        rect = _start_and_measure(x, tmp_path)
    assert _inside(rect), f"window (frame included) at {rect} on a {SCREEN[0]} x {SCREEN[1]} screen"
    # and it uses the screen: not a small window in a corner
    assert rect[2] >= SCREEN[0] - 60 and rect[3] >= SCREEN[1] - 80, rect


@pytest.mark.parametrize("wm", [None, "openbox"], ids=["no window manager", "openbox"])
def test_a_size_saved_larger_than_the_screen_is_clamped_on_the_next_start(tmp_path, wm):
    with XServer(tmp_path, wm=wm) as x:
        with App(x, tmp_path) as app:
            # the window made larger than this screen (as on a monitor), then closed: that size is saved
            x.xdotool("windowsize", str(app.wid), "1600", "980")
            wait_until(lambda: app.ask("state")["geometry"][2] >= 1500, 10.0, "the window to grow")
        rect = _start_and_measure(x, tmp_path)
    assert _inside(rect), f"window (frame included) at {rect} on a {SCREEN[0]} x {SCREEN[1]} screen"
