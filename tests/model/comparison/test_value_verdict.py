"""The value verdict against numbers worked by hand (the working is written next to each assertion)."""
import numpy as np
import pytest

from model.comparison.records import pair_records, tier_records
from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.workbook.json_file import load_demo
from model.workbook.rows import Override, TaskClass, Tier, Workbook


def wb() -> Workbook:
    return Workbook(
        tiers=[Tier("Std", "V", "no", price_out=10, price_in=1),
               Tier("Fast", "V", "yes", k=4, c=0.1, v=1.0, baseline="Std", price_out=20, price_in=1),
               Tier("Maybe", "V", "unknown", k=3, c=0.05, v=1.0, baseline="Std", price_out=15, price_in=1),
               Tier("Alone", "V", "yes", k=4, c=0.1, v=1.0, price_out=20, price_in=1)],
        classes=[TaskClass("code", 3e6, 1e6, 4096, 0.8), TaskClass("prose", 1e6, 1e6, 4096, 0.4)],
        overrides=[Override("Maybe", "prose", 0.2, "measured")],
    )


def e4(a: float) -> float:
    return 1 + a + a**2 + a**3 + a**4  # tokens per stretch at K = 4, written out


def records(w: Workbook):
    cmp = compare(w)
    return {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}, {r["tier"]: r for r in tier_records(cmp)}


def test_per_class_price_ratio_and_verdict_by_hand():
    pairs, _ = records(wb())
    code, prose = pairs[("Fast", "code")], pairs[("Fast", "prose")]
    # code: 3M out x 20 + 1M in x 1 = 61 against 3M x 10 + 1M x 1 = 31
    assert code["price_ratio"] == pytest.approx(61 / 31)
    # prose: 1M x 20 + 1M x 1 = 21 against 1M x 10 + 1M x 1 = 11
    assert prose["price_ratio"] == pytest.approx(21 / 11)
    # code at alpha 0.8: E = (1 - 0.8^5) / 0.2 = 3.3616, stretch 4 x 0.1 + 1 = 1.4, S = 2.4011 >= 1.9677
    assert code["speedup"] == pytest.approx(3.3616 / 1.4)
    assert code["value_verdict"] == "worth the premium" and code["verdict"] == "gain"
    # prose at alpha 0.4: E = (1 - 0.4^5) / 0.6 = 1.6496, S = 1.1783 < 1.9091: faster, but not worth its price
    assert prose["speedup"] == pytest.approx(1.6496 / 1.4)
    assert prose["value_verdict"] == "not worth it" and prose["verdict"] == "gain"


def test_per_class_price_break_even_by_hand():
    pairs, _ = records(wb())
    code, prose = pairs[("Fast", "code")], pairs[("Fast", "prose")]
    # code needs S = 61/31, so E = 61/31 x 1.4 = 2.75484; E(0.69) = 2.72128 and E(0.70) = 2.77310
    a = code["price_break_even_alpha"]
    assert code["price_break_even"] == "root" and 0.69 < a < 0.70
    assert e4(a) == pytest.approx(61 / 31 * 1.4)
    # prose needs E = 21/11 x 1.4 = 2.67273; E(0.680) = 2.67065 and E(0.681) = 2.67566
    a = prose["price_break_even_alpha"]
    assert prose["price_break_even"] == "root" and 0.680 < a < 0.681
    assert e4(a) == pytest.approx(21 / 11 * 1.4)
    # the verdict agrees with the acceptance against its break-even
    assert 0.8 > code["price_break_even_alpha"] and 0.4 < prose["price_break_even_alpha"]


def test_mix_value_verdict_by_hand():
    _, tiers = records(wb())
    fast, maybe = tiers["Fast"], tiers["Maybe"]
    # monthly 4M x 20 + 2M x 1 = 82 against 4M x 10 + 2M x 1 = 42: premium +95%
    assert fast["price_ratio"] == pytest.approx(82 / 42)
    # mix speedup, time adds: 4 / (3 / 2.401143 + 1 / 1.178286) = 1.90649 < 1.95238
    assert fast["mix_speedup"] == pytest.approx(4 / (3 / (3.3616 / 1.4) + 1 / (1.6496 / 1.4)))
    assert fast["verdict"] == "gain" and fast["value_verdict"] == "not worth it"
    # one acceptance for every class: E(a) / 1.4 = 82/42 -> E = 2.73333; E(0.69) = 2.72128, E(0.695) = 2.74704
    a = fast["price_break_even_alpha"]
    assert fast["price_break_even"] == "root" and 0.69 < a < 0.695 and e4(a) == pytest.approx(82 / 42 * 1.4)
    # the workload runs like a uniform E = 1.90649 x 1.4 = 2.66909; E(0.679) = 2.66565, E(0.680) = 2.67065
    assert 0.679 < fast["effective_alpha"] < 0.680
    # Maybe (K=3, c=0.05): code E = 1 + .8 + .64 + .512 = 2.952, S = 2.952 / 1.15 = 2.56696;
    # prose (override 0.2) E = 1.248, S = 1.08522; mix 4 / (3 / 2.56696 + 1 / 1.08522) = 1.91370
    # against 62 / 42 = 1.47619: worth it, though prose alone is not (1.08522 < 16 / 11)
    assert maybe["mix_speedup"] == pytest.approx(4 / (3 / (2.952 / 1.15) + 1 / (1.248 / 1.15)))
    assert maybe["price_ratio"] == pytest.approx(62 / 42) and maybe["value_verdict"] == "worth the premium"
    pairs, _ = records(wb())
    assert pairs[("Maybe", "prose")]["value_verdict"] == "not worth it"
    assert pairs[("Maybe", "code")]["value_verdict"] == "worth the premium"


