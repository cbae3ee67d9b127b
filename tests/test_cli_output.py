"""What `partition plan` prints: --json against its schema, --quiet, progress on a TTY and in logs."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from partition.report import SCHEMA_PATH, progress

APPS = Path(__file__).parent / "cli_apps"
ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PARTITION_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "partition", *args], capture_output=True, text=True, env=_env(), timeout=300
    )


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prof") / "small.profile.json"
    r = run("profile", str(APPS / "small_app.py"), "--out", str(out), "--no-baseline", "--", "300")
    assert r.returncode == 0, r.stderr
    return out


def plan_args(tmp: Path, profile: Path, *extra: str) -> list[str]:
    app = str(APPS / "small_app.py")
    return ["plan", app, "--board", "pynq-z2", "--profile", str(profile), "--out", str(tmp / "b"), *extra]


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_json_output_is_the_plan_and_a_summary_and_validates(tmp_path, profile, validator):
    r = run(*plan_args(tmp_path, profile, "--json"))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # the whole of stdout is one document
    validator.validate(doc)
    plan_json = json.loads((tmp_path / "b" / "plan.json").read_text())
    assert doc["plan"] == plan_json
    s = doc["summary"]
    assert s["fpga"] == [t["name"] for t in plan_json["tasks"] if t["placement"] == "fpga"] == ["scale_add"]
    assert s["predicted"] == plan_json["predicted"]
    lut = plan_json["resources"]["used"]["lut"] + plan_json["resources"]["shell"]["lut"]
    assert s["resources"]["lut"]["total"] == lut
    assert s["files"]["report_html"] == str(tmp_path / "b" / "report.html")
    assert (tmp_path / "b" / "report.html").is_file()
    assert s["timings"]["profile_s"] is None and s["timings"]["partition_s"] > 0
    # progress went to stderr, as plain lines (stderr is not a terminal here)
    assert "partition: planning: translate, estimate, solve (cbc): " in r.stderr
    assert "\x1b[" not in r.stderr and "\r" not in r.stderr


def test_the_schema_rejects_what_is_not_a_plan(tmp_path, profile, validator):
    r = run(*plan_args(tmp_path, profile, "--json", "--quiet"))
    assert r.returncode == 0 and r.stderr == ""
    doc = json.loads(r.stdout)
    bad = json.loads(r.stdout)
    bad["plan"]["tasks"][0]["placement"] = "gpu"
    assert not validator.is_valid(bad)
    bad = json.loads(r.stdout)
    del bad["summary"]["predicted"]
    assert not validator.is_valid(bad)
    bad = json.loads(r.stdout)
    fpga = next(t for t in bad["plan"]["tasks"] if t["placement"] == "fpga")
    del fpga["fpga"]
    assert not validator.is_valid(bad)
    assert validator.is_valid(doc)


def test_quiet_prints_only_errors(tmp_path, profile):
    r = run(*plan_args(tmp_path, profile, "--quiet"))
    assert r.returncode == 0
    assert r.stdout == "" and r.stderr == ""
    r = run(*plan_args(tmp_path, profile, "--quiet", "--pin-fpga", "nothing_like_it", "--force"))
    assert r.returncode != 0 and r.stdout == ""
    assert r.stderr.startswith("partition: error: --pin-fpga nothing_like_it") and r.stderr.count("\n") == 1


def test_without_a_terminal_each_step_is_one_plain_line(tmp_path):
    r = run(
        "plan", str(APPS / "small_app.py"), "--board", "pynq-z2", "--out", str(tmp_path / "b"), "--", "200"
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert [ln.split(":")[1].strip().split(" ")[0] for ln in lines] == ["profiling", "planning", "generating"]
    assert all(ln.startswith("partition: ") and ln.endswith(" s") for ln in lines), lines
    assert "partition plan: small_app.py on pynq-z2" in r.stdout


def test_on_a_terminal_steps_are_live_lines(tmp_path, profile):
    """stderr on a pseudo-terminal: spinner lines redrawn in place, a ✓ line per finished step."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "partition", *plan_args(tmp_path, profile)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=_env(),
    )
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:  # the other side closed
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    stdout = proc.communicate(timeout=60)[0].decode()
    os.close(master)
    shown = b"".join(chunks).decode()
    assert proc.returncode == 0, shown
    assert "✓ planning: translate, estimate, solve (cbc)" in shown
    assert "✓ generating the build tree" in shown
    assert "\r" in shown and "\x1b[K" in shown
    assert "partition plan: small_app.py" in stdout and "\x1b[" not in stdout


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_reporter_bar_and_output_above_the_live_line(monkeypatch):
    out = FakeTTY()
    monkeypatch.setattr(sys, "stderr", out)
    rep = progress.Reporter()
    assert rep.tty and rep.stream is out
    with progress.use(rep), progress.step("simulating", total=4) as s:
        assert progress.current() is rep
        s.update(detail="fir_q15")
        s.advance(2)
        print("a line from the tool", file=sys.stderr)
    assert sys.stderr is out  # given back
    text = out.getvalue()
    assert "[██████████░░░░░░░░░░] 2/4 simulating · fir_q15" in text
    assert "\r\x1b[Ka line from the tool\n" in text  # the live line was cleared first
    assert re.search(r"\r\x1b\[K✓ simulating \(2/4\)  \d+\.\d+ s\n$", text), text
    assert progress.current() is not rep


