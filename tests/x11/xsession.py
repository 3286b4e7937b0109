"""A real X server for the window's tests: Xvfb at a laptop's 1366 x 768, optionally a window manager, the app
in a process of its own with no saved settings, and xdotool for real X input (keys typed through the X server,
as a user's are, not QTest's events handed straight to a widget).

Outside CI a missing Xvfb, xdotool or window manager skips these tests with the package to install; under CI
(``CI`` set, as .ci/run does) it fails them, so the X tests can never pass there by not running.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT

SCREEN = (1366, 768)
# the tree whose app the tests start: this one; pointed at an old checkout it shows which tests fail there
APP_ROOT = Path(os.environ.get("SPECLEDGER_X_APP_ROOT", str(ROOT)))
_PACKAGES = {"Xvfb": "xvfb", "xdotool": "xdotool", "openbox": "openbox", "xwininfo": "x11-utils", "xprop": "x11-utils"}


def need(*binaries: str) -> None:
    missing = [b for b in binaries if shutil.which(b) is None]
    if not missing:
        return
    words = f"needs {', '.join(missing)} (apt-get install {' '.join(sorted({_PACKAGES[b] for b in missing}))})"
    if os.environ.get("CI"):
        pytest.fail(f"CI: the real-X tests {words}; .ci/run installs them")
    pytest.skip(words)


def _run(args: list[str], display: str, timeout: float = 10.0) -> str:
    out = subprocess.run(args, env={**os.environ, "DISPLAY": display}, capture_output=True, text=True,
                         timeout=timeout, check=True)
    return out.stdout


class XServer:
    """Xvfb on a display it picks itself (-displayfd: no race with another test run for a number)."""

    def __init__(self, tmp: Path, wm: str | None = None, size: tuple[int, int] = SCREEN) -> None:
        self.tmp, self.wm, self.size = tmp, wm, size
        self.display = ""
        self._procs: list[subprocess.Popen[Any]] = []

    def __enter__(self) -> "XServer":
        need("Xvfb", "xdotool", "xwininfo", "xprop", *([self.wm] if self.wm else []))
        read, write = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{self.size[0]}x{self.size[1]}x24",
                                 "-nolisten", "tcp", "-noreset"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self._procs.append(xvfb)
        os.close(write)
        try:
            number = _read_line(read, 15.0)
        finally:
            os.close(read)
        if not number.strip().isdigit():
            self.__exit__()
            raise RuntimeError(f"Xvfb did not start (said {number!r})")
        self.display = f":{number.strip()}"
        if self.wm:
            self._procs.append(subprocess.Popen([self.wm], env=self.env(), stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL))
            # the window manager is up once it has set its check window on the root (EWMH)
            wait_until(lambda: "window id" in self.xprop_root("_NET_SUPPORTING_WM_CHECK"), 15.0, "the window manager")
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self._procs):
            stop(proc)


    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display, **extra}

    def xprop_root(self, prop: str) -> str:
        return _run(["xprop", "-root", prop], self.display)

    def xdotool(self, *args: str, timeout: float = 20.0) -> str:
        return _run(["xdotool", *args], self.display, timeout)

    def drag(self, start: tuple[int, int], end: tuple[int, int], steps: int = 12) -> None:
        """A mouse drag with the left button, through a few points on the way, as a hand moves."""
        self.xdotool("mousemove", "--sync", str(start[0]), str(start[1]))
        self.xdotool("mousedown", "1")
        for i in range(1, steps + 1):
            self.xdotool("mousemove", "--sync", str(start[0] + (end[0] - start[0]) * i // steps),
                         str(start[1] + (end[1] - start[1]) * i // steps))
            time.sleep(0.01)
        self.xdotool("mouseup", "1")

    def window_rect(self, wid: int) -> tuple[int, int, int, int]:
        """The window's outer rectangle on the screen as X has it: the client's, plus the frame the window
        manager put around it (_NET_FRAME_EXTENTS: left, right, top, bottom)."""
        info = _run(["xwininfo", "-id", str(wid)], self.display)
        field = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in info.splitlines()) if v}
        x, y = int(field["Absolute upper-left X"]), int(field["Absolute upper-left Y"])
        w, h = int(field["Width"]), int(field["Height"])
        extents = _run(["xprop", "-id", str(wid), "_NET_FRAME_EXTENTS"], self.display)
        left = right = top = bottom = 0
        if "=" in extents:
            left, right, top, bottom = (int(v) for v in extents.split("=", 1)[1].split(","))
        return x - left, y - top, w + left + right, h + top + bottom

def _read_line(fd: int, timeout: float) -> str:
    import select
    data = b""
    end = time.monotonic() + timeout
    while not data.endswith(b"\n") and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace")


def wait_until(condition: Any, timeout: float, what: str, interval: float = 0.05) -> Any:
    end = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            value = None
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def stop(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def app_env(x: XServer, home: Path) -> dict[str, str]:
    """The app's environment on ``x``: a fresh HOME and config folder, so no saved settings exist."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    return x.env(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
                 XDG_RUNTIME_DIR=str(home / "runtime"), QT_QPA_PLATFORM="xcb", PYTHONPATH=str(APP_ROOT),
                 PYTHONDONTWRITEBYTECODE="1")


