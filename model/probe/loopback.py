"""An ASGI app served by uvicorn on a thread, bound to 127.0.0.1 only: serve-demo's server and the tests'."""
from __future__ import annotations

import time
from typing import Any


class LoopbackServer:
    """Runs an ASGI app with uvicorn in a thread on 127.0.0.1 (port 0: a free one); for serve-demo and tests."""

    def __init__(self, app: Any, port: int = 0, log_level: str = "warning") -> None:
        self.app, self.port, self.log_level = app, port, log_level
        self._server: Any = None
        self._thread: Any = None
        self._socket: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 10.0) -> "LoopbackServer":
        import socket
        import threading

        import uvicorn

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", self.port))  # loopback only, whatever the caller passes
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(self.app, log_level=self.log_level, lifespan="off", access_log=False,
                                timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name=f"demo-server-{self.port}", daemon=True)
        self._thread.start()
        end = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > end:
                self.stop()
                raise RuntimeError(f"the demo server did not start on 127.0.0.1:{self.port}")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._socket is not None:
            self._socket.close()

    def request_stop(self) -> None:
        """Ask the server to finish (safe from a signal handler); wait() then returns."""
        if self._server is not None:
            self._server.should_exit = True

    def wait(self) -> None:
        """Block until the server stops (Ctrl+C in serve-demo)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(0.5)

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