def test_reporter_plain_quiet_and_failure():
    out = io.StringIO()
    rep = progress.Reporter(out)
    assert not rep.tty
    with pytest.raises(ValueError), rep.step("synthesizing", total=2) as s:
        s.advance()
        raise ValueError("yosys died")
    assert out.getvalue() == ""  # the error message that follows tells it
    with rep.step("synthesizing", total=2) as s:
        s.advance(2)
    assert re.fullmatch(r"partition: synthesizing \(2/2\): \d+\.\d+ s\n", out.getvalue())
    tty = FakeTTY()
    with pytest.raises(ValueError), progress.Reporter(tty).step("simulating"):
        raise ValueError("verilator died")
    assert re.search(r"\r\x1b\[K✗ simulating  failed after \d+\.\d+ s\n$", tty.getvalue())
    quiet = FakeTTY()
    with progress.Reporter(quiet, quiet=True).step("profiling") as s:
        s.advance()
    assert quiet.getvalue() == ""
    # without a reporter installed, steps are silent (library use)
    with progress.step("solving"):
        pass


def test_off_a_terminal_a_long_step_says_it_is_still_running(monkeypatch):
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.05)
    out = io.StringIO()
    with progress.Reporter(out).step("profiling app.py"):
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and re.fullmatch(r"partition: profiling app.py: \d+\.\d+ s", lines[-1])
    assert all(re.fullmatch(r"partition: profiling app.py: still running, \d+\.\d+ s", x) for x in lines[:-1])


def test_report_command(tmp_path, profile):
    assert run(*plan_args(tmp_path, profile, "--quiet")).returncode == 0
    tree = tmp_path / "b"
    res = tree / "results" / "scale_add"
    res.mkdir(parents=True)
    (res / "csim.json").write_text(
        json.dumps(
            {
                "format": "partition-result/1",
                "kernel": "scale_add",
                "step": "csim",
                "status": "pass",
                "vectors": 1,
            }
        )
    )
    r = run("report", str(tree))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"report: {tree / 'report.html'} (1 verification result(s) of 1 kernel(s))\n"
    assert 'data-step="csim" data-status="pass"' in (tree / "report.html").read_text()
    r = run("report", str(tmp_path / "nope"))
    assert r.returncode != 0 and r.stderr.startswith("partition: error: ") and "Traceback" not in r.stderr
    (res / "csim.json").write_text("{}")
    r = run("report", str(tree))
    assert r.returncode != 0 and "csim.json: not a partition-result/1 results file" in r.stderr


def test_json_of_every_example_validates(example_builds, validator):
    from partition.report import plan_output

    for name, (tree, plan_data) in sorted(example_builds.items()):
        doc = json.loads(plan_output(plan_data, str(tree), {"profile_s": 1.0, "partition_s": 0.5}))
        errors = sorted(validator.iter_errors(doc), key=str)
        assert not errors, f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}"
