"""What runs on a Ray node for a sampling run: the check each node passes before measuring starts, the
models packed for Ray's object store, and the worker (a Ray actor) that loads the pair once and measures
the prompts it is handed with run.py's own per-prompt code.

Nothing here imports Ray at module level: the driver wraps `PairWorker` with ``ray.remote`` (ray_run.py),
and a node imports this module only to run it.
"""
from __future__ import annotations

import hashlib
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

# a folder to load from: a path every node sees, or the folder's files packed by pack_folder
ModelSource = str | dict[str, bytes]


def folder_problem(folder: str) -> str | None:
    """Why a model folder cannot be loaded on this node, or None."""
    from model.sampling.onnx_lm import MODEL_FILES

    path = Path(folder)
    if not path.is_dir():
        return f"model folder not found: {folder}"
    if not any((path / name).is_file() for name in MODEL_FILES):
        return f"{folder}: no ONNX model ({', '.join(MODEL_FILES)})"
    if not (path / "tokenizer.json").is_file():
        return f"{folder}: tokenizer.json not found"
    return None


def node_check(draft: str | None, target: str | None) -> dict[str, Any]:
    """Run once on each node before measuring: where it is, its onnxruntime, what it lacks of the pair."""
    info: dict[str, Any] = {"node": _node_address(), "host": socket.gethostname(), "onnxruntime": None,
                            "problems": []}
    try:
        import onnxruntime

        info["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        info["problems"].append("onnxruntime is not installed")
    for role, folder in (("draft", draft), ("target", target)):
        problem = folder_problem(folder) if folder is not None else None
        if problem:
            info["problems"].append(f"{role} {problem}")
    return info


def _node_address() -> str:
    try:
        import ray

        return ray.util.get_node_ip_address()
    except Exception:  # outside Ray (a unit test calling node_check directly)
        return socket.gethostname()


def pack_folder(folder: str | Path) -> dict[str, bytes]:
    """A model folder's files (not its sub-folders), to travel through Ray's object store."""
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir()) if p.is_file()}


def packed_size(folders: list[str | Path]) -> int:
    return sum(p.stat().st_size for folder in folders for p in Path(folder).iterdir() if p.is_file())


def unpack(files: dict[str, bytes], role: str) -> str:
    """Write packed files to this node's temporary folder, once per content: workers on a node share it."""
    digest = hashlib.sha256()
    for name, data in sorted(files.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    folder = Path(tempfile.gettempdir()) / "specledger-ray-models" / f"{role}-{digest.hexdigest()[:16]}"
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{role}-", dir=folder.parent))
        for name, data in files.items():
            (partial / Path(name).name).write_bytes(data)
        try:
            partial.rename(folder)  # whole or not at all: another worker may be unpacking the same files
        except OSError:
            if not folder.is_dir():
                raise
            for child in partial.iterdir():
                child.unlink()
            partial.rmdir()
    return str(folder)


class PairWorker:
    """One Ray actor: the pair loaded once (one ONNX Runtime session per model), prompts measured by index.

    Loading happens on the first call, not in __init__: a worker Ray restarts after it died reloads the
    pair on its next call, and a load error comes back as that call's error, with its message.
    """

    def __init__(self, draft: ModelSource, target: ModelSource, provider: str, prompts: list[Any],
                 prompts_name: str, k: int, max_new_tokens: int, temperature: float, seed: int) -> None:
        self._sources = (draft, target)
        self._provider = provider
        self._prompts = prompts
        self._prompts_name = prompts_name
        self._settings = (k, max_new_tokens, temperature, seed)
        self._pair: tuple[Any, Any] | None = None
        self._encoded: list[list[int]] = []

    def _ready(self) -> tuple[Any, Any]:
        if self._pair is None:
            from model.sampling.onnx_lm import load_pair
            from model.sampling.run import check_budget_fits, encode_prompts
            from model.sampling.speculative import speculative_generate

            draft_dir, target_dir = (unpack(s, role) if isinstance(s, dict) else s
                                     for s, role in zip(self._sources, ("draft", "target")))
            draft, target = load_pair(draft_dir, target_dir, self._provider)
            k, max_new_tokens, _, _ = self._settings
            for model in (draft, target):
                check_budget_fits(model, max_new_tokens, k)
            self._encoded = encode_prompts(draft, target, self._prompts, self._prompts_name, max_new_tokens, k)
            # the same untimed warm-up as a local run, so first-call allocations stay out of the timings
            speculative_generate(draft, target, self._encoded[0], k, min(4, max_new_tokens), 0.0)
            self._pair = (draft, target)
        return self._pair

    def where(self) -> dict[str, Any]:
        """The node, process and provider this worker measures on (loading the pair first)."""
        _, target = self._ready()
        return {"node": _node_address(), "pid": os.getpid(), "provider": target.provider.description}

    def measure(self, index: int) -> dict[str, Any]:
        """Prompt `index` of the file, exactly as run_sampling measures it locally."""
        from model.sampling.run import measure_prompt

        draft, target = self._ready()
        k, max_new_tokens, temperature, seed = self._settings
        ort_before = draft.ort_seconds + target.ort_seconds
        start = time.perf_counter()
        spec, plain = measure_prompt(draft, target, self._encoded[index], index, k, max_new_tokens, temperature,
                                     seed)
        return {"index": index, "spec": spec, "plain": plain, "text": target.decode(spec.output_ids),
                "ort_seconds": draft.ort_seconds + target.ort_seconds - ort_before,
                "seconds": time.perf_counter() - start, "ran_on": f"{_node_address()} pid {os.getpid()}"}


__all__ = ["ModelSource", "PairWorker", "folder_problem", "node_check", "pack_folder", "packed_size", "unpack"]