def test_not_applicable_without_baseline_or_speculation():
    pairs, tiers = records(wb())
    for name in ("Std", "Alone"):
        assert tiers[name]["value_verdict"] == "n/a" and tiers[name]["price_break_even_alpha"] is None
        assert tiers[name]["price_break_even"] == "n/a"
        for cls in ("code", "prose"):
            assert pairs[(name, cls)]["value_verdict"] == "n/a" and pairs[(name, cls)]["price_break_even_alpha"] is None
    assert tiers["Std"]["effective_alpha"] is None  # plain decoding has no acceptance
    # a non-speculative tier priced against a baseline still has no value verdict here
    w = wb()
    w.tiers[0].baseline = "Fast"
    _, tiers = records(w)
    assert tiers["Std"]["value_verdict"] == "n/a"


def test_speculative_baseline_is_held_at_its_speedup_and_never_is_said():
    w = wb()
    w.tiers.append(Tier("Faster", "V", "yes", k=4, c=0.1, v=1.0, baseline="Fast", price_out=40, price_in=2))
    w.overrides.append(Override("Faster", "code", 0.9))
    pairs, _ = records(w)
    r = pairs[("Faster", "code")]
    # code: 3M x 40 + 1M x 2 = 122 against Fast's 61: ratio 2. Faster S = 4.0951 / 1.4 = 2.92507,
    # Fast S = 2.40114, so it needs 4.80229x of plain decoding: E = 6.7232 > K + 1 = 5, out of reach
    assert r["price_ratio"] == pytest.approx(2.0)
    assert r["speedup"] == pytest.approx(4.0951 / 1.4)
    assert r["value_verdict"] == "not worth it"
    assert r["price_break_even"] == "never" and r["price_break_even_alpha"] is None


def test_cheaper_tier_is_always_worth_it_and_free_baseline_never():
    w = wb()
    w.tiers[1].price_out, w.tiers[1].price_in = 5, 0.5  # half the baseline's price
    pairs, tiers = records(w)
    # ratio 0.5 needs S = 0.5: E = 0.7 <= 1, reached at alpha 0
    assert pairs[("Fast", "code")]["price_break_even"] == "always"
    assert pairs[("Fast", "code")]["price_break_even_alpha"] == 0.0
    assert tiers["Fast"]["value_verdict"] == "worth the premium"
    w.tiers[0].price_out = w.tiers[0].price_in = 0.0  # a free baseline: any price is infinitely dear
    pairs, tiers = records(w)
    assert compare(w).cells.price_ratio[1, 0] == np.inf
    assert pairs[("Fast", "code")]["price_ratio"] is None  # JSON has no infinity
    assert pairs[("Fast", "code")]["value_verdict"] == "not worth it"
    assert pairs[("Fast", "code")]["price_break_even"] == "never"
    assert tiers["Fast"]["value_verdict"] == "not worth it"


def test_classes_without_tokens_are_priced_per_output_token():
    w = wb()
    for cls in w.classes:
        cls.tokens_out = cls.tokens_in = 0.0
    pairs, tiers = records(w)
    # no traffic entered: 20 / 10 per million output tokens; the mix weighs classes equally
    assert pairs[("Fast", "prose")]["price_ratio"] == pytest.approx(2.0)
    assert tiers["Fast"]["price_ratio"] == pytest.approx(2.0)
    # equal weights: 2 / (1 / 2.401143 + 1 / 1.178286) = 1.58087 < 2
    assert tiers["Fast"]["mix_speedup"] == pytest.approx(2 / (1.4 / 3.3616 + 1.4 / 1.6496))
    assert tiers["Fast"]["value_verdict"] == "not worth it"


def test_verdict_matches_acceptance_against_break_even_on_the_demo():
    cmp = compare(load_demo())
    root = cmp.cells.price_break_even_kind == ar.ROOT
    assert root.any()
    clear = np.abs(cmp.cells.alpha - cmp.cells.price_break_even_alpha) > 1e-9
    worth = cmp.cells.value_verdict == 0
    assert np.array_equal(worth[root & clear], (cmp.cells.alpha >= cmp.cells.price_break_even_alpha)[root & clear])
    assert not worth[cmp.cells.price_break_even_kind == ar.NEVER].any()
    assert worth[cmp.cells.price_break_even_kind == ar.ALWAYS].all()
    tier_root = cmp.tiers.price_break_even_kind == ar.ROOT
    assert np.array_equal((cmp.tiers.value_verdict == 0)[tier_root],
                          (cmp.tiers.effective_alpha >= cmp.tiers.price_break_even_alpha)[tier_root])
