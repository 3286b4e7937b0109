import json
import os

import pytest

from model.workbook import json_file as wf
from model.workbook.validation import CLASS_FIELDS, TIER_FIELDS, ValidationError, WorkbookError, parse_field, workbook_problems
from model.workbook.rows import Override, TaskClass, Tier, Workbook


def small() -> Workbook:
    return Workbook(
        tiers=[Tier("Std", "V", "no", price_out=10, price_in=2), Tier("Fast", "V", "yes", k=4, c=0.1, baseline="Std", claimed_speedup=2.0)],
        classes=[TaskClass("code", 1e6, 2e6, 4096, 0.8), TaskClass("prose", 1e6, 1e6, 2048, 0.5)],
        overrides=[Override("Fast", "prose", 0.4, "measured", "pair X")],
    )


def test_demo_loads_and_validates():
    wb = wf.load_demo()
    assert len({t.vendor for t in wb.tiers}) >= 3
    assert len(wb.classes) >= 5
    assert workbook_problems(wb) == []
    assert any(t.speculative == "no" for t in wb.tiers) and any(t.speculative == "unknown" for t in wb.tiers)


def test_round_trip(tmp_path):
    wb = small()
    path = tmp_path / "w.json"
    wf.save_workbook(wb, path)
    assert wf.load_workbook(path) == wb
    data = json.loads(path.read_text())
    assert data["schema_version"] == wf.SCHEMA_VERSION and data["format"] == wf.FORMAT_NAME


def test_demo_round_trip(tmp_path):
    wb = wf.load_demo()
    wf.save_workbook(wb, tmp_path / "d.json")
    assert wf.load_workbook(tmp_path / "d.json") == wb


@pytest.mark.parametrize("row_type,field,value,expected", [
    (TaskClass, "alpha", "78%", 0.78), (TaskClass, "alpha", "0.78", 0.78), (TaskClass, "alpha", 0.5, 0.5),
    (TaskClass, "tokens_out", "1.5M", 1.5e6), (TaskClass, "tokens_out", "200k", 2e5), (TaskClass, "context", "32K", 32768),
    (Tier, "price_out", "$2.50", 2.5), (Tier, "k", "5", 5), (Tier, "claimed_speedup", "3x", 3.0),
    (Tier, "claimed_speedup", "", None), (Tier, "speculative", "YES", "yes"),
])
def test_parse_accepts(row_type, field, value, expected):
    assert parse_field(row_type, field, value) == pytest.approx(expected) if isinstance(expected, float) else parse_field(row_type, field, value) == expected


@pytest.mark.parametrize("row_type,field,value,words", [
    (TaskClass, "alpha", "1.2", ["Acceptance alpha", "from 0 to 1", "'1.2'"]),
    (TaskClass, "alpha", "abc", ["Acceptance alpha", "'abc'"]),
    (Tier, "k", "2.5", ["K", "whole number"]),
    (Tier, "k", "0", ["K", "from 1 to 64"]),
    (Tier, "speculative", "maybe", ["Speculative", "yes, no, unknown"]),
    (Tier, "name", "  ", ["Tier", "must not be empty"]),
    (Tier, "gpu", "TPU9", ["GPU", "H100"]),
    (Tier, "price_in", "-1", ["Price in"]),
    (TaskClass, "context", "nan", ["Context"]),
])
def test_parse_refuses_naming_row_and_field(row_type, field, value, words):
    with pytest.raises(ValidationError) as exc:
        parse_field(row_type, field, value, row_name="Row A")
    message = str(exc.value)
    assert "'Row A'" in message
    for w in words:
        assert w in message


def test_every_field_has_a_refusal_message():
    # each numeric/choice field refuses a word, and says which field it was
    for row_type, specs in ((Tier, TIER_FIELDS), (TaskClass, CLASS_FIELDS)):
        for spec in specs:
            if spec.kind == "text":
                continue
            with pytest.raises(ValidationError, match=spec.label.replace("(", r"\(").replace(")", r"\)")):
                parse_field(row_type, spec.name, "no-such-value", "r")


