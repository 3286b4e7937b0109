"""KV caches and the two ways of running one decoder step through onnxruntime.

HostStepper feeds numpy arrays and gets numpy arrays back: right on CPU, where
host memory is the device. BoundStepper uses I/O binding so the cache lives as
OrtValues on the device between steps (CUDA): only the new token ids go in and
only the logits come out. Cutting a bound cache back after a rejection runs a
one-node Slice graph on the same device, so the cache never visits the host.
BoundStepper is also runnable on CPU, which is how the tests exercise it.
"""
from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from model.sampling.layout import LmLayout

# Slice(kv, starts=[0], ends=end, axes=[2]) for fp32 and fp16 caches, serialised
# once with the onnx helper API (opset 13) so the runtime does not need onnx.
_CUT_GRAPH_FP32 = (
    "CAc6mQEKIgoCa3YKBXN0YXJ0CgNlbmQKBGF4aXMSA2N1dCIFU2xpY2USBmt2X2N1dCoVCAEQB0IFc3RhcnRKCAAAAAAAAAAAKhQIARAH"
    "QgRheGlzSggCAAAAAAAAAFoUCgJrdhIOCgwIARIICgAKAAoACgBaEQoDZW5kEgoKCAgHEgQKAggBYhUKA2N1dBIOCgwIARIICgAKAAoA"
    "CgBCBAoAEA0="
)
# the same bytes with elem_type FLOAT (1) replaced by FLOAT16 (10) in the two tensor types
_CUT_GRAPH_FP16 = _CUT_GRAPH_FP32.replace("CgwIARII", "CgwIChII")


class LogitsShapeError(ValueError):
    """Logits that are not [batch, sequence, vocab]."""


def _last_rows(logits: np.ndarray, n: int) -> np.ndarray:
    """The last n rows of the first sequence's logits, as float32."""
    if logits.ndim != 3 or logits.shape[1] < n:
        shape = "[" + ", ".join(str(d) for d in logits.shape) + "]"
        raise LogitsShapeError(f"logits have shape {shape} for {n} token(s) fed; "
                               "a causal LM gives [batch, sequence, vocab]")
    return logits[0, -n:].astype(np.float32, copy=False)


@dataclass
class KvCache:
    """What one model has seen of one sequence.

    ``tokens`` are the ids fed so far (a model without KV inputs re-reads them
    all each step); ``tensors`` are the 2 x layers past key/value tensors,
    numpy arrays or OrtValues, each [1, kv_heads, length, head_dim].
    """

    tokens: list[int] = field(default_factory=list)
    tensors: list[Any] = field(default_factory=list)

    @property
    def length(self) -> int:
        return len(self.tokens)


class _Stepper:
    """Shared bookkeeping: time spent inside onnxruntime, and the fixed feeds."""

    def __init__(self, session: Any, layout: "LmLayout") -> None:
        self.session = session
        self.layout = layout
        self.ort_seconds = 0.0
        self.ort_calls = 0
        self._ids_dtype = layout.ids_dtype
        self._grow(1024)

    def _grow(self, n: int) -> None:
        # the mask and positions are slices of buffers made once: per-step allocation
        # is a visible share of the step time on small models
        self._ones = np.ones((1, n), dtype=self.layout.mask_dtype)
        self._positions = np.arange(n, dtype=self.layout.position_dtype)[None]

    def _empty_past(self) -> np.ndarray:
        lay = self.layout
        # a merged decoder's no-past branch ignores the past but its graph still wants
        # one position, as Optimum's own runtime feeds it; other layouts take length 0
        length = 1 if lay.kind == "merged" else 0
        return np.zeros((1, lay.n_kv_heads, length, lay.head_dim), dtype=lay.kv_dtype)

    def _small_feeds(self, cache: KvCache, ids: list[int]) -> dict[str, np.ndarray]:
        lay = self.layout
        past = 0 if lay.kind == "plain" else cache.length
        fed = (cache.tokens + ids) if lay.kind == "plain" else ids
        total = past + len(fed)
        if total > self._ones.shape[1]:
            self._grow(2 * total)
        feeds = {lay.ids_name: np.array([fed], dtype=self._ids_dtype)}
        if lay.mask_name:
            feeds[lay.mask_name] = self._ones[:, :total]
        if lay.position_name:
            feeds[lay.position_name] = self._positions[:, past:total]
        if lay.token_type_name:
            feeds[lay.token_type_name] = np.zeros((1, len(fed)), dtype=self._ids_dtype)
        if lay.branch_name:
            feeds[lay.branch_name] = np.array([past > 0], dtype=bool)
        return feeds


