"""The sampling panel's form as run arguments, the job they start, and the form's memory between
sessions (the window's QSettings).

Whatever QSettings hands back (strings from an INI file, stale or hand-edited
values) is read defensively: a value that does not convert keeps the default.
"""
from __future__ import annotations

import threading
from collections.abc import Generator
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from PySide6.QtCore import QSettings

GROUP = "sampling"
PROVIDERS = ("auto", "cuda", "cpu")


@dataclass(frozen=True)
class RunParams:
    """The arguments of one run, exactly as run_sampling takes them, and whether it runs on Ray (and where)."""

    draft_dir: str
    target_dir: str
    prompts_path: str
    k: int
    max_new_tokens: int
    temperature: float
    seed: int
    provider: str
    ray: bool = False
    ray_address: str = ""  # blank: a local Ray on this machine; "auto"; "ray://head:10001"


def start_sampling(params: RunParams, cancel: threading.Event) -> Generator[Any, None, Any]:
    """The worker's job. The import is here so onnxruntime (and Ray) load on first run, not at window start."""
    args = asdict(params)
    use_ray, address = args.pop("ray"), args.pop("ray_address").strip()
    if use_ray:
        from model.sampling.ray_run import RayOptions, run_sampling_ray

        return run_sampling_ray(cancel=cancel, options=RayOptions(address=address or None), **args)
    from model.sampling.run import run_sampling

    return run_sampling(cancel=cancel, **args)


def save_params(settings: QSettings, params: RunParams) -> None:
    for name, value in asdict(params).items():
        settings.setValue(f"{GROUP}/{name}", value)


def load_params(settings: QSettings, default: RunParams) -> RunParams:
    """`default` with every remembered field that still makes sense."""
    found: dict[str, Any] = {}
    for f in fields(RunParams):
        raw = settings.value(f"{GROUP}/{f.name}")
        if raw is None:
            continue
        value = _convert(raw, type(getattr(default, f.name)))
        if value is None or (f.name == "provider" and value not in PROVIDERS):
            continue
        if isinstance(value, str) and f.name not in ("provider", "ray_address") and not value.strip():
            continue  # a blank path is never worth restoring over the demo's
        found[f.name] = value
    return replace(default, **found)


def _convert(raw: Any, kind: type) -> Any:
    try:
        if kind is bool:  # an INI file hands back "true"/"false"
            return raw if isinstance(raw, bool) else {"true": True, "false": False}.get(str(raw).lower())
        if kind is int:
            number = float(raw)
            return int(number) if number.is_integer() else None
        if kind is float:
            return float(raw)
        return str(raw)
    except (TypeError, ValueError):
        return None
