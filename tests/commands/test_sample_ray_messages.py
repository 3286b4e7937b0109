"""`sample --ray`'s one-line refusals: no Ray installed, an address nobody answers, Ray client and cluster on
different versions, Ray flags without --ray. None of these starts a Ray."""
from __future__ import annotations

import argparse
import socket
import sys
import time

import pytest

from commands.sample import add_sample_arguments, run_sample_command
from model.sampling.ray_connect import RayError, check_reachable, version_mismatch_words


def _run(argv: list[str], capsys) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_sample_arguments(parser)
    code = run_sample_command(parser.parse_args(argv))
    return code, capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_without_ray_installed_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, err = _run(["--ray", "auto"], capsys)
    assert code == 2
    assert err == ("sample: error: Ray is not installed here (needed to run on a Ray cluster): "
                   "pip install -e '.[ray]'\n")


def test_an_address_nobody_answers_is_one_line_within_seconds(capsys):
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    import ray

    joined = ray.is_initialized()  # the session's test Ray, when a Ray test ran first
    port = _free_port()  # nothing listens on it
    start = time.monotonic()
    code, err = _run(["--ray", f"ray://127.0.0.1:{port}"], capsys)
    assert time.monotonic() - start < 20
    steps, last = err.splitlines()[:-1], err.splitlines()[-1]
    assert code == 2 and steps == [f"  connecting to Ray (ray://127.0.0.1:{port})"]
    assert last.startswith(f"sample: error: the Ray cluster at ray://127.0.0.1:{port} cannot be reached (")
    assert ray.is_initialized() == joined  # nothing was started


def test_auto_pointing_at_a_stopped_cluster_is_one_line_within_seconds(monkeypatch, capsys):
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    port = _free_port()  # as RAY_ADDRESS (or a record of a `ray start` since stopped) would give it
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    start = time.monotonic()
    code, err = _run(["--ray", "auto"], capsys)
    assert time.monotonic() - start < 20 and code == 2  # Ray itself would retry for minutes
    assert err.splitlines()[-1].startswith(f"sample: error: --ray auto: the Ray cluster at 127.0.0.1:{port} "
                                           "cannot be reached (")


def test_address_forms():
    with pytest.raises(RayError, match=r"not an address Ray takes"):
        check_reachable("ray://nohost")
    check_reachable("auto")  # Ray finds this machine's cluster itself
    with pytest.raises(RayError, match=r"cannot be reached"):
        check_reachable(f"127.0.0.1:{_free_port()}", timeout=2)


def test_version_mismatch_in_ray_own_words_becomes_one_line():
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    from ray._private.utils import check_version_info

    with pytest.raises(RuntimeError) as caught:  # the error Ray raises when a client meets another version
        check_version_info({"ray_version": "2.9.3", "python_version": "3.10.12"}, "Ray Client")
    words = version_mismatch_words(str(caught.value), "ray://head:10001")
    assert words is not None and "\n" not in words
    assert words.startswith("Ray client and cluster versions differ: the cluster at ray://head:10001 runs "
                            "Ray 2.9.3 on Python 3.10.12, this machine Ray ")
    assert words.endswith("(here: pip install 'ray[default]==2.9.3' on Python 3.10.12)")
    assert version_mismatch_words("Connection refused", "auto") is None


@pytest.mark.parametrize("argv, words", [
    (["--ray-workers", "2"], "--ray-workers only apply with --ray"),
    (["--ray-ship-models", "--ray-gpus-per-worker", "1"], "--ray-gpus-per-worker, --ray-ship-models only apply"),
    (["--ray", "--ray-workers", "0"], "--ray-workers must be from 1 to 4096 (got 0)"),
    (["--ray", "--ray-gpus-per-worker", "nan"], "--ray-gpus-per-worker must be from 0 to 64 (got nan)"),
])
def test_ray_flags_refused_in_one_line(argv, words, capsys):
    code, err = _run(argv, capsys)
    assert code == 2 and err.count("\n") == 1 and words in err


@pytest.mark.parametrize(("address", "words"), [
    ("", "--ray '': no address"), ("a" * 5000, "--ray: an address of 5,000 characters"),
    ("127.0.0.1:12 34", "holds a space or control character"), ("ray://", "not an address Ray takes")])
def test_an_address_no_cluster_can_have_is_one_line_before_ray_starts(capsys, address, words):
    start = time.monotonic()
    code, err = _run(["--ray", address], capsys)
    assert code == 2 and words in err and err.count("\n") == 1 and len(err) < 400, err
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("form", ["{}", "ray://{}"])
def test_a_port_that_answers_but_is_no_ray_is_one_line_within_seconds(capsys, form):
    """Something listens (here an HTTP/1 server that says nothing back to HTTP/2), so the TCP check passed and
    Ray retried for 821 s; the gRPC handshake tells it is no Ray within the connect timeout."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        address = form.format(f"127.0.0.1:{port}")
        code, err = _run(["--ray", address], capsys)
        assert time.monotonic() - start < 15
        assert code == 2 and "does not answer as Ray does" in err.splitlines()[-1], err
    finally:
        stop.set()
        thread.join(2)
        listener.close()
