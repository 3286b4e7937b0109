import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT  # noqa: E402


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_calc_json():
    r = run("calc", "--k", "5", "--c", "0.1", "--alpha", "0.8", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("expected_tokens", "accepted_per_stretch", "trailer_fill", "speedup", "break_even_alpha", "optimal_k", "flops_factor", "break_even"):
        assert key in d
    assert d["expected_tokens"] == pytest.approx(3.68928) and d["break_even"] == "root"
    assert d["speedup"] == pytest.approx(3.68928 / 1.5)


@pytest.mark.parametrize("c,kind", [("0", "always"), ("2", "never")])
def test_calc_break_even_cases(c, kind):
    d = json.loads(run("calc", "--k", "3", "--c", c, "--json").stdout)
    assert d["break_even"] == kind
    assert (d["break_even_alpha"] is None) == (kind == "never")


def test_compare_demo_json():
    r = run("compare", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"tier", "task_class", "alpha", "break_even_alpha", "speedup", "trailer_fill", "verdict"} <= set(d["pairs"][0])
    assert {"tier", "mix_speedup", "monthly_cost", "premium", "claim_implied_alpha"} <= set(d["tiers"][0])
    verdicts = {p["verdict"] for p in d["pairs"]}
    assert {"gain", "tax", "n/a"} <= verdicts  # the demo shows both sides of the break-even


def test_compare_json_carries_the_value_verdict():
    d = json.loads(run("compare", "--json").stdout)
    pairs, tiers = d["pairs"], {t["tier"]: t for t in d["tiers"]}
    assert {"price_ratio", "price_break_even", "price_break_even_alpha", "value_verdict"} <= set(pairs[0])
    assert {"price_ratio", "price_break_even", "price_break_even_alpha", "effective_alpha", "value_verdict"} <= set(d["tiers"][0])
    # the demo has faster classes that do not pay for their premium
    assert {"worth the premium", "not worth it", "n/a"} <= {p["value_verdict"] for p in pairs}
    for p in pairs:
        if p["value_verdict"] != "n/a":
            worth = p["speedup"] / tiers[tiers[p["tier"]]["baseline"]]["mix_speedup"] >= p["price_ratio"]
            assert (p["value_verdict"] == "worth the premium") is worth, p


def test_compare_text_and_csv(tmp_path):
    text = run("compare").stdout
    assert "mix" in text and "worth the premium" in text and "not worth it" in text
    lines = run("compare", "--csv").stdout.splitlines()
    assert lines[0].startswith("tier,task_class") and len(lines) == 1 + 8 * 6


@pytest.mark.parametrize("args,words", [
    (("calc", "--k", "0", "--c", "0.1"), "--k must be"),
    (("calc", "--k", "3", "--c", "0.1", "--alpha", "1.5"), "--alpha must be"),
    (("compare", "nope.json"), "no such file"),
    # argparse's own refusals: one line too, not a usage block above the error
    (("calc", "--k", "abc", "--c", "0.1"), "--k: invalid int value: 'abc'"),
    (("calc", "--c", "0.1"), "required: --k"),
    (("compare", "--json", "--csv"), "not allowed with argument --json"),
    (("sample", "--provider", "gpu"), "invalid choice: 'gpu'"),
    (("export",), "required"),
    (("--no-such-option",), "unrecognized arguments"),
])
def test_bad_input_is_one_line(args, words):
    r = run(*args)
    assert r.returncode != 0
    assert words in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_bad_workbook_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"format": "specledger-workbook", "schema_version": 1, "tiers": [{"name": "A", "k": 99}]}')
    r = run("compare", str(p))
    assert r.returncode == 1 and "k: must be a whole number from 1 to 64" in r.stderr and "Traceback" not in r.stderr


def test_no_display_says_so_in_one_line():
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, str(ROOT / "main.py")], capture_output=True, text=True, env=env, timeout=60)
    if sys.platform.startswith("linux"):
        assert r.returncode == 2 and "no display" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_model_never_imports_qt():
    code = ("import sys, pkgutil, importlib, model\n"
            "for m in pkgutil.iter_modules(model.__path__):\n"
            "    importlib.import_module('model.' + m.name)\n"
            "bad = [n for n in sys.modules if n.split('.')[0] in ('PySide6', 'pyqtgraph', 'PyQt5', 'PyQt6')]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_calc_optimal_k_is_never_worse_than_the_k_given():
    # before: the search stopped at 16, so K=32 at 24.3x was "beaten" by an "optimal" K=16 at 14.5x
    d = json.loads(run("calc", "--k", "32", "--c", "0.005", "--alpha", "0.99", "--json").stdout)
    assert d["optimal_speedup"] >= d["speedup"] and d["optimal_k"] >= 32
    text = run("calc", "--k", "32", "--c", "0.005", "--alpha", "0.99").stdout
    assert "optimal K in 1..32" in text


def test_calc_takes_alpha_as_a_percentage():
    a = json.loads(run("calc", "--k", "5", "--c", "0.1", "--alpha", "78%", "--json").stdout)
    b = json.loads(run("calc", "--k", "5", "--c", "0.1", "--alpha", "0.78", "--json").stdout)
    assert a["speedup"] == pytest.approx(b["speedup"]) and a["alpha"] == pytest.approx(0.78)


def test_a_missing_xcb_cursor_library_is_named_in_one_line(monkeypatch, capsys):
    # Qt's own abort here is a many-line plugin message and a core dump; the package to install is the news
    import main

    monkeypatch.setattr(main, "_XCB_CURSOR", "libspecledger-test-missing.so.0")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert main.main([]) == 2
    err = capsys.readouterr().err
    assert "libxcb-cursor0" in err and "apt install" in err and len(err.strip().splitlines()) == 1
    # with the library there, nothing is said (the window would start; not started here)
    monkeypatch.setattr(main, "_XCB_CURSOR", "libc.so.6")
    assert main._missing_system_library() is None


def test_the_top_level_help_speaks_to_the_user():
    # it printed main.py's docstring, "Parses arguments and starts things", a note for developers
    r = run("--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())  # argparse wraps at the terminal width
    assert "With no command, opens the window." in text and "Parses arguments" not in text


def test_the_help_says_the_probe_speaks_the_vendors_apis():
    # it said "through its OpenAI-compatible API" after the probe learned the Responses and Messages APIs
    for words in (" ".join(run("--help").stdout.split()), " ".join(run("probe", "--help").stdout.split())):
        assert "OpenAI-compatible API" not in words and "Anthropic" in words, words
