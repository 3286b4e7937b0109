"""Which onnxruntime execution provider runs the sampler, chosen quietly.

onnxruntime-gpu lists CUDAExecutionProvider whenever the build has it, GPU or
not, and when a session asks for it on a machine without CUDA libraries it
prints a red error to stderr before falling back. An analyst should not see
that, so the probe loads the CUDA provider library itself first (that failure
is a plain OSError we can word), silences onnxruntime's logger while a session
is created, and then asks the session which provider it really got.

onnxruntime is imported inside functions: the GUI imports model/ at startup.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

PROVIDER_CHOICES = ("auto", "cuda", "cpu")

_CUDA = "CUDAExecutionProvider"
_CPU = "CPUExecutionProvider"
# onnxruntime logger levels: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal
_QUIET = 4
_NORMAL = 2


@dataclass(frozen=True)
class ProviderChoice:
    """The provider sessions are created with, and the words to report it in.

    ``device`` is "cuda" or "cpu"; ``description`` is what the CLI, results and
    status bar show, e.g. "CPU (CUDA not available: libcublasLt.so.13 missing)".
    """

    device: str
    description: str
    requested: str

    @property
    def ort_providers(self) -> list[str]:
        return [_CUDA, _CPU] if self.device == "cuda" else [_CPU]


def _cuda_library_problem() -> str | None:
    """Why the CUDA provider library cannot load here, or None when it loads."""
    import onnxruntime as ort

    capi = os.path.join(os.path.dirname(ort.__file__), "capi")
    lib = os.path.join(capi, "libonnxruntime_providers_cuda.so")
    if os.name != "posix" or not os.path.exists(lib):
        return None  # other platforms: let the session creation be the judge
    try:
        shared = os.path.join(capi, "libonnxruntime_providers_shared.so")
        if os.path.exists(shared):
            ctypes.CDLL(shared, mode=ctypes.RTLD_GLOBAL)
        ctypes.CDLL(lib)
    except OSError as exc:
        text = str(exc)
        # "libcublasLt.so.13: cannot open shared object file: ..." -> the library's name
        missing = text.split(":", 1)[0].strip() if "cannot open shared object" in text else text
        return f"{os.path.basename(missing)} missing" if missing != text else text
    return None


@lru_cache(maxsize=4)
def choose_provider(requested: str = "auto") -> ProviderChoice:
    """Pick CUDA when it can work here, else CPU, without printing anything.

    A forced "cuda" that cannot work falls back to CPU too and says so: the
    measurement is still worth having, and the description tells the truth.
    """
    requested = (requested or "auto").lower()
    if requested not in PROVIDER_CHOICES:
        raise ValueError(f"provider must be one of {', '.join(PROVIDER_CHOICES)}, not {requested!r}")
    if requested == "cpu":
        return ProviderChoice("cpu", "CPU (chosen)", requested)
    import onnxruntime as ort

    label = "CUDA requested but not available" if requested == "cuda" else "CUDA not available"
    if _CUDA not in ort.get_available_providers():
        return ProviderChoice("cpu", f"CPU ({label}: this onnxruntime build has no CUDA)", requested)
    problem = _cuda_library_problem()
    if problem is not None:
        return ProviderChoice("cpu", f"CPU ({label}: {problem})", requested)
    return ProviderChoice("cuda", "CUDA", requested)


def create_session(model: str | bytes, choice: ProviderChoice) -> tuple[Any, ProviderChoice]:
    """An InferenceSession on the chosen provider, and the provider it really got.

    CUDA can still fail at this point (no device, driver too old); the session
    then runs on CPU and the returned choice says so.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    # fatal only: a failing run (a token id past the vocabulary) still raises, worded by the caller,
    # but without onnxruntime's own red line on stderr first
    options.log_severity_level = _QUIET
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    ort.set_default_logger_severity(_QUIET)
    try:
        try:
            session = ort.InferenceSession(model, options, providers=choice.ort_providers)
        except Exception as exc:  # onnxruntime raises several types; the file's own problems re-raise below
            if choice.device != "cuda":
                raise
            session = ort.InferenceSession(model, options, providers=[_CPU])
            choice = ProviderChoice("cpu", f"CPU (CUDA failed to start: {_first_line(exc)})", choice.requested)
    finally:
        ort.set_default_logger_severity(_NORMAL)
    if choice.device == "cuda" and _CUDA not in session.get_providers():
        choice = ProviderChoice("cpu", "CPU (CUDA failed to start: no usable GPU)", choice.requested)
    return session, choice


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__
