"""The documentation holds together: every relative link in the README and docs/ reaches a file and, with a
#anchor, a heading there; every docs/ section a code comment cites exists; nothing points outside the
repository for its documentation."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gui.window.guide_text import anchors, guide_markdown, links
from tests.paths import ROOT

DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# a citation in code: docs/<part>/<page>.md, optionally with #anchor
CITATION = re.compile(r"(?<![\w/])docs/(?:guide|reference|design|dev)/[\w-]+\.md(?:#[\w-]+)?")


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / line for line in out.splitlines() if line]


def _anchors_of(path: Path) -> set[str]:
    return set(anchors(path.read_text(encoding="utf-8")))


def _broken(source: Path, target: str) -> str | None:
    """Why a relative link from `source` does not resolve, or None."""
    page, _, anchor = target.partition("#")
    path = (source.parent / page).resolve() if page else source
    if not path.exists():
        return f"no file {page}"
    if anchor and path.suffix == ".md" and anchor not in _anchors_of(path):
        return f"no heading #{anchor} in {path.name}"
    return None


def test_the_docs_exist_split_by_reader():
    for part in ("guide", "reference", "design", "dev"):
        assert (ROOT / "docs" / part / "README.md").is_file(), part
    assert len(DOC_FILES) > 10


@pytest.mark.parametrize("doc", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path):
    broken = []
    for text, target in links(doc.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        why = _broken(doc, target)
        if why:
            broken.append(f"[{text}]({target}): {why}")
    assert not broken, "\n".join(broken)


def test_images_in_the_readme_exist():
    for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", (ROOT / "README.md").read_text(encoding="utf-8")):
        assert (ROOT / target).is_file(), target


def test_a_broken_link_or_anchor_is_caught(tmp_path: Path):
    # the check itself: a missing file and a missing heading are both reported, a good anchor is not
    (tmp_path / "a.md").write_text("# Title here\n\n## The mix: time adds up\n", encoding="utf-8")
    source = tmp_path / "b.md"
    assert _broken(source, "a.md#the-mix-time-adds-up") is None
    assert _broken(source, "a.md#title-here") is None
    assert "no heading" in (_broken(source, "a.md#the-mix") or "")
    assert "no file" in (_broken(source, "c.md") or "")


def test_every_docs_section_cited_in_code_exists():
    cited = []
    for path in _tracked():
        if path.suffix not in (".py", ".toml", ".cfg") or not path.is_file():
            continue
        for ref in CITATION.findall(path.read_text(encoding="utf-8")):
            cited.append(ref)
            why = _broken(ROOT / "README.md", ref)
            assert why is None, f"{path.relative_to(ROOT)} cites {ref}: {why}"
    assert len(cited) > 20  # the code's comments cite the design notes by section (the pattern still matches)


def test_no_tracked_file_points_outside_the_repository_for_docs():
    outside = ".." + "/shared"  # spelled apart so this file does not match itself
    offenders = [str(p.relative_to(ROOT)) for p in _tracked()
                 if p.is_file() and p.suffix in (".py", ".md", ".toml", ".txt", ".cfg", "")
                 and outside in p.read_text(encoding="utf-8", errors="replace")]
    assert not offenders


def test_no_code_cites_an_issue_number_or_notes_outside_the_repository():
    # an issue number means nothing to a reader of the code; the design notes it needs are docs/design/
    issue = re.compile(r"[Ii]ssues? #?[0-9]+")
    old_notes = "DESIGN" + ".md"
    offenders = []
    for path in _tracked():
        if path.suffix != ".py" or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in issue.finditer(text)]
        if old_notes in text:
            offenders.append(f"{path.relative_to(ROOT)}: cites {old_notes}")
    assert not offenders, "\n".join(offenders)


def test_the_in_app_guide_has_one_anchor_per_heading():
    # the Help shows the guide's pages as one document: a heading repeated across pages would shadow the other
    names = anchors(guide_markdown())
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_the_json_keys_reference_names_keys_compare_writes():
    # the reference's tables for compare --json name real keys (not ones the code renamed or never wrote)
    out = subprocess.run([sys.executable, "main.py", "compare", "--json"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    keys: set[str] = set()
    stack = [json.loads(out)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            keys.update(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    reference = (ROOT / "docs" / "reference" / "json-keys.md").read_text(encoding="utf-8").split("## Other commands")[0]
    named = {key for row in re.findall(r"^\| ([^|]+) \|", reference, flags=re.M) for key in re.findall(r"`(\w+)`", row)}
    assert len(named) > 30 and named <= keys, sorted(named - keys)


def test_the_workbook_file_reference_names_every_field_a_workbook_holds():
    from model.workbook.json_file import load_demo, workbook_to_dict
    from model.workbook.rows import Override

    text = (ROOT / "docs" / "reference" / "workbook-file.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(\w+)`", text))
    named |= {f"{stem}_high" for stem in re.findall(r"`(\w+)_low`/`_high`", text)}
    wb = load_demo()
    wb.overrides.append(Override(tier=wb.tiers[1].name, task_class=wb.classes[0].name, alpha=0.8))
    data = workbook_to_dict(wb)
    written = set(data) | set(data["settings"])
    written |= set(data["tiers"][0]) | set(data["task_classes"][0]) | set(data["overrides"][0])
    assert written <= named, sorted(written - named)


def test_ci_runs_the_readmes_quick_start_commands():
    # the README's two commands are the ones that are checked: CI runs the second as written (pip kept quiet)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    install_run, install_test = re.findall(r"```bash\n(.+?)\n```", quick)
    assert install_run == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/specledger"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert install_test.replace("pip install -e", "pip install -q -e") in ci.splitlines()


def test_the_readmes_commands_table_names_every_command_and_the_vendor_demo_styles():
    # the table is where a newcomer learns what there is: a closed vendor's demo style left out of it was missed
    from main import COMMANDS
    from model.probe.vendor_server import VENDOR_STYLES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Headless commands", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `specledger ")]
    assert {name for name in COMMANDS} <= {row.split()[2].rstrip("`") for row in rows}
    [serve] = [row for row in rows if row.startswith("| `specledger serve-demo")]
    assert all(style in serve for style in VENDOR_STYLES if style != "openai-chat-chunks"), serve


def test_every_command_the_docs_name_exists():
    # `import-prices` was named for the price-list import, which is `specledger import LIST.csv --tiers`
    from main import COMMANDS

    verbs = "|".join(sorted({name.split("-")[0] for name in COMMANDS}))
    named = {}
    for path in [*DOC_FILES, ROOT / "CONTRIBUTING.md"]:
        for word in re.findall(rf"`(?:specledger )?((?:{verbs})-[a-z-]+)", path.read_text(encoding="utf-8")):
            named.setdefault(word, path.relative_to(ROOT))
    assert named and {w: p for w, p in named.items() if w not in COMMANDS} == {}
