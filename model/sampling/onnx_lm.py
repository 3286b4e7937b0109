"""Load a causal language model exported to ONNX, with its tokenizer.

Three graph layouts are accepted, told apart by their inputs:
- "kv": Optimum's ``model.onnx`` (text-generation-with-past): input_ids,
  attention_mask, optional position_ids, past_key_values.N.key/value in;
  logits, present.N.key/value out;
- "merged": the older ``decoder_model_merged.onnx``, the same plus a boolean
  ``use_cache_branch`` that selects the no-past branch on the first step;
- "plain": no past inputs at all; every step recomputes the whole sequence.
Layer count, KV heads and head size come from the graph's past inputs (config.json
only fills in dimensions the graph leaves symbolic). fp32 and fp16 graphs work:
the cache keeps the graph's dtype and logits are read as float32.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from model.common.cancel import CancelFlag, raise_if_cancelled
from model.sampling.kv_cache import BoundStepper, HostStepper, KvCache, LogitsShapeError
from model.sampling.layout import LmLayout
from model.sampling.providers import ProviderChoice, choose_provider, create_session

MODEL_FILES = ("model.onnx", "decoder_model_merged.onnx", "decoder_model.onnx")
_PAST = re.compile(r"^past_key_values\.(\d+)\.(key|value)$")
_TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64,
          "tensor(int32)": np.int32, "tensor(bool)": np.bool_}


class ModelLoadError(ValueError):
    """A model folder or file that cannot be used; the message names the place."""


class VocabularyMismatch(ValueError):
    """Draft and target do not share one vocabulary."""


def _dim(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def inspect_layout(session: Any, where: str, config: dict[str, Any]) -> LmLayout:
    """Read the layout from a session's inputs and outputs; refuse what is not a causal LM."""
    inputs = {i.name: i for i in session.get_inputs()}
    outputs = {o.name: o for o in session.get_outputs()}
    if "input_ids" not in inputs or "logits" not in outputs:
        raise ModelLoadError(
            f"{where} is not a causal language model: expected an input 'input_ids' and an output "
            f"'logits', found inputs {sorted(inputs)} and outputs {sorted(outputs)}")
    logits_shape = outputs["logits"].shape
    if logits_shape and len(logits_shape) != 3:
        raise ModelLoadError(f"{where}: output 'logits' has {len(logits_shape)} dimensions {list(logits_shape)}; "
                             "a causal LM gives [batch, sequence, vocab]")
    layers: dict[int, set[str]] = {}
    for name in inputs:
        m = _PAST.match(name)
        if m:
            layers.setdefault(int(m.group(1)), set()).add(m.group(2))
    n_layers = len(layers)
    if layers and (sorted(layers) != list(range(n_layers)) or any(v != {"key", "value"} for v in layers.values())):
        raise ModelLoadError(f"{where}: past_key_values inputs are incomplete: layers {sorted(layers)}")
    past_names = tuple(f"past_key_values.{i}.{kv}" for i in range(n_layers) for kv in ("key", "value"))
    present_names = tuple(f"present.{i}.{kv}" for i in range(n_layers) for kv in ("key", "value"))
    missing = [n for n in present_names if n not in outputs]
    if missing:
        raise ModelLoadError(f"{where}: has past inputs but lacks outputs {missing[:3]}")
    heads = head_dim = 0
    kv_dtype: type = np.float32
    if n_layers:
        first = inputs[past_names[0]]
        if len(first.shape) != 4:
            raise ModelLoadError(f"{where}: past_key_values.0.key has shape {first.shape}; "
                                 "only [batch, kv_heads, sequence, head_dim] caches are supported")
        heads = _dim(first.shape[1]) or _config_heads(config)
        head_dim = _dim(first.shape[3]) or _config_head_dim(config)
        if not heads or not head_dim:
            raise ModelLoadError(f"{where}: KV heads and head size are symbolic in the graph and not in config.json")
        kv_dtype = _TYPES.get(first.type, None)
        if kv_dtype not in (np.float32, np.float16):
            raise ModelLoadError(f"{where}: KV cache type {first.type} is not supported (fp32 or fp16)")
    branch = "use_cache_branch" if "use_cache_branch" in inputs else None
    known = {"input_ids", "attention_mask", "position_ids", "token_type_ids", "use_cache_branch", *past_names}
    unknown = sorted(set(inputs) - known)
    if unknown:
        raise ModelLoadError(f"{where}: inputs {unknown} are not ones a causal LM export has; "
                             "expected input_ids, attention_mask, position_ids and past_key_values.N.key/value")
    kind = "plain" if not n_layers else ("merged" if branch else "kv")
    mask = "attention_mask" if "attention_mask" in inputs else None
    pos = "position_ids" if "position_ids" in inputs else None
    return LmLayout(
        kind=kind, n_layers=n_layers, n_kv_heads=heads, head_dim=head_dim, kv_dtype=kv_dtype,
        ids_name="input_ids", ids_dtype=_TYPES.get(inputs["input_ids"].type, np.int64),
        mask_name=mask, mask_dtype=_TYPES.get(inputs[mask].type, np.int64) if mask else np.int64,
        position_name=pos, position_dtype=_TYPES.get(inputs[pos].type, np.int64) if pos else np.int64,
        branch_name=branch, token_type_name="token_type_ids" if "token_type_ids" in inputs else None,
        logits_name="logits", logits_size=_dim(outputs["logits"].shape[-1]),
        past_names=past_names, present_names=present_names)