class ServeDemo:
    """`main.py serve-demo` in a process of its own on 127.0.0.1, a free port; base_url once it listens."""

    def __init__(self, *args: str) -> None:
        self.args = args
        self.base_url = ""
        self._proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> "ServeDemo":
        # its log goes to a file: a pipe nobody reads fills up and stops the server mid-run
        self._log = tempfile.NamedTemporaryFile("w+", prefix="serve-demo-", suffix=".log")
        self._proc = subprocess.Popen([sys.executable, str(APP_ROOT / "main.py"), "serve-demo", "--port", "0", *self.args],
                                      cwd=APP_ROOT, env={**os.environ, "PYTHONPATH": str(APP_ROOT)},
                                      stdout=subprocess.DEVNULL, stderr=self._log, text=True)

        def listening() -> str:
            found = re.search(r" at (http://127\.0\.0\.1:\d+)", Path(self._log.name).read_text())
            if self._proc is not None and self._proc.poll() is not None:
                raise AssertionError(f"serve-demo exited: {Path(self._log.name).read_text()[-1000:]}")
            return found.group(1) if found else ""
        try:
            self.base_url = wait_until(listening, 90.0, "serve-demo to listen")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            stop(self._proc, 10.0)
        self._log.close()


class App:
    """The window in a process of its own on ``x`` (tests/x11/app_driver.py: the app as `specledger` starts it,
    and a line protocol on stdin/stdout to set up a run and read what the window shows)."""

    def __init__(self, x: XServer, home: Path) -> None:
        self.x, self.home = x, home
        self._proc: subprocess.Popen[str] | None = None
        self.wid = 0

    def __enter__(self) -> "App":
        self.home.mkdir(parents=True, exist_ok=True)
        self._stderr = open(self.home / "app.stderr", "w")
        self._proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "x11" / "app_driver.py")], cwd=self.home,
                                      env=app_env(self.x, self.home), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, text=True)
        ready = self._reply(60.0)
        self.wid = int(ready["winid"])
        # the window is mapped and X has its geometry: the real window, not a widget off screen
        wait_until(lambda: self.x.xdotool("search", "--onlyvisible", "--name", "SpecLedger").split(), 20.0,
                   "the window to be mapped")
        return self

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    def ask(self, command: str, timeout: float = 20.0) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        return self._reply(timeout)

    def _reply(self, timeout: float) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdout is not None
        line = _read_line(self._proc.stdout.fileno(), timeout)
        if not line.strip():
            raise AssertionError(f"the app did not answer within {timeout:g} s; its stderr: "
                                 f"{(self.home / 'app.stderr').read_text()[-2000:]}")
        return json.loads(line)

    def __exit__(self, *exc: object) -> None:
        if self._proc is None:
            return
        try:
            if self._proc.poll() is None:
                self.ask("quit", 30.0)
                self._proc.wait(30)
        except (AssertionError, OSError, ValueError, subprocess.TimeoutExpired):
            pass
        finally:
            stop(self._proc)
            self._stderr.close()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
