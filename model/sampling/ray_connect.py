"""Reaching Ray for a sampling run: the lazy import, joining a cluster or starting a local one, and Ray's
own failures (not installed, an address nobody answers, client and cluster on different versions) each
worded in one line.

Ray is an optional extra (``pip install -e '.[ray]'``) and is imported only here, when a run asks for it.
A local Ray (no address) is bound to loopback: Ray otherwise publishes its ports on the machine's network
address, and a measurement on one machine has no business listening on the network.
"""
from __future__ import annotations

import logging
import os
import re
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any

INSTALL_HINT = "pip install -e '.[ray]'"
# Ray's own switch (ray_constants.ENABLE_RAY_CLUSTER): off, a node takes 127.0.0.1 as its address and every
# Ray process listens on loopback only. Read when ray is imported, so it is set before the import.
_LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# seconds to open a TCP connection to the address before handing it to Ray, which would retry for minutes
CONNECT_TIMEOUT = 5.0


class RayError(ValueError):
    """Ray could not be used for the run; the message is one line saying why and what to do."""


def import_ray(local: bool) -> Any:
    """The ray module, or a one-line RayError naming the extra to install."""
    if local and "ray" not in sys.modules:
        os.environ.setdefault(_LOOPBACK_ONLY, "0")
    try:
        import ray
    except ImportError:
        raise RayError(f"Ray is not installed here (needed to run on a Ray cluster): {INSTALL_HINT}") from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of "ray://host:port" or "host:port"; None where Ray resolves the address itself."""
    text = address[len("ray://"):] if address.startswith("ray://") else address
    match = re.fullmatch(r"\[?([^\]/]+?)\]?:(\d{1,5})", text)
    return (match.group(1), int(match.group(2))) if match else None


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse, within `timeout`, an address where nothing accepts a connection (Ray itself waits minutes)."""
    target = _host_port(address)
    if target is None:
        if address.startswith("ray://"):
            raise RayError(f"--ray {address}: not an address Ray takes; give ray://HOST:PORT (the Ray Client "
                           "port, 10001 by default), HOST:PORT of the head node, or auto")
        return
    try:
        with socket.create_connection(target, timeout=timeout):
            pass
    except OSError as exc:
        why = "timed out" if isinstance(exc, socket.timeout) else (exc.strerror or type(exc).__name__).lower()
        raise RayError(f"the Ray cluster at {address} cannot be reached ({why} after at most {timeout:g} s); "
                       "check the address and that its port is open from this machine") from None


_VERSION = re.compile(r"started with:\s*Ray:\s*(\S+)\s*Python:\s*(\S+).*?started with:\s*Ray:\s*(\S+)\s*"
                      r"Python:\s*(\S+)", re.S)


def version_mismatch_words(text: str, address: str) -> str | None:
    """Ray's multi-line "Version mismatch" error as one line, or None when the text is not one."""
    if "version mismatch" not in text.lower():
        return None
    found = _VERSION.search(text)
    if not found:
        return f"Ray versions differ between this machine and the cluster at {address}; install the cluster's"
    ray_there, py_there, ray_here, py_here = found.groups()
    return (f"Ray client and cluster versions differ: the cluster at {address} runs Ray {ray_there} on Python "
            f"{py_there}, this machine Ray {ray_here} on Python {py_here}; Ray needs both the same "
            f"(here: pip install 'ray[default]=={ray_there}' on Python {py_there})")


def _check_auto(ray: Any) -> None:
    """"auto" is RAY_ADDRESS, else the cluster `ray start` last recorded on this machine, else a GCS process
    found running here. A record left by a cluster that has since stopped would have Ray retry for minutes,
    so the address it resolves to is tried first, as a given one is."""
    try:
        from ray._private.services import canonicalize_bootstrap_address  # where Ray 2.x resolves it
    except ImportError:
        return  # another Ray layout: ray.init will judge
    try:
        found = canonicalize_bootstrap_address("auto")
    except ConnectionError:
        raise RayError(_NO_CLUSTER) from None
    except Exception:  # a malformed RAY_ADDRESS: ray.init words it
        return
    if found:
        try:
            check_reachable(found)
        except RayError as exc:
            raise RayError(f"--ray auto: {exc} (the address Ray found for auto: RAY_ADDRESS, the last "
                           "`ray start` here, or a Ray running here)") from None


_NO_CLUSTER = ("--ray auto: no Ray cluster runs on this machine; start one (ray start --head) or give its address, "
               "ray://HOST:10001")


@dataclass
class RaySession:
    """A connection to Ray for one run; `started` when the run started (and so stops) Ray itself."""

    ray: Any
    address: str  # as the user gave it; "local" for a Ray started on this machine
    started: bool
    startup_seconds: float

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()


def connect(address: str | None, *, local_cpus: int | None = None, ship_code: bool | None = None) -> RaySession:
    """Join the cluster at `address` ("auto", "ray://host:10001", "host:6379"), or start a local Ray.

    A Ray this process already joined (a test's, a notebook's) is used as it is and left running.
    On a cluster the `model` package travels with the job (Ray's py_modules), so nodes need only the
    libraries it uses (numpy, onnxruntime, tokenizers), not SpecLedger installed at the same path.
    """
    ray = import_ray(local=address is None)
    where = address or "local"
    if address == "auto":
        _check_auto(ray)
    elif address is not None:
        check_reachable(address)
    if ray.is_initialized():
        return RaySession(ray, where, started=False, startup_seconds=0.0)
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address is None:
        kwargs.update(num_cpus=local_cpus, include_dashboard=False)
    else:
        kwargs["address"] = address
    if ship_code if ship_code is not None else address is not None:
        import model

        kwargs["runtime_env"] = {"py_modules": [model]}
    start = time.perf_counter()
    try:
        ray.init(**kwargs)
    except Exception as exc:  # Ray raises RuntimeError, ConnectionError, ValueError for these
        text = str(exc)
        words = version_mismatch_words(text, where)
        if words:
            raise RayError(words) from None
        if "Could not find any running Ray instance" in text:
            raise RayError(_NO_CLUSTER) from None
        if isinstance(exc, (ConnectionError, TimeoutError)):
            raise RayError(f"the Ray cluster at {where} cannot be reached ({_first_line(text)})") from None
        raise RayError(f"Ray could not start{'' if address is None else f' at {where}'}: "
                       f"{type(exc).__name__}: {_first_line(text)}") from None
    return RaySession(ray, where, started=True, startup_seconds=time.perf_counter() - start)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0][:300] if lines else "no reason given"


__all__ = ["CONNECT_TIMEOUT", "INSTALL_HINT", "RayError", "RaySession", "check_reachable", "connect", "import_ray",
           "version_mismatch_words"]
