"""A kernel the built-in RTL backend cannot build (floating point) is named, with the reason,
in plan.json, report.md and report.html, and `partition sim` says it skipped it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

APPS = Path(__file__).parent / "cli_apps"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def float_tree(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("float") / "tree"
    subprocess.run(
        [sys.executable, "-m", "partition", "plan", str(APPS / "float_app.py"), "--board", "pynq-z2",
         "--pin-fpga", "gain", "--out", str(tree), "--quiet"],
        check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    return tree


def test_plan_names_the_reason(float_tree):
    data = json.loads((float_tree / "plan.json").read_text())
    t = next(t for t in data["tasks"] if t["name"] == "gain")
    assert t["placement"] == "fpga"
    assert t["rtl"]["status"] == "unsupported"
    assert "float" in t["rtl"]["reason"]
    assert (float_tree / "hls" / t["kernel"]).is_dir()
    assert not (float_tree / "rtl" / t["kernel"]).exists()


def test_reports_list_it(float_tree):
    data = json.loads((float_tree / "plan.json").read_text())
    reason = next(t for t in data["tasks"] if t["name"] == "gain")["rtl"]["reason"]
    md = (float_tree / "report.md").read_text()
    assert f"built-in RTL: not built: {reason}" in md
    html = (float_tree / "report.html").read_text()
    assert 'data-rtl="unsupported"' in html
    import html as h

    assert h.escape(reason, quote=False) in html or reason in html


def test_sim_skips_it_with_the_reason(float_tree):
    proc = subprocess.run(
        [sys.executable, "-m", "partition", "sim", str(float_tree)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "skipped gain" in proc.stdout and "float" in proc.stdout
