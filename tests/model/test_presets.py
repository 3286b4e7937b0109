"""Published acceptance lengths as presets: each as its source prints it, applied as an assumed length."""
import pytest

from model.acceptance.presets import PRESETS, find, preset_fields
from model.comparison import compare
from model.workbook.rows import TaskClass, Tier, Workbook
from model.workbook.validation import check_workbook


def test_every_preset_names_its_source_and_is_a_valid_length():
    assert len({p.name for p in PRESETS}) == len(PRESETS)
    for p in PRESETS:
        assert p.source and 1.0 <= p.length <= 6.0
        assert p.k is None or p.length <= p.k + 1


def test_spec_bench_figures_as_printed():
    # Leaderboard.md, RTX 3090, Vicuna-7B-v1.3: EAGLE-2 4.36, Medusa 2.32, Hydra 3.26
    assert [p.length for p in find("eagle-2 vicuna-7b 3090")] == [4.36]
    assert [p.length for p in find("medusa vicuna-13b")] == [2.39]
    assert [p.length for p in find("hydra 3090")] == [3.26]


def test_a_preset_applied_to_a_class_drives_the_comparison():
    medusa = find("medusa vicuna-7b 3090")[0]
    fields = preset_fields(medusa, k=4)
    assert fields["acceptance_length_k"] == 4 and "taken as 4" in fields["source_note"]
    cls = TaskClass("chat", 1e6, 0, 4096, 0.5, **{k: v for k, v in fields.items()})
    wb = check_workbook(Workbook(tiers=[Tier("Fast", k=4, c=0.05, v=1.0, price_out=1)], classes=[cls]))
    rec = compare(wb).pair_records()[0]
    assert rec["acceptance_kind"] == "length" and rec["mean_acceptance_length"] == pytest.approx(2.32)
    maverick = find("eagle-3 maverick")[0]
    assert preset_fields(maverick)["acceptance_length_k"] == 3
    with pytest.raises(ValueError, match="give the tier's K"):
        preset_fields(medusa)
    with pytest.raises(ValueError, match="cannot occur at K = 2"):
        preset_fields(find("eagle-2 3090")[0], k=2)
