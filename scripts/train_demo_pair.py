"""Train and export the demo draft/target pair shipped in resources/demo_pair/.

Needs the optional dev extra (torch); the app never imports this. No network:
the corpus comes from scripts/demo_corpus.py, the tokenizer is trained here.

    python scripts/train_demo_pair.py [--out resources/demo_pair] [--minutes 6]

Both models are small GPT-style decoders sharing one byte-level BPE tokenizer.
They are exported in the Hugging Face Optimum "text-generation-with-past" layout
(model.onnx with input_ids, attention_mask, position_ids, past_key_values.N.key/value
inputs and logits, present.N.key/value outputs) so the app loads them with the same
code as a real export.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from demo_corpus import EOS, build_corpus, write_prompts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = 256

# Target is several times the draft in width and depth, as in a real tier.
SIZES = {
    "target": {"n_layer": 4, "n_head": 4, "n_embd": 128},
    "draft": {"n_layer": 2, "n_head": 2, "n_embd": 64},
}


def train_tokenizer(texts: list[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return tok


class Block(nn.Module):
    def __init__(self, d: int, h: int) -> None:
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask, past_k=None, past_v=None):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.view(b, n, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
        if past_k is not None:
            k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.h) + mask
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x)), k, v


class Gpt(nn.Module):
    def __init__(self, vocab: int, n_layer: int, n_head: int, n_embd: int) -> None:
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(CONTEXT, n_embd)
        self.blocks = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln = nn.LayerNorm(n_embd)

    def forward(self, ids, attention_mask, position_ids, past=None):
        n = ids.shape[1]
        total = attention_mask.shape[1]
        # causal over the new tokens, plus the attention mask over everything
        causal = torch.ones(n, total, dtype=torch.bool).tril(total - n)
        allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
        mask = torch.where(allowed, 0.0, -1e9)
        x = self.wte(ids) + self.wpe(position_ids)
        presents = []
        for i, blk in enumerate(self.blocks):
            pk, pv = (past[2 * i], past[2 * i + 1]) if past is not None else (None, None)
            x, k, v = blk(x, mask, pk, pv)
            presents += [k, v]
        return self.ln(x) @ self.wte.weight.T, presents


class OptimumWrapper(nn.Module):
    """Flat signature so the exported graph gets Optimum's input and output names."""

    def __init__(self, gpt: Gpt) -> None:
        super().__init__()
        self.gpt = gpt

    def forward(self, input_ids, attention_mask, position_ids, *past):
        logits, presents = self.gpt(input_ids, attention_mask, position_ids, list(past))
        return (logits, *presents)


def train(model: Gpt, data: torch.Tensor, seconds: float, seed: int) -> None:
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    window, batch, step, start = 128, 32, 0, time.time()
    model.train()
    while time.time() - start < seconds:
        lr = 3e-3 * max(0.05, 1 - (time.time() - start) / seconds)
        for g in opt.param_groups:
            g["lr"] = lr
        idx = torch.randint(0, len(data) - window - 1, (batch,))
        x = torch.stack([data[i:i + window] for i in idx])
        y = torch.stack([data[i + 1:i + window + 1] for i in idx])
        pos = torch.arange(window)[None].expand(batch, -1)
        logits, _ = model(x, torch.ones(batch, window, dtype=torch.long), pos)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            print(f"  step {step} loss {loss.item():.3f} ({time.time() - start:.0f}s)", flush=True)
    model.eval()


def export(model: Gpt, cfg: dict, out: Path, tokenizer_path: Path, eos_id: int, vocab: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    n_layer, n_head, d = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    past_names, present_names, dyn = [], [], {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    for i in range(n_layer):
        for kv in ("key", "value"):
            past_names.append(f"past_key_values.{i}.{kv}")
            present_names.append(f"present.{i}.{kv}")
            dyn[past_names[-1]] = {0: "batch_size", 2: "past_sequence_length"}
            dyn[present_names[-1]] = {0: "batch_size", 2: "total_sequence_length"}
    past = [torch.zeros(1, n_head, 3, d // n_head) for _ in past_names]
    args = (torch.tensor([[5, 6]]), torch.ones(1, 5, dtype=torch.long), torch.tensor([[3, 4]]), *past)
    torch.onnx.export(OptimumWrapper(model), args, str(out / "model.onnx"), dynamo=False,
                      input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=dyn, opset_version=17)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": vocab,
              "n_layer": n_layer, "n_head": n_head, "n_embd": d, "n_positions": CONTEXT,
              "bos_token_id": eos_id, "eos_token_id": eos_id,
              "_note": "SpecLedger demo model trained by scripts/train_demo_pair.py; not a real LLM"}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "tokenizer.json").write_bytes(tokenizer_path.read_bytes())


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "resources" / "demo_pair")
    ap.add_argument("--prompts", type=Path, default=ROOT / "resources" / "prompts" / "demo.jsonl")
    ap.add_argument("--minutes", type=float, default=6.0, help="training time for both models together")
    ap.add_argument("--docs-per-class", type=int, default=3000)
    ap.add_argument("--vocab", type=int, default=1024)
    args = ap.parse_args()

    random.seed(0)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    corpus = build_corpus(args.docs_per_class, seed=0)
    docs = [d for v in corpus.values() for d in v]
    random.shuffle(docs)
    tok = train_tokenizer(docs, args.vocab)
    args.out.mkdir(parents=True, exist_ok=True)
    tok_path = args.out / "tokenizer.json"
    tok.save(str(tok_path))
    eos_id = tok.token_to_id(EOS)
    ids: list[int] = []
    for enc in tok.encode_batch(docs):
        ids += enc.ids + [eos_id]
    data = torch.tensor(ids, dtype=torch.long)
    print(f"corpus: {len(docs)} documents, {len(data)} tokens, vocab {tok.get_vocab_size()}")

    # the target gets most of the time: it has the most to learn
    shares = {"target": 0.7, "draft": 0.3}
    for name, cfg in SIZES.items():
        model = Gpt(tok.get_vocab_size(), **cfg)
        n = sum(p.numel() for p in model.parameters())
        print(f"{name}: {n / 1e6:.2f} M parameters")
        train(model, data, args.minutes * 60 * shares[name], seed=1 if name == "target" else 2)
        export(model, cfg, args.out / name, tok_path, eos_id, tok.get_vocab_size())
    tok_path.unlink()  # each model folder holds its own copy, as an Optimum export does

    args.prompts.parent.mkdir(parents=True, exist_ok=True)
    write_prompts(str(args.prompts), per_class=8)
    print(f"wrote {args.out} and {args.prompts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
