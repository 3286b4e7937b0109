"""A tiny llama-architecture model pair in GGUF, written here, for the opt-in tests against a real `llama-server`.

No weights are downloaded and none are kept in the repository: `write_pair` makes a target and a draft of a few
hundred KB each from a seed. Each model's next token depends on the current token alone (the attention and
feed-forward weights are near zero, so the residual stream is the token's embedding): output row j is the sum of
the embedding rows of the tokens i with next(i) = j, so greedy decoding follows a map. The target's map walks one
cycle through the printable ASCII characters, a two-byte and a three-byte character (é, €: llama.cpp holds a token
that ends mid-character and sends its text with the next) and the end-of-text token; the draft's map agrees with
it on about a share `agree` of the tokens, so a drafted token is accepted with about that probability, and a
request that reaches the end-of-text token ends there with its reason "stop". Around the end the two agree (the
draft proposes the end-of-text token and the tokens after it, and the target accepts them), as a real pair often
does on an end of turn: llama.cpp counts those accepted drafts past the end though it never sends them.

The file is GGUF version 3 as llama.cpp's gguf reader takes it (little-endian; key/value pairs, then tensor
infos, then the tensors' data aligned to 32 bytes), with a byte-level BPE vocabulary ("gpt2": the 256 byte
symbols, four merges, the end-of-text token).
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np

ALIGN = 32
_U32, _I32, _F32, _BOOL, _STR, _ARR, _U64 = 4, 5, 6, 7, 8, 9, 10
MERGES = ("Ġ t", "h e", "Ġ a", "i n")
EMBED = 64


def _byte_symbols() -> list[str]:
    """GPT-2's printable stand-in for each byte, in byte order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    out, extra = {}, 0
    for b in range(256):
        if b in kept:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return [out[b] for b in range(256)]


def vocabulary() -> tuple[list[str], list[int]]:
    """The tokens (a byte's token id is the byte) and their types (1 normal, 3 control: the end-of-text)."""
    tokens = _byte_symbols() + [m.replace(" ", "") for m in MERGES] + ["<|endoftext|>"]
    return tokens, [1] * (len(tokens) - 1) + [3]


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _value(value: Any) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return _BOOL, struct.pack("<?", value)
    if isinstance(value, int):
        return _U32, struct.pack("<I", value)
    if isinstance(value, float):
        return _F32, struct.pack("<f", value)
    if isinstance(value, str):
        return _STR, _string(value)
    if isinstance(value, list):
        kind = _STR if isinstance(value[0], str) else _I32
        items = b"".join(_string(v) if kind == _STR else struct.pack("<i", v) for v in value)
        return _ARR, struct.pack("<IQ", kind, len(value)) + items
    raise TypeError(f"no GGUF type for {value!r}")


def write_gguf(path: Path, metadata: dict[str, Any], tensors: dict[str, np.ndarray]) -> None:
    """GGUF v3 with float32 tensors (numpy's row-major shape, written innermost dimension first)."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, value in metadata.items():
        kind, raw = _value(value)
        head += _string(key) + struct.pack("<I", kind) + raw
    offset, blobs = 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        head += _string(name) + struct.pack("<I", array.ndim) + b"".join(struct.pack("<Q", n) for n in reversed(array.shape))
        head += struct.pack("<IQ", 0, offset)  # type 0: F32
        pad = -len(data) % ALIGN
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    head += b"\0" * (-len(head) % ALIGN)
    path.write_bytes(head + b"".join(blobs))


def _model(path: Path, next_of: np.ndarray, embed: np.ndarray, layers: int, rng: np.random.Generator) -> None:
    tokens, types = vocabulary()
    v, d = embed.shape
    meta: dict[str, Any] = {
        "general.architecture": "llama", "general.alignment": ALIGN, "general.file_type": 0,
        "llama.context_length": 2048, "llama.embedding_length": d, "llama.block_count": layers,
        "llama.feed_forward_length": 2 * d, "llama.attention.head_count": 4, "llama.attention.head_count_kv": 4,
        "llama.rope.dimension_count": d // 4, "llama.attention.layer_norm_rms_epsilon": 1e-5, "llama.vocab_size": v,
        "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2", "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": types, "tokenizer.ggml.merges": list(MERGES),
        "tokenizer.ggml.bos_token_id": v - 1, "tokenizer.ggml.eos_token_id": v - 1,
        "tokenizer.ggml.add_bos_token": False}
    out = np.zeros((v, d), dtype=np.float32)
    np.add.at(out, next_of, embed)
    ones = np.ones(d, dtype=np.float32)

    def small(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.01).astype(np.float32)

    tensors = {"token_embd.weight": embed, "output_norm.weight": ones, "output.weight": out * 2.0}
    for i in range(layers):
        tensors.update({f"blk.{i}.attn_norm.weight": ones, f"blk.{i}.attn_q.weight": small(d, d),
                        f"blk.{i}.attn_k.weight": small(d, d), f"blk.{i}.attn_v.weight": small(d, d),
                        f"blk.{i}.attn_output.weight": small(d, d), f"blk.{i}.ffn_norm.weight": ones,
                        f"blk.{i}.ffn_gate.weight": small(2 * d, d), f"blk.{i}.ffn_up.weight": small(2 * d, d),
                        f"blk.{i}.ffn_down.weight": small(d, 2 * d)})
    write_gguf(path, meta, tensors)


def write_pair(folder: Path, agree: float = 0.7, seed: int = 1, target_width: int = EMBED,
               target_layers: int = 2) -> tuple[Path, Path]:
    """tiny-target.gguf and tiny-draft.gguf in `folder`; the draft's map agrees with the target's on ~`agree`.
    A wider, deeper target (`target_width`, `target_layers`) makes its steps slow enough to time on loopback
    (768 and 4: about 150 MB, some 20 ms a step on a 2-core machine)."""
    rng = np.random.default_rng(seed)
    tokens, _ = vocabulary()
    v = len(tokens)
    end = v - 1
    printable = list(range(32, 127))  # a byte's token id is the byte
    cycle = [int(x) for x in rng.permutation(printable)]
    for seq in ([0xC3, 0xA9], [0xE2, 0x82, 0xAC]):  # é and €, one token a byte
        at = int(rng.integers(1, len(cycle)))
        cycle[at:at] = seq
    cycle.append(end)
    target = np.array([printable[int(rng.integers(len(printable)))] for _ in range(v)])
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        target[a] = b
    draft = target.copy()
    for i in range(v):
        if rng.random() > agree:
            draft[i] = printable[int(rng.integers(len(printable)))]
    for a in cycle[-3:] + cycle[:2]:  # the draft knows the end and what follows it: it drafts past the end
        draft[a] = target[a]
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "tiny-target.gguf", folder / "tiny-draft.gguf"
    _model(paths[0], target, rng.standard_normal((v, target_width)).astype(np.float32), target_layers, rng)
    _model(paths[1], draft, rng.standard_normal((v, EMBED)).astype(np.float32), 1, rng)
    return paths


if __name__ == "__main__":
    import sys
    args = [float(a) for a in sys.argv[2:]]
    print(*write_pair(Path(sys.argv[1]), *(args[:1]), target_width=int(args[1]) if len(args) > 1 else EMBED,
                      target_layers=int(args[2]) if len(args) > 2 else 2))