class HostStepper(_Stepper):
    def empty(self) -> KvCache:
        return KvCache([], [self._empty_past() for _ in self.layout.past_names])

    def step(self, cache: KvCache, ids: list[int]) -> np.ndarray:
        lay = self.layout
        feeds = self._small_feeds(cache, ids)
        feeds.update(zip(lay.past_names, cache.tensors))
        start = time.perf_counter()
        outs = self.session.run(self._outputs, feeds)
        self.ort_seconds += time.perf_counter() - start
        self.ort_calls += 1
        cache.tokens.extend(ids)
        if lay.kind != "plain":
            cache.tensors = outs[1:]
        return _last_rows(outs[0], len(ids))

    @property
    def _outputs(self) -> list[str]:
        return [self.layout.logits_name, *self.layout.present_names]

    def cut(self, cache: KvCache, length: int) -> None:
        # a view, not a copy: onnxruntime copies it once when it is next fed
        cache.tensors = [t[:, :, :length] for t in cache.tensors]
        del cache.tokens[length:]


class BoundStepper(_Stepper):
    """Cache as device OrtValues; ``device`` is "cuda" (or "cpu" for tests)."""

    def __init__(self, session: Any, layout: "LmLayout", device: str, providers: list[str]) -> None:
        super().__init__(session, layout)
        import onnxruntime as ort

        self._ort = ort
        self.device = device
        graph = _CUT_GRAPH_FP16 if np.dtype(layout.kv_dtype) == np.float16 else _CUT_GRAPH_FP32
        options = ort.SessionOptions()
        options.log_severity_level = 4  # errors raise; onnxruntime's own log line would only repeat them
        self._cut_session = ort.InferenceSession(base64.b64decode(graph), options, providers=providers)

    def empty(self) -> KvCache:
        zeros = self._empty_past()
        tensors = [self._ort.OrtValue.ortvalue_from_numpy(zeros, self.device, 0) for _ in self.layout.past_names]
        return KvCache([], tensors)

    def step(self, cache: KvCache, ids: list[int]) -> np.ndarray:
        lay = self.layout
        binding = self.session.io_binding()
        for name, value in self._small_feeds(cache, ids).items():
            binding.bind_cpu_input(name, value)
        for name, value in zip(lay.past_names, cache.tensors):
            binding.bind_ortvalue_input(name, value)
        # logits come to the host for sampling; the new cache stays on the device
        binding.bind_output(lay.logits_name, "cpu")
        for name in lay.present_names:
            binding.bind_output(name, self.device)
        start = time.perf_counter()
        self.session.run_with_iobinding(binding)
        outs = binding.get_outputs()
        logits = outs[0].numpy()
        self.ort_seconds += time.perf_counter() - start
        self.ort_calls += 1
        cache.tokens.extend(ids)
        if lay.kind != "plain":
            cache.tensors = list(outs[1:])
        return _last_rows(logits, len(ids))

    def cut(self, cache: KvCache, length: int) -> None:
        if self.layout.kind != "plain" and length < cache.length:
            end = np.array([length], dtype=np.int64)
            cut = []
            start = time.perf_counter()
            for value in cache.tensors:
                binding = self._cut_session.io_binding()
                binding.bind_ortvalue_input("kv", value)
                binding.bind_cpu_input("end", end)
                binding.bind_output("cut", self.device)
                self._cut_session.run_with_iobinding(binding)
                cut.append(binding.get_outputs()[0])
            self.ort_seconds += time.perf_counter() - start
            cache.tensors = cut
        del cache.tokens[length:]
