"""The window's run folder: <data>/SpecLedger/probe-runs, and the runs earlier versions wrote to the doubled
SpecLedger/SpecLedger folder brought into it, none overwritten or lost."""
from __future__ import annotations

from model.probe.run_file import open_run_folder, run_folder


def _legacy(data):
    return data / "SpecLedger" / "SpecLedger" / "probe-runs"


def test_the_run_folder_names_the_app_once(tmp_path):
    assert run_folder(tmp_path) == tmp_path / "SpecLedger" / "probe-runs"
    assert open_run_folder(run_folder(tmp_path)).is_dir()
    assert not (tmp_path / "SpecLedger" / "SpecLedger").exists()


def test_runs_in_the_doubled_folder_move_into_the_new_one(tmp_path):
    old = _legacy(tmp_path)
    old.mkdir(parents=True)
    (old / "probe-1.run.jsonl").write_text("one\n")
    (old / "probe-2.run.jsonl").write_text("two\n")
    folder = open_run_folder(run_folder(tmp_path))
    assert sorted(p.name for p in folder.iterdir()) == ["probe-1.run.jsonl", "probe-2.run.jsonl"]
    assert (folder / "probe-2.run.jsonl").read_text() == "two\n"
    assert not (tmp_path / "SpecLedger" / "SpecLedger").exists()  # the empty doubled folders are gone


def test_a_name_taken_in_both_keeps_both_files_where_they_are(tmp_path):
    old, folder = _legacy(tmp_path), run_folder(tmp_path)
    old.mkdir(parents=True)
    folder.mkdir(parents=True)
    (old / "probe-1.run.jsonl").write_text("old\n")
    (old / "probe-2.run.jsonl").write_text("moves\n")
    (folder / "probe-1.run.jsonl").write_text("new\n")
    open_run_folder(folder)
    assert (folder / "probe-1.run.jsonl").read_text() == "new\n"
    assert (old / "probe-1.run.jsonl").read_text() == "old\n"  # not overwritten, still readable where it was
    assert (folder / "probe-2.run.jsonl").read_text() == "moves\n" and not (old / "probe-2.run.jsonl").exists()