def _config_heads(config: dict[str, Any]) -> int | None:
    for key in ("num_key_value_heads", "n_head", "num_attention_heads"):
        if isinstance(config.get(key), int):
            return config[key]
    return None


def _config_head_dim(config: dict[str, Any]) -> int | None:
    if isinstance(config.get("head_dim"), int):
        return config["head_dim"]
    hidden = config.get("hidden_size", config.get("n_embd"))
    heads = config.get("num_attention_heads", config.get("n_head"))
    return hidden // heads if isinstance(hidden, int) and isinstance(heads, int) and heads else None


def _read_config(folder: Path) -> dict[str, Any]:
    return _read_json_object(folder / "config.json")


def _read_json_object(path: Path) -> dict[str, Any]:
    from model.common.safe_files import LIMIT_MODEL_CONFIG, FileRefused, read_bytes_limited

    if not path.exists():
        return {}
    try:
        raw = read_bytes_limited(path, limit_bytes=LIMIT_MODEL_CONFIG, what=path.name)
    except FileRefused as exc:
        raise ModelLoadError(str(exc)) from None
    except OSError as exc:
        raise ModelLoadError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ModelLoadError(f"{path}: not UTF-8 text (byte {exc.start + 1} is 0x{raw[exc.start]:02x})") from None
    except json.JSONDecodeError as exc:
        raise ModelLoadError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ModelLoadError(f"{path}: JSON nested too deeply") from None
    return data if isinstance(data, dict) else {}


class ModelOutputError(ValueError):
    """A model that ran but gave logits no token can be chosen from; the message names the model."""


class OnnxCausalLM:
    """One ONNX causal LM on one provider: tokenizer, layout and a step function.

    ``step(cache, ids)`` feeds new token ids after what the cache holds and
    returns their float32 logits [len(ids), vocab]; ``cut(cache, n)`` forgets
    all but the first n tokens. Time inside onnxruntime is in ``ort_seconds``.
    """

    def __init__(self, folder: str | Path, provider: ProviderChoice | str = "auto", *,
                 bind_cache: bool | None = None, cancel: CancelFlag = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise ModelLoadError(f"model folder not found: {self.folder}")
        model_path = next((self.folder / f for f in MODEL_FILES if (self.folder / f).exists()), None)
        if model_path is None:
            raise ModelLoadError(f"{self.folder}: no ONNX model found (looked for {', '.join(MODEL_FILES)})")
        tok_path = self.folder / "tokenizer.json"
        if not tok_path.exists():
            raise ModelLoadError(f"{self.folder}: tokenizer.json not found")
        self.model_path = model_path
        # onnxruntime and tokenizers open these themselves: a FIFO would block them for good
        from model.common.safe_files import FileRefused, check_regular_input

        try:
            for path, what in ((model_path, "ONNX model"), (tok_path, "tokenizer")):
                check_regular_input(path, what)
        except FileRefused as exc:
            raise ModelLoadError(str(exc)) from None
        self.config = _read_config(self.folder)
        choice = provider if isinstance(provider, ProviderChoice) else choose_provider(provider)
        try:
            self.session, self.provider = create_session(str(model_path), choice)
        except Exception as exc:  # onnxruntime's own exception types vary by failure
            raise ModelLoadError(f"{model_path}: onnxruntime cannot load it: {str(exc).strip()[:300]}") from None
        # creating the session is the long, uninterruptible part; stop right after it
        raise_if_cancelled(cancel)
        self.layout = inspect_layout(self.session, str(model_path), self.config)
        self.tokenizer = _load_tokenizer(tok_path)
        bind = (self.provider.device == "cuda") if bind_cache is None else bind_cache
        self._stepper: HostStepper | BoundStepper = (
            BoundStepper(self.session, self.layout, self.provider.device, self.provider.ort_providers)
            if bind else HostStepper(self.session, self.layout))
        self.cut = self._stepper.cut
        self.new_cache = self._stepper.empty

    def step(self, cache: KvCache, ids: list[int]) -> np.ndarray:
        """Feed `ids` after what the cache holds; their logits [len(ids), vocab], checked usable."""
        try:
            logits = self._stepper.step(cache, ids)
        except LogitsShapeError as exc:
            raise ModelOutputError(f"{self.name}: {exc}") from None
        except Exception as exc:  # onnxruntime's own types; a graph failing mid-run
            raise ModelOutputError(f"{self.model_path}: onnxruntime failed on a step: {_first_line(exc)}") from None
        # max is NaN if any logit is NaN, +inf if any is, -inf only if all are: one pass tells all three
        worst = logits.max(axis=-1)
        if not np.isfinite(worst).all():
            bad = "NaN" if np.isnan(worst).any() else "infinite"
            raise ModelOutputError(f"{self.name}: the model gives {bad} logits (at position {cache.length}); "
                                   "no token can be chosen from them (a broken or wrongly converted export)")
        return logits

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def ort_seconds(self) -> float:
        return self._stepper.ort_seconds

    @property
    def vocab_size(self) -> int:
        return self.layout.logits_size or int(self.config.get("vocab_size") or self.tokenizer.get_vocab_size())

    @property
    def max_context(self) -> int | None:
        for key in ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"):
            if isinstance(self.config.get(key), int):
                return self.config[key]
        return None

    @functools.cached_property
    def eos_ids(self) -> frozenset[int]:
        # chat models often list their end-of-turn tokens only in generation_config.json
        ids: set[int] = set()
        for config in (self.config, _read_json_object(self.folder / "generation_config.json")):
            eos = config.get("eos_token_id")
            if isinstance(eos, int) and not isinstance(eos, bool):
                ids.add(eos)
            elif isinstance(eos, list):
                ids.update(e for e in eos if isinstance(e, int) and not isinstance(e, bool))
        return frozenset(ids)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=True).ids)

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

    def describe(self) -> str:
        lay = self.layout
        dtype = "fp16" if lay.kv_dtype == np.float16 else "fp32"
        return (f"{self.name}: {self.model_path.name}, {lay.kind} layout, {lay.n_layers} layers, "
                f"{lay.n_kv_heads} KV heads x {lay.head_dim}, {dtype}, vocab {self.vocab_size}")


