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
import shutil
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

INSTALL_HINT = "pip install -e '.[ray]'"
# Ray's own switch (ray_constants.ENABLE_RAY_CLUSTER): off, a node takes 127.0.0.1 as its address and every
# Ray process listens on loopback only. Read when ray is imported, so it is set before the import.
_LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# seconds to open a TCP connection to the address before handing it to Ray, which would retry for minutes
CONNECT_TIMEOUT = 5.0
# seconds ray.init may take to join a cluster whose address answered (a job's runtime env is packed and sent then)
INIT_TIMEOUT = 120.0


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


MAX_ADDRESS = 300  # a host name is at most 253 characters; with a scheme and a port, well under this
_HOW = "give ray://HOST:PORT (the Ray Client port, 10001 by default), HOST:PORT of the head node, or auto"


def check_address(address: str) -> None:
    """Refuse, before anything starts, an address no cluster can have: empty, too long, a space or a control
    character in it, or not one of Ray's forms."""
    if not address.strip():
        raise RayError(f"--ray '': no address; {_HOW}, or --ray alone for a Ray on this machine")
    if len(address) > MAX_ADDRESS:
        raise RayError(f"--ray: an address of {len(address):,} characters ({address[:40]!r}...); "
                       f"at most {MAX_ADDRESS}; {_HOW}")
    if any(ord(c) < 0x21 or 0x7F <= ord(c) <= 0x9F for c in address):
        raise RayError(f"--ray {address[:60]!r}: holds a space or control character; {_HOW}")
    if address != "auto" and _host_port(address) is None:
        raise RayError(f"--ray {address[:60]}: not an address Ray takes; {_HOW}")


# HTTP/2's client preface and an empty SETTINGS frame: a gRPC server (Ray's GCS, its client server) answers with
# a SETTINGS frame of its own; anything else (an HTTP/1 server, a silent port) is not Ray
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse, within about twice `timeout`, an address where nothing accepts a connection, or where what accepts
    it does not speak gRPC as every Ray endpoint does (Ray itself retries such an address for minutes)."""
    target = _host_port(address)
    if target is None:
        if address.startswith("ray://"):
            raise RayError(f"--ray {address}: not an address Ray takes; {_HOW}")
        return
    try:
        with socket.create_connection(target, timeout=timeout) as conn:
            answer = _grpc_answer(conn, timeout)
    except OSError as exc:
        why = "timed out" if isinstance(exc, socket.timeout) else (exc.strerror or type(exc).__name__).lower()
        raise RayError(f"the Ray cluster at {address} cannot be reached ({why} after at most {timeout:g} s); "
                       "check the address and that its port is open from this machine") from None
    if not answer:
        raise RayError(f"--ray {address}: something listens there but does not answer as Ray does (no gRPC within "
                       f"{timeout:g} s); check the port: {_HOW}")


def _grpc_answer(conn: socket.socket, timeout: float) -> bool:
    """Whether the peer answers HTTP/2's preface with a SETTINGS frame within `timeout` seconds."""
    conn.settimeout(timeout)
    try:
        conn.sendall(_H2_PREFACE)
        head = b""
        deadline = time.monotonic() + timeout
        while len(head) < 9 and time.monotonic() < deadline:
            chunk = conn.recv(9 - len(head))
            if not chunk:
                break
            head += chunk
    except OSError:
        return False
    return len(head) == 9 and head[3] == 0x04  # frame type 4: SETTINGS


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

    session_dir: str | None = None  # the session folder a Ray started here wrote (under TMPDIR): removed on close

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()
        if self.started and self.session_dir and self.address == "local":
            shutil.rmtree(self.session_dir, ignore_errors=True)
            latest = os.path.join(os.path.dirname(self.session_dir), "session_latest")
            if os.path.islink(latest) and not os.path.exists(latest):  # Ray's link to the folder just removed
                os.unlink(latest)


