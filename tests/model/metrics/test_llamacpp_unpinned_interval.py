"""A llama.cpp probe run whose responses are not all pinned by their completion tokens (tools.llamacpp_steps) reads
the class's E as draft tokens / K steps; its interval on E must be about that E. A real llama.cpp run (gemma-3-270m,
K = 4, 64 tokens; 30 of 32 prose responses pinned) gave E 4.592 with an interval of 4.41-4.59, built on the pinned
steps, and `import-metrics --apply` refused the workbook it made ('must hold the length itself')."""
from __future__ import annotations

from pathlib import Path

from model.metrics.read import read_sources
from tests.model.metrics import log_files as lf

# K = 4, 16 tokens (completion tokens, draft tokens, accepted), the prompt pass's token first. Pinned, 16 - 1 -
# accepted = ceil(drafted / 4): 4/4 4/4 1/4 then 3 of room, 2/2 (14, 11); 4/4 4/4 3/4 1/1 (13, 11); 4/4 4/4 4/4
# (12, 12). Not pinned: 4/4 4/4 3/4, then one token of room and a plain step (12, 11): 4 steps against ceil(12 / 4)
# = 3. Where a draft was cut short, the pinned steps exceed drafted / 4, the class's
RECORDS = ([("code", 16, 14, 11, "length")] * 8 + [("code", 16, 13, 11, "length")] * 6
           + [("code", 16, 12, 12, "length")] * 4 + [("code", 16, 12, 11, "length")] * 2)


def test_the_interval_on_e_holds_the_e_the_class_applies(tmp_path: Path) -> None:
    path = tmp_path / "ll.run.jsonl"
    path.write_text(lf.probe_run_llamacpp(RECORDS, k=4), encoding="utf-8")
    [s] = read_sources([str(path)])
    assert any("verify steps of 18 of 20" in n for n in s.notes)  # two not pinned: the class's steps are drafted / K
    length, ends = s.acceptance_length, s.mean_acceptance_length_interval
    assert length is not None and abs(length - (1 + 224 / (262 / 4))) < 1e-9
    assert ends is not None and ends[0] <= length <= ends[1], (ends, length)