def test_workbook_level_problems():
    wb = small()
    wb.tiers.append(Tier("fast", baseline="Nowhere"))
    wb.tiers.append(Tier("Self", baseline="Self"))
    wb.classes.append(TaskClass("", alpha=2.0))
    wb.overrides.append(Override("Ghost", "code", 0.5))
    wb.overrides.append(Override("Fast", "prose", 0.6))
    problems = "\n".join(workbook_problems(wb))
    assert "Tier 'fast' in row 3: the name is already used in row 2" in problems
    assert "Tier 'fast', Baseline: no tier is named 'Nowhere'" in problems
    assert "cannot be its own baseline" in problems
    assert "Task class in row 3, Task class: must not be empty" in problems
    assert "Acceptance alpha: must be a share" in problems
    assert "no tier is named 'Ghost'" in problems
    assert "('Fast', 'prose'): given twice" in problems


def test_bad_files_never_half_load(tmp_path):
    p = tmp_path / "bad.json"
    cases = {
        "{not json": "not valid JSON at line 1",
        json.dumps({"format": "specledger-workbook", "schema_version": 99}): "newer than this SpecLedger reads",
        json.dumps({"format": "other", "schema_version": 1}): "not a SpecLedger workbook",
        json.dumps({"format": "specledger-workbook"}): "schema_version is missing",
        json.dumps({"format": "specledger-workbook", "schema_version": 1,
                    "tiers": [{"name": "A", "k": "many"}]}): "tiers[0] (A), k: must be a whole number",
        json.dumps({"format": "specledger-workbook", "schema_version": 1,
                    "task_classes": [{"alpha": 0.5}]}): "task_classes[0], name: missing",
        json.dumps({"format": "specledger-workbook", "schema_version": 1,
                    "tiers": [{"name": "A", "colour": "red"}]}): "unknown field(s) colour",
    }
    for text, words in cases.items():
        p.write_text(text)
        with pytest.raises(WorkbookError) as exc:
            wf.load_workbook(p)
        assert str(p) in str(exc.value) and words in str(exc.value), str(exc.value)
    with pytest.raises(WorkbookError, match="no such file"):
        wf.load_workbook(tmp_path / "missing.json")


