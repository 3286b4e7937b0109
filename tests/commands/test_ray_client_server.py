"""`sample --ray ray://HOST:PORT`, the documented laptop form, against a real Ray Client server on loopback
(`ray start --head --block` in its own process group, killed by its id at the end), and a local Ray run leaving
no session folder in TMPDIR. Slow (Ray takes tens of seconds to start on a shared machine): bounded per test."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")

pytestmark = pytest.mark.timeout(400)
ROOT = Path(__file__).resolve().parents[2]
# no usage report to Ray's servers, no dashboard, loopback only: nothing leaves the machine
QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def _short_dir(prefix: str) -> Path:
    """A folder with a short path: Ray's socket paths under it must stay within AF_UNIX's 107 bytes."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


@pytest.fixture(scope="module")
def client_server():
    temp = _short_dir("slr")
    gcs, client = _free_port(), _free_port()
    ray_cli = Path(sys.executable).parent / "ray"
    log = (temp / "head.log").open("w")
    head = subprocess.Popen([str(ray_cli), "start", "--head", "--block", f"--port={gcs}",
                             f"--ray-client-server-port={client}", "--num-cpus=1", "--include-dashboard=false",
                             "--node-ip-address=127.0.0.1", f"--temp-dir={temp}", "--disable-usage-stats"],
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **QUIET}, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not _listening(client):
            assert head.poll() is None and time.monotonic() < deadline, (temp / "head.log").read_text()[-2000:]
            time.sleep(1)
        yield f"ray://127.0.0.1:{client}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # the group this fixture started, by its id
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)  # whatever of it still runs
        except ProcessLookupError:
            pass
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _sample(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "sample", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), **QUIET,
                                                                 **(env or {})})


def test_ray_client_address_runs_the_sample(client_server, tmp_path):
    out = tmp_path / "r.json"
    done = _sample(["--ray", client_server, "--provider", "cpu", "--ray-workers", "1", "--json", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"Ray ({client_server}): 1 worker on 1 node" in done.stdout
    data = json.loads(out.read_text())
    assert data["ray"]["address"] == client_server and len(data["prompts"]) > 0


def test_a_local_ray_run_leaves_no_session_folder_in_tmpdir(tmp_path):
    tmp = _short_dir("slt")
    try:
        done = _sample(["--ray", "--provider", "cpu", "--ray-workers", "1", "--json", str(tmp_path / "r.json")],
                       env={"TMPDIR": str(tmp)})
        assert done.returncode == 0, done.stderr[-2000:]
        left = [p for p in tmp.rglob("session_*")]
        assert left == [], left
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
