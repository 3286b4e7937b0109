"""Published acceptance lengths as presets: each as its source prints it, applied as an assumed length."""
import pytest

from model.comparison.records import pair_records
from model.mechanics import arithmetic as ar

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
    from tests.excel_cases import summarised

    medusa = find("medusa vicuna-7b 3090")[0]
    fields = preset_fields(medusa, k=4)
    assert fields["acceptance_length_k"] == 4 and "taken as 4" in fields["source_note"]
    cls = summarised(TaskClass("chat", 1e6, 0, 4096, 0.5, **{k: v for k, v in fields.items()}))
    wb = check_workbook(Workbook(tiers=[Tier("Fast", k=4, c=0.05, v=1.0, price_out=1)], classes=[cls]))
    rec = pair_records(compare(wb))[0]
    assert rec["acceptance_kind"] == "length" and rec["mean_acceptance_length"] == pytest.approx(2.32)
    maverick = find("eagle-3 maverick")[0]
    assert preset_fields(maverick)["acceptance_length_k"] == 3
    with pytest.raises(ValueError, match="give the tier's K"):
        preset_fields(medusa)
    with pytest.raises(ValueError, match="cannot occur at K = 2"):
        preset_fields(find("eagle-2 3090")[0], k=2)


def test_assuming_a_preset_replaces_the_rows_acceptance_and_its_intervals():
    from model.workbook.assume_preset import assume_preset
    from model.workbook.json_file import load_demo
    from model.workbook.validation import workbook_problems

    wb = load_demo()
    code = wb.classes[wb.class_index("code")]
    code.alpha_low, code.alpha_high, code.alpha_confidence, code.alpha_requests = 0.75, 0.85, 0.95, 20
    eagle3 = find("eagle-3 maverick")[0]
    row = assume_preset(wb, "code", eagle3)
    assert (row.acceptance_length, row.acceptance_length_k, row.profile) == (2.45, 3, ())
    assert row.alpha_low is None and row.alpha_requests == 0 and row.alpha_source == "assumed"
    assert "lmsys/sglang-EAGLE3-Llama-4-Maverick" in row.source_note
    # the alpha beside it is the length's i.i.d. summary: E(alpha, 3) = 2.45
    assert ar.expected_tokens(row.alpha, 3) == pytest.approx(2.45, rel=1e-9)
    assert workbook_problems(wb) == []
    # on one tier's draft only: an override, the class untouched
    tier = wb.tiers[1].name
    medusa = find("medusa vicuna-7b 3090")[0]
    o = assume_preset(wb, "prose", medusa, k=wb.tiers[1].k, tier=tier)
    assert wb.override_for(tier, "prose") is o and o.acceptance_length == 2.32 and o.acceptance_length_k == 5
    assert wb.classes[wb.class_index("prose")].acceptance_length is None
    rec = next(r for r in pair_records(compare(wb)) if r["tier"] == tier and r["task_class"] == "prose")
    assert rec["acceptance_kind"] == "length" and rec["mean_acceptance_length"] == pytest.approx(2.32)
    with pytest.raises(ValueError, match="give the tier's K"):
        assume_preset(wb, "prose", medusa)
    with pytest.raises(ValueError, match="no task class"):
        assume_preset(wb, "nonesuch", eagle3)
