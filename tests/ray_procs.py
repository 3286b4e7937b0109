"""Processes of the Ray tests' workers, found by /proc (to kill one by its PID, or see that all stopped)."""
from __future__ import annotations

import os
from pathlib import Path


def worker_pids() -> list[int]:
    """Ray worker processes running PairWorker that descend from this test process (not anyone else's)."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if not cmd.startswith(b"ray::PairWorker"):
            continue
        pid = int(entry)
        while pid > 1:
            try:
                pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                break
            if pid == me:
                found.append(int(entry))
                break
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
