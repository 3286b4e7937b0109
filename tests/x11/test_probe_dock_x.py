"""After a probe run on a 1366 x 768 X screen with a window manager, the probe dock's Apply is in sight without
scrolling (at 0516ae4 it sat 140 px below the dock's visible height)."""
from __future__ import annotations

import pytest

from tests.x11.xsession import App, ServeDemo, XServer, wait_until

pytestmark = pytest.mark.timeout(240)


def test_apply_is_in_sight_after_a_probe_run(tmp_path):
    with XServer(tmp_path, wm="openbox") as x, ServeDemo() as server, App(x, tmp_path) as app:
        assert app.ask(f"probe {server.base_url} 16 1")["started"]
        state = wait_until(lambda: (lambda s: s if not s["busy"] else None)(app.ask("state")), 150.0, "the run to end")
        app.ask("shot " + str(tmp_path / "probe.png"))
    assert state["apply_in_sight"]["visible"], state["apply_in_sight"]
