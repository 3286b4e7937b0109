"""Tiny causal-LM ONNX graphs with known logits, built with the onnx helper API.

The logits depend only on the last token (a bigram table), so the model's
next-token distribution is known exactly; the KV inputs/outputs have the same
names and shapes as an Optimum export, so the loader and the loop treat them like
a real model. Needs the `onnx` package (tests only).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TOKENS = ["a", "b", "c", "d", "e"]


def write_tokenizer(folder: Path, tokens: list[str] = TOKENS) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({t: i for i, t in enumerate(tokens)}, unk_token=tokens[0]))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))


def bigram_model(table: np.ndarray, *, layout: str = "kv", layers: int = 2, heads: int = 2, head_dim: int = 3,
                 fp16: bool = False, flat_logits: str = "") -> onnx.ModelProto:
    """logits[t] = table[input_ids[t]]; layout is "kv", "merged" or "plain".

    flat_logits "declared" drops the batch axis: logits [seq, vocab], as the graph says.
    """
    vocab = table.shape[0]
    kv_type = TensorProto.FLOAT16 if fp16 else TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"])]
    if layout != "plain":
        inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"]))
    logits_shape = {"": ["batch", "seq", vocab], "declared": ["seq", vocab]}[flat_logits]
    outputs = [helper.make_tensor_value_info("logits", kv_type, logits_shape)]
    inits = [numpy_helper.from_array(table.astype(np.float32), "table"),
             numpy_helper.from_array(np.array([1, heads, 1, head_dim], dtype=np.int64), "kv_shape")]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["logits32"], axis=0),
             helper.make_node("Cast", ["logits32"], ["logits_b" if flat_logits else "logits"], to=kv_type)]
    if flat_logits:
        nodes.append(helper.make_node("Squeeze", ["logits_b", "axis0"], ["logits"]))
        inits.append(numpy_helper.from_array(np.array([0], dtype=np.int64), "axis0"))
    if layout == "merged":
        inputs.append(helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1]))
    if layout != "plain":
        # the new cache rows: the token ids as floats, so a cut cache is checkable
        nodes += [helper.make_node("Cast", ["input_ids"], ["ids_f"], to=kv_type),
                  helper.make_node("Unsqueeze", ["ids_f", "axes13"], ["ids_4d"]),
                  helper.make_node("Expand", ["ids_4d", "kv_shape"], ["new_kv"])]
        inits.append(numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "axes13"))
        for i in range(layers):
            for kv in ("key", "value"):
                past, present = f"past_key_values.{i}.{kv}", f"present.{i}.{kv}"
                inputs.append(helper.make_tensor_value_info(past, kv_type, ["batch", heads, "past", head_dim]))
                outputs.append(helper.make_tensor_value_info(present, kv_type, ["batch", heads, "total", head_dim]))
                if layout == "merged":
                    # as in Optimum's merged decoders: the no-past branch ignores the dummy past
                    with_past = helper.make_graph(
                        [helper.make_node("Concat", [past, "new_kv"], [f"{present}_w"], axis=2)], f"w{i}{kv}", [],
                        [helper.make_tensor_value_info(f"{present}_w", kv_type, None)])
                    no_past = helper.make_graph(
                        [helper.make_node("Identity", ["new_kv"], [f"{present}_n"])], f"n{i}{kv}", [],
                        [helper.make_tensor_value_info(f"{present}_n", kv_type, None)])
                    nodes.append(helper.make_node("If", ["use_cache_branch"], [present],
                                                  then_branch=with_past, else_branch=no_past))
                else:
                    nodes.append(helper.make_node("Concat", [past, "new_kv"], [present], axis=2))
    graph = helper.make_graph(nodes, "bigram_lm", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_model_folder(folder: Path, table: np.ndarray, *, layout: str = "kv", fp16: bool = False,
                       tokens: list[str] = TOKENS, context: int | None = 64, **kw) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    name = "decoder_model_merged.onnx" if layout == "merged" else "model.onnx"
    onnx.save(bigram_model(table, layout=layout, fp16=fp16, **kw), str(folder / name))
    write_tokenizer(folder, tokens)
    config = {"vocab_size": table.shape[0]}
    if context is not None:
        config["n_positions"] = context
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def log_table(probs: np.ndarray) -> np.ndarray:
    """Logits whose softmax is exactly the given rows (up to float32 rounding)."""
    return np.log(np.asarray(probs, dtype=np.float64)).astype(np.float32)