def _first_line(exc: BaseException) -> str:
    # onnxruntime prefixes "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : " and may run over lines
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text.rsplit(" : ", 1)[-1][:300]


def _load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception on bad files
        raise ModelLoadError(f"{path}: not a usable tokenizer.json ({str(exc).strip()[:200]})") from None


def check_same_vocabulary(draft: OnnxCausalLM, target: OnnxCausalLM, cancel: CancelFlag = None) -> None:
    """Refuse a pair whose token ids do not mean the same strings.

    Speculative decoding compares the draft's token ids with the target's, so the
    logits must have the same width and every id must be the same token. Reading
    a large vocabulary takes a moment, so `cancel` is checked between the reads.
    """
    if draft.vocab_size != target.vocab_size:
        raise VocabularyMismatch(
            f"draft and target vocabularies differ in size: draft {draft.name} has {draft.vocab_size} "
            f"logits, target {target.name} has {target.vocab_size}; speculative decoding needs one shared vocabulary")
    raise_if_cancelled(cancel)
    dv = draft.tokenizer.get_vocab(with_added_tokens=True)
    raise_if_cancelled(cancel)
    tv = target.tokenizer.get_vocab(with_added_tokens=True)
    raise_if_cancelled(cancel)
    if dv != tv:
        d_by_id = {i: t for t, i in dv.items()}
        t_by_id = {i: t for t, i in tv.items()}
        for i in sorted(set(d_by_id) | set(t_by_id)):
            if d_by_id.get(i) != t_by_id.get(i):
                raise VocabularyMismatch(
                    f"draft and target tokenizers differ: token id {i} is {d_by_id.get(i)!r} in the draft "
                    f"({draft.name}) and {t_by_id.get(i)!r} in the target ({target.name})")


def load_pair(draft_dir: str | Path, target_dir: str | Path, provider: str = "auto",
              *, bind_cache: bool | None = None, cancel: CancelFlag = None) -> tuple[OnnxCausalLM, OnnxCausalLM]:
    """Load both models on one provider and check they share a vocabulary.

    `cancel` is checked before each load, after each session creation and between
    the vocabulary checks (raising Cancelled): a session creation cannot be
    interrupted, so a cancel during it takes effect as soon as it returns.
    """
    raise_if_cancelled(cancel)
    choice = choose_provider(provider)
    draft = OnnxCausalLM(draft_dir, choice, bind_cache=bind_cache, cancel=cancel)
    raise_if_cancelled(cancel)
    target = OnnxCausalLM(target_dir, choice, bind_cache=bind_cache, cancel=cancel)
    raise_if_cancelled(cancel)
    check_same_vocabulary(draft, target, cancel)
    return draft, target


__all__ = ["KvCache", "LmLayout", "ModelLoadError", "ModelOutputError", "OnnxCausalLM", "VocabularyMismatch",
           "check_same_vocabulary", "inspect_layout", "load_pair"]