def test_atomic_save_survives_a_crash(tmp_path, monkeypatch):
    path = tmp_path / "w.json"
    wf.save_workbook(small(), path)
    before = path.read_bytes()
    changed = small()
    changed.tiers[0].price_out = 99

    def crash(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(WorkbookError, match="No space left"):
        wf.save_workbook(changed, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.json"]  # no temp file left behind


def test_save_refuses_invalid_workbook(tmp_path):
    wb = small()
    wb.tiers[1].baseline = "Nowhere"
    with pytest.raises(WorkbookError):
        wf.save_workbook(wb, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_rename_follows_references():
    wb = small()
    wb.rename_tier("Std", "Standard")
    assert wb.tiers[1].baseline == "Standard"
    wb.rename_tier("Fast", "Turbo")
    wb.rename_class("prose", "essay")
    assert wb.overrides[0].tier == "Turbo" and wb.overrides[0].task_class == "essay"
    assert workbook_problems(wb) == []


def test_saved_file_has_ordinary_permissions(tmp_path):
    path = tmp_path / "w.json"
    umask = os.umask(0o022)
    try:
        wf.save_workbook(small(), path)
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644
    os.chmod(path, 0o640)
    wf.save_workbook(small(), path)
    assert path.stat().st_mode & 0o777 == 0o640  # a re-save keeps the mode the user chose


def test_hostile_files_are_refused_with_a_workbook_error(tmp_path):
    """Numbers too large for a float, JSON too deep or too long to parse, names that are not text:
    each a WorkbookError naming the place (the window catches only that), never another exception."""
    p = tmp_path / "hostile.json"
    head = '{"format": "specledger-workbook", "schema_version": 1, '
    cases = {
        head + '"tiers": [{"name": "A", "k": 1' + "0" * 400 + '}]}': "tiers[0] (A), k: must be a whole number",
        head + '"settings": {"k_max": 1' + "0" * 400 + '}}': "K max: must be a whole number",
        head + '"tiers": [{"name": "A", "price_out": 1' + "0" * 5000 + '}]}': "not valid JSON",
        "[" * 100_000 + "]" * 100_000: "not valid JSON",
        head + '"tiers": [{"name": ["A"]}]}': "tiers[0]",
        head + '"task_classes": [{"name": "x", "alpha_source": {"a": 1}}]}': "alpha_source",
        '{"format": "specledger-workbook", "schema_version": true}': "schema_version",
        '{"format": "specledger-workbook", "schema_version": 0}': "schema_version",
    }
    for text, words in cases.items():
        p.write_text(text)
        with pytest.raises(WorkbookError) as exc:
            wf.load_workbook(p)
        assert str(p) in str(exc.value) and words in str(exc.value), str(exc.value)[:300]


def test_settings_in_a_file_are_parsed_like_rows(tmp_path):
    # the same validator as the rows: a currency in lower case is stored as its code, 16.0 is the whole number 16
    p = tmp_path / "s.json"
    data = wf.workbook_to_dict(wf.load_demo())
    data["settings"] = {"currency": "eur", "k_max": 16.0, "marginal_band": "10%"}
    p.write_text(json.dumps(data))
    s = wf.load_workbook(p).settings
    assert (s.currency, s.k_max, s.marginal_band) == ("EUR", 16, 0.10) and isinstance(s.k_max, int)
    data["settings"] = {"k_max": 0}
    p.write_text(json.dumps(data))
    with pytest.raises(WorkbookError, match="Settings, K max: must be a whole number"):
        wf.load_workbook(p)


def test_a_report_or_binary_file_is_named_for_what_it_is(tmp_path):
    # before: "cannot be read (UnicodeDecodeError: 'utf-8' codec can't decode byte 0xc7 ...)"
    from model.report.export import export_report

    report = tmp_path / "r.xlsx"
    export_report(wf.load_demo(), report)
    with pytest.raises(WorkbookError) as err:
        wf.load_workbook(report)
    assert "an Excel file, not a workbook .json" in str(err.value) and "specledger import" in str(err.value)
    assert "UnicodeDecodeError" not in str(err.value)
    blob = tmp_path / "w.json"
    blob.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(WorkbookError, match=r"w.json: not a workbook .json \(not UTF-8 text\)"):
        wf.load_workbook(blob)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(WorkbookError, match=r"folder.json: is a folder, not a workbook file"):
        wf.load_workbook(folder)


def _demo_dict():
    import model.workbook.json_file as wf

    return wf.workbook_to_dict(wf.load_demo())


@pytest.mark.parametrize("table, index, field, name", [
    ("tiers", 1, "price_out", "Northwind Turbo"),
    ("tiers", 0, "price_in", "Northwind Standard"),
    ("tiers", 3, "c", "Helix Fast"),  # typed cost model: c is used
    ("tiers", 1, "batch", "Northwind Turbo"),  # roofline: batch is used
    ("task_classes", 0, "alpha", "code"),
    ("task_classes", 2, "tokens_out", "extraction"),
])
def test_a_missing_required_field_is_refused_naming_row_and_field(tmp_path, table, index, field, name):
    data = _demo_dict()
    del data[table][index][field]
    p = tmp_path / "hand-edited.json"
    p.write_text(json.dumps(data))
    from model.workbook.json_file import load_workbook
    from model.workbook.validation import WorkbookError

    with pytest.raises(WorkbookError) as err:
        load_workbook(p)
    assert err.value.problems == [f"{table}[{index}] ({name}), {field}: " + err.value.problems[0].split(": ", 1)[1]]
    assert "missing" in err.value.problems[0] and "hand-edited.json" in str(err.value)


def test_optional_fields_may_be_left_out(tmp_path):
    """What a blank cell means is what a missing optional field means: no claim, no baseline, no notes."""
    from model.workbook.json_file import load_workbook

    data = _demo_dict()
    for tier in data["tiers"]:
        for f in ("vendor", "claimed_speedup", "claim_context", "baseline", "notes"):
            tier.pop(f, None)
        if tier["speculative"] == "no":  # K and the cost model of a plain tier are never used
            for f in ("k", "cost_model", "c", "v", "gpu", "pair", "batch"):
                tier.pop(f)
        elif tier["cost_model"] == "roofline":
            tier.pop("c"), tier.pop("v")
        else:
            tier.pop("gpu"), tier.pop("pair"), tier.pop("batch")
    for c in data["task_classes"]:
        c.pop("alpha_source"), c.pop("source_note")
    for o in data["overrides"]:
        o.pop("alpha_source"), o.pop("source_note")
    data.pop("settings"), data.pop("title")
    p = tmp_path / "lean.json"
    p.write_text(json.dumps(data))
    wb = load_workbook(p)
    assert [t.name for t in wb.tiers] == [t["name"] for t in data["tiers"]]
    assert all(t.claimed_speedup is None and t.baseline == "" for t in wb.tiers)


def test_files_written_by_specledger_still_load(tmp_path):
    """The demo (written by scripts/make_demo_workbook.py) and every save give every field."""
    from model.workbook.json_file import DEMO_WORKBOOK, load_workbook, save_workbook
    from model.workbook.rows import TaskClass, Tier, Workbook

    wb = load_workbook(DEMO_WORKBOOK)
    blank = Workbook(tiers=[Tier(speculative="no"), Tier(name="T2")], classes=[TaskClass()])
    for i, book in enumerate((wb, blank)):
        save_workbook(book, tmp_path / f"{i}.json")
        assert load_workbook(tmp_path / f"{i}.json") == book


def test_the_reference_names_every_required_field():
    from pathlib import Path

    from model.workbook.validation import REQUIRED_FIELDS

    section = (Path(__file__).resolve().parents[3] / "docs" / "reference" / "workbook-file.md").read_text(encoding="utf-8")
    for fields in REQUIRED_FIELDS.values():
        for name in fields:
            assert f"`{name}`" in section, name


def test_k_has_one_range_everywhere():
    """A tier's K, K max, `calc --k` and `sample --k` take the same range, from the one validator."""
    from commands.calc_compare import run_calc
    from model.sampling.run import MAX_K
    from model.workbook.validation import K_LIMITS, SPECS
    from model.workbook.rows import Settings

    lo, hi = K_LIMITS
    for spec in (SPECS[Tier]["k"], SPECS[Settings]["k_max"]):
        assert (spec.minimum, spec.maximum) == (lo, hi)
        assert spec.parse(str(hi)) == hi
        with pytest.raises(ValidationError):
            spec.parse(str(hi + 1))
    assert MAX_K == hi
    import argparse

    with pytest.raises(Exception, match=f"from {lo} to {hi}"):
        run_calc(argparse.Namespace(k=hi + 1, c=0.1, v=1.0, alpha=None, json=False))


def test_a_typod_top_level_key_is_refused_naming_the_nearest_known_one(tmp_path):
    """"override" for "overrides" silently dropped the overrides; "Tiers" loaded an empty workbook."""
    demo = wf.workbook_to_dict(wf.load_demo())
    p = tmp_path / "typo.json"
    for typo, meant in (("override", "overrides"), ("Tiers", "tiers"), ("task_class", "task_classes")):
        data = dict(demo)
        data[typo] = data.pop(meant)
        p.write_text(json.dumps(data))
        with pytest.raises(WorkbookError) as exc:
            wf.load_workbook(p)
        text = str(exc.value)
        assert f"unknown top-level key '{typo}'" in text and f"'{meant}'" in text, text
        assert "\n" not in text
    data = dict(demo, colour="red")
    p.write_text(json.dumps(data))
    with pytest.raises(WorkbookError, match="unknown top-level key 'colour'"):
        wf.load_workbook(p)
    # every key the writer writes reads back
    assert wf.workbook_from_dict(demo).tiers


def test_a_tier_keeps_its_identity_through_copies_and_renames_but_not_into_new_rows():
    from model.workbook import row_edits
    from model.workbook.json_file import load_demo
    wb = load_demo()
    first = wb.tiers[1].identity
    copied = wb.copy()
    copied.rename_tier(wb.tiers[1].name, "Renamed")
    assert copied.tier_with_identity(first).name == "Renamed" and copied == copied.copy()
    assert len({t.identity for t in wb.tiers}) == len(wb.tiers)
    [dup] = row_edits.duplicate_rows(copied, "tiers", [1])
    added = row_edits.add_row(copied, "tiers", 2)
    ids = [t.identity for t in copied.tiers]
    assert len(set(ids)) == len(ids) and copied.tiers[dup].identity != first and copied.tiers[added].identity != first
    assert "identity" not in json.dumps(wf.workbook_to_dict(wb))


@pytest.mark.parametrize("text", ['{"name": "x", "version": 3}', '{"dependencies": {}}', "[1, 2]", '"a"', "{}"])
def test_a_json_file_that_is_not_a_workbook_says_so(tmp_path, text):
    """Another program's JSON read 'schema_version is missing', as if it were a damaged workbook."""
    p = tmp_path / "other.json"
    p.write_text(text)
    with pytest.raises(WorkbookError, match="not a SpecLedger workbook"):
        wf.load_workbook(p)