def connect(address: str | None, *, local_cpus: int | None = None, ship_code: bool | None = None) -> RaySession:
    """Join the cluster at `address` ("auto", "ray://host:10001", "host:6379"), or start a local Ray.

    A Ray this process already joined (a test's, a notebook's) is used as it is and left running.
    On a cluster the `model` package travels with the job (Ray's py_modules), so nodes need only the
    libraries it uses (numpy, onnxruntime, tokenizers), not SpecLedger installed at the same path.
    """
    # a head on loopback is joined as a local one is: off, Ray rewrites 127.0.0.1 to the machine's address,
    # where a loopback-only head does not listen, and retries that for minutes
    ray = import_ray(local=address is None or on_loopback(address))
    where = address or "local"
    if address is not None:
        check_address(address)
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

        # the package's folder, not the module: a ray:// client pickles the runtime env, and a module object
        # cannot be pickled ("Failed to apply UV runtime env hook ... cannot pickle 'module' object")
        kwargs["runtime_env"] = {"py_modules": [os.path.dirname(os.path.abspath(model.__file__))]}
    if address is not None:
        _client_token()
    start = time.perf_counter()
    try:
        _init_within(ray, kwargs, where, INIT_TIMEOUT if address is not None else None)
    except RayError:
        raise
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
    return RaySession(ray, where, started=True, startup_seconds=time.perf_counter() - start,
                      session_dir=_session_dir(ray) if address is None else None)


def on_loopback(address: str) -> bool:
    """Whether `address` names this machine's loopback (a head joined as a local Ray is, see connect)."""
    target = _host_port(address)
    return target is not None and (target[0] in ("localhost", "::1") or target[0].startswith("127."))


def _client_token() -> None:
    """A driver joining a cluster sends the cluster's token only in token mode, which Ray 2.5x+ switches on for a
    driver that starts a cluster but not for one that joins (ray:// or HOST:PORT): where a token is at hand (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH,
    ~/.ray/auth_token) and no mode is set, token mode is switched on, as Ray does for its own drivers, or every
    call is refused ("Authentication required") and ends in a connection timeout."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available)
    except ImportError:  # a Ray without token authentication
        return
    said = logging.getLogger(maybe_enable_token_auth_if_token_available.__module__)
    level = said.level
    said.setLevel(logging.ERROR)  # its "token authentication is enabled" warning is not the analyst's business
    try:
        maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    except Exception:  # a token file Ray cannot read: ray.init says what it says
        pass
    finally:
        said.setLevel(level)


def _init_within(ray: Any, kwargs: dict[str, Any], where: str, limit: float | None) -> None:
    """ray.init, given at most `limit` seconds to join a cluster: Ray retries an address it cannot use for many
    minutes (821 s measured for a port that was no Ray), so the wait is bounded here, not by Ray."""
    if limit is None:
        ray.init(**kwargs)
        return
    outcome: list[BaseException | None] = []

    def join() -> None:
        try:
            ray.init(**kwargs)
            outcome.append(None)
        except BaseException as exc:  # handed to the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=join, name="ray-init", daemon=True)
    worker.start()
    worker.join(limit)
    if not outcome:
        raise RayError(f"Ray did not join the cluster at {where} within {limit:g} s; check that the address is the "
                       f"head's ({_HOW})")
    if outcome[0] is not None:
        raise outcome[0]


def _session_dir(ray: Any) -> str | None:
    """The session folder of the Ray this process started (Ray 2.x keeps it on its node object)."""
    try:
        node = ray._private.worker._global_node
        return str(node.get_session_dir_path()) if node is not None else None
    except Exception:  # another Ray layout: the folder stays, as before
        return None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0][:300] if lines else "no reason given"


__all__ = ["CONNECT_TIMEOUT", "INSTALL_HINT", "RayError", "RaySession", "check_address", "check_reachable", "connect",
           "import_ray", "on_loopback", "version_mismatch_words"]
