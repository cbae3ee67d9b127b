"""The command line: what a user sees, including every bad input the issue lists."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from partition.errors import PartitionError

APPS = Path(__file__).parent / "cli_apps"
ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PARTITION_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "partition", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def small_profile(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("prof")
    out = d / "small.profile.json"
    r = run("profile", str(APPS / "small_app.py"), "--out", str(out), "--", "500")
    assert r.returncode == 0, r.stderr
    assert "overhead" in r.stdout
    return out


def plan(tmp: Path, profile: Path, *extra: str, out: str = "b") -> subprocess.CompletedProcess:
    return run(
        "plan",
        str(APPS / "small_app.py"),
        "--board",
        "pynq-z2",
        "--profile",
        str(profile),
        "--out",
        str(tmp / out),
        *extra,
    )


def assert_clean_error(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode != 0
    assert r.stderr.startswith("partition: error: "), r.stderr
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, (n, r.stderr)


def test_help_lists_commands_and_options():
    r = run("--help")
    assert r.returncode == 0
    for word in ("profile", "plan", "boards"):
        assert word in r.stdout
    r = run("plan", "--help")
    for opt in (
        "--board",
        "--out",
        "--objective",
        "--max-util",
        "--pin-cpu",
        "--pin-fpga",
        "--profile",
        "--force",
    ):
        assert opt in r.stdout
    r = run("profile", "--help")
    assert "-- ARGS" in r.stdout


def test_boards_lists_the_pynq_z2():
    r = run("boards")
    assert r.returncode == 0
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("pynq-z2"))
    assert "xc7z020clg400-1" in line and "53,200" in line and "220" in line


def test_plan_from_profile_is_deterministic(tmp_path, small_profile):
    a = plan(tmp_path, small_profile, out="a")
    b = plan(tmp_path, small_profile, out="b")
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stderr
    ta, tb = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert ta == tb
    text = b"".join(ta.values())
    assert str(tmp_path).encode() not in text and str(ROOT).encode() not in text
    data = json.loads(ta["plan.json"])
    placed = {t["name"]: t["placement"] for t in data["tasks"]}
    assert placed["scale_add"] == "fpga" and placed["describe"] == "cpu"
    assert data["predicted"]["speedup"] > 1
    assert "hls/scale_add/scale_add.cpp" in ta


def test_csim_of_the_generated_tree_passes(tmp_path, small_profile):
    r = plan(tmp_path, small_profile)
    assert r.returncode == 0, r.stderr
    m = subprocess.run(
        ["make", "-C", str(tmp_path / "b"), "csim"], capture_output=True, text=True, timeout=300
    )
    assert m.returncode == 0, m.stdout + m.stderr
    assert "scale_add csim: PASS" in m.stdout


def test_unsupported_constructs_are_reasons_in_the_report(tmp_path, small_profile):
    assert plan(tmp_path, small_profile).returncode == 0
    report = (tmp_path / "b" / "report.md").read_text()
    assert "not translatable: small_app.py:" in report
    assert "describe" in report


def test_missing_app(tmp_path):
    r = run("plan", str(tmp_path / "nope.py"), "--board", "pynq-z2", "--out", str(tmp_path / "b"))
    assert_clean_error(r, "nope.py: no such file")
    assert not (tmp_path / "b").exists()


def test_app_with_syntax_error(tmp_path):
    r = run("plan", str(APPS / "syntax_error_app.py"), "--board", "pynq-z2", "--out", str(tmp_path / "b"))
    assert_clean_error(r, "syntax_error_app.py:1: syntax error")
    assert not (tmp_path / "b").exists()


def test_app_that_raises_shows_its_own_traceback(tmp_path):
    r = run("plan", str(APPS / "raises_app.py"), "--board", "pynq-z2", "--out", str(tmp_path / "b"))
    assert r.returncode != 0
    assert "ValueError: the app's own failure" in r.stderr
    assert "partition: error:" in r.stderr
    assert "partition/" not in r.stderr.split("partition: error:")[0].replace("partition: error", "")
    assert not (tmp_path / "b").exists()


def test_unknown_board_lists_known_ones(tmp_path, small_profile):
    r = run("plan", str(APPS / "small_app.py"), "--board", "pynq-z9", "--profile", str(small_profile))
    assert_clean_error(r, "pynq-z9", "pynq-z2", "zcu104")


def test_malformed_board_file_names_the_key(tmp_path, small_profile):
    src = (ROOT / "boards" / "pynq-z2.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(src.replace("lut = 53200", "lut = -5", 1))
    assert "lut = -5" in bad.read_text()
    r = run("plan", str(APPS / "small_app.py"), "--board", str(bad), "--profile", str(small_profile))
    assert_clean_error(r, "bad.toml", "lut")


def test_budget_no_kernel_fits_plans_all_on_the_cpu_and_names_the_resource(tmp_path, small_profile):
    for util, says in (("0.02", ("no kernel fits the budget", "scale_add")), ("0.0001", ("shell alone",))):
        r = plan(tmp_path, small_profile, "--max-util", util, "--force")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        data = json.loads((tmp_path / "b" / "plan.json").read_text())
        assert all(t["placement"] == "cpu" for t in data["tasks"])
        (warning,) = data["warnings"]
        assert all(s in warning for s in says), warning
        assert any(res in warning for res in ("LUT", "FF", "DSP", "BRAM"))
        assert f"warning: {warning}" in r.stdout


def test_user_changes_are_not_overwritten_without_force(tmp_path, small_profile):
    assert plan(tmp_path, small_profile).returncode == 0
    report = tmp_path / "b" / "report.md"
    report.write_text("my notes\n")
    r = plan(tmp_path, small_profile)
    assert_clean_error(r, "report.md", "--force")
    assert report.read_text() == "my notes\n"
    r = plan(tmp_path, small_profile, "--force")
    assert r.returncode == 0
    assert report.read_text() != "my notes\n"


def test_foreign_folder_is_not_replaced(tmp_path, small_profile):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "thesis.tex").write_text("important")
    r = plan(tmp_path, small_profile)
    assert_clean_error(r, "not written by partition")
    assert (tmp_path / "b" / "thesis.tex").read_text() == "important"


def test_pins(tmp_path, small_profile):
    r = plan(tmp_path, small_profile, "--pin-cpu", "scale_add")
    assert r.returncode == 0
    data = json.loads((tmp_path / "b" / "plan.json").read_text())
    t = next(t for t in data["tasks"] if t["name"] == "scale_add")
    assert t["placement"] == "cpu" and t["reason"] == "pinned to the CPU"
    r = plan(tmp_path, small_profile, "--pin-fpga", "describe", "--force")
    assert r.returncode == 0, r.stderr  # a function that cannot be a kernel stays on the CPU, saying why
    data = json.loads((tmp_path / "b" / "plan.json").read_text())
    t = next(t for t in data["tasks"] if t["name"] == "describe")
    assert t["placement"] == "cpu" and t["reason"].startswith("not translatable: small_app.py:")
    assert any(w.startswith("--pin-fpga describe: it cannot become a kernel") for w in data["warnings"])
    r = plan(tmp_path, small_profile, "--pin-fpga", "nothing_like_it", "--force")
    assert_clean_error(r, "nothing_like_it", "scale_add")


def test_profile_of_another_app_is_refused(tmp_path, small_profile):
    other = tmp_path / "other.py"
    shutil.copy(APPS / "small_app.py", other)
    r = run(
        "plan",
        str(other),
        "--board",
        "pynq-z2",
        "--profile",
        str(small_profile),
        "--out",
        str(tmp_path / "x"),
    )
    assert_clean_error(r, "small_app.py", "other.py")


def test_bad_out_and_options_are_refused_before_the_app_runs(tmp_path):
    """Checks that need no profile come first: the app (which leaves a mark when it runs) never
    starts, and each error names the option and what to do."""
    home = tmp_path / "proj"
    home.mkdir()
    app = home / "marks.py"
    app.write_text("from pathlib import Path\nPath(__file__).with_name('ran').write_text('')\n")
    afile = tmp_path / "afile"
    afile.write_text("")
    cases = [
        (("--out", str(afile / "out")), f"{afile} is a file, not a folder"),
        (("--out", str(home), "--force"), "holds marks.py"),
        (("--out", str(tmp_path), "--force"), "holds marks.py"),
        (("--out", "..", "--force"), "holds marks.py"),
        (("--max-util", "0"), "--max-util 0.0: give a fraction in (0, 1]"),
        (("--time-limit", "-1"), "--time-limit -1.0"),
        (("--top-k", "0"), "--top-k 0"),
        (("--workers", "-2"), "--workers -2"),
    ]
    for extra, needle in cases:
        r = run("plan", str(app), "--board", "pynq-z2", *extra, cwd=home)
        assert_clean_error(r, needle)
        assert r.returncode == 2 and not (home / "ran").exists(), extra
    work = home / "work"
    work.mkdir()
    r = run("plan", str(app), "--board", "pynq-z2", "--out", ".", "--force", cwd=work)
    assert_clean_error(r, "which is the working folder")
    assert not (home / "ran").exists()


def test_an_out_folder_on_a_full_file_system_is_refused_up_front(tmp_path, monkeypatch):
    import collections

    from partition import fsutil

    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(fsutil.shutil, "disk_usage", lambda p: usage(10**9, 10**9 - 5 * 10**6, 5 * 10**6))
    with pytest.raises(PartitionError, match=r"--out .*/b: 5 MB free on its file system; .* at least 67 MB"):
        fsutil.check_out(tmp_path / "b", APPS / "small_app.py")
    monkeypatch.setattr(fsutil.shutil, "disk_usage", lambda p: usage(10**10, 0, 10**10))
    fsutil.check_out(tmp_path / "b", APPS / "small_app.py")


def test_a_file_in_latin_1_with_its_coding_line_plans(tmp_path):
    """PEP 263: the source is read in the encoding its coding line declares, as Python reads it."""
    app = tmp_path / "mesure.py"
    app.write_bytes(
        "# -*- coding: latin-1 -*-\n"
        '"""Mesure de la température (°C)."""\n'
        "import numpy as np\n\n\n"
        "def lisse(x):  # moyenne glissante, réglée à la main\n"
        "    y = np.zeros(x.shape[0], dtype=np.int32)\n"
        "    for i in range(1, x.shape[0]):\n"
        "        y[i] = (int(x[i]) + int(x[i - 1])) >> 1\n"
        "    return y\n\n\n"
        "if __name__ == '__main__':\n"
        "    print(int(lisse(np.arange(64, dtype=np.int16)).sum()), 'degrés')\n".encode("latin-1")
    )
    r = run("plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "out"), "--json")
    assert r.returncode == 0, r.stderr
    task = next(t for t in json.loads(r.stdout)["plan"]["tasks"] if t["name"] == "lisse")
    assert task.get("kernel") == "lisse", task.get("reason")


def test_the_apps_standard_input_is_passed_through(tmp_path):
    """An app that asks for input gets partition's stdin, in its profiled and its plain run."""
    app = tmp_path / "ask.py"
    app.write_text(
        "import numpy as np\n\n\ndef scale(x, k):\n    y = np.zeros(x.shape[0], dtype=np.int32)\n"
        "    for i in range(x.shape[0]):\n        y[i] = int(x[i]) * k\n    return y\n\n\n"
        "if __name__ == '__main__':\n    n = int(input('samples? '))\n    k = int(input('gain? '))\n"
        "    print(int(scale(np.arange(n, dtype=np.int16), k).sum()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "partition", "profile", str(app), "--out", str(tmp_path / "p.json")]
    r = subprocess.run(cmd, input="64\n3\n", capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "plain" in r.stdout  # the plain run got the same input and ran to its end
    sample = json.loads((tmp_path / "p.json").read_text())["functions"]["scale"]["samples"][0]
    assert sample["args"][0]["shape"] == [64] and sample["args"][1]["v"] == 3
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode != 0 and "EOFError" in r.stderr  # the app's own traceback, then the hint
    assert "partition: error: ask.py: the app failed" in r.stderr and "< input.txt" in r.stderr


POLLING_APP = """import time

import numpy as np


def smooth(x):
    y = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(1, x.shape[0]):
        y[i] = (int(x[i]) + int(x[i - 1])) >> 1
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    while True:  # a board app's main loop: poll, filter, forever
        try:
            smooth(rng.integers(-100, 100, 256, dtype=np.int16))
        except Exception:
            pass
        time.sleep(0.01)
"""


def test_an_app_that_never_ends_is_stopped_or_planned_from_part_of_its_run(tmp_path):
    app = tmp_path / "poll.py"
    app.write_text(POLLING_APP)
    r = run("plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "o"), "--app-timeout", "1")
    assert_clean_error(r, "did not finish within 1 s (--app-timeout)", "--profile-for SECONDS")
    assert not (tmp_path / "o").exists()
    r = run("plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "o"), "--profile-for", "1")
    assert r.returncode == 0, r.stderr
    assert "the app was stopped after 1 s (--profile-for)" in r.stdout
    data = json.loads((tmp_path / "o" / "plan.json").read_text())
    assert next(t for t in data["tasks"] if t["name"] == "smooth").get("kernel") == "smooth"
    profile = json.loads((tmp_path / "o" / "profile.json").read_text())
    assert profile["stopped_after_s"] == 1 and profile["functions"]["smooth"]["calls"] > 5
    assert_clean_error(run("plan", str(app), "--board", "pynq-z2", "--profile-for", "0"), "--profile-for 0")


def start(*args: str, group: bool = False, stderr=subprocess.PIPE, **env: str) -> subprocess.Popen:
    """`partition ARGS` started in the background (`group`: in a session of its own, as a
    terminal's foreground job is, so a Ctrl-C can reach the whole group)."""
    return subprocess.Popen(
        [sys.executable, "-m", "partition", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
        start_new_session=group,
    )


def app_running_under(proc: subprocess.Popen) -> list:
    """The child processes of a `partition` run once the app it profiles is in its main loop."""
    import time

    import psutil

    deadline = time.monotonic() + 60
    children: list = []
    while not children and time.monotonic() < deadline:
        children = psutil.Process(proc.pid).children()
        time.sleep(0.1)
    assert children, "the app never started"
    time.sleep(1)  # the app is in its main loop
    return children


def test_the_profiled_app_dies_with_partition_even_on_sigkill(tmp_path):
    import signal

    import psutil

    app = tmp_path / "poll.py"
    app.write_text(POLLING_APP)
    proc = start("profile", str(app), "--out", str(tmp_path / "p.json"), stderr=subprocess.DEVNULL)
    try:
        children = app_running_under(proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _gone, alive = psutil.wait_procs(children, timeout=3)
        assert not alive, alive
    finally:
        proc.kill()


def test_one_run_at_a_time_on_an_out_folder_and_a_dead_runs_leftovers_go(tmp_path, small_profile):
    from partition.fsutil import out_lock

    out = tmp_path / "b"
    with out_lock(out):  # another run is writing b
        r = plan(tmp_path, small_profile)
        assert_clean_error(r, f"--out {out}: another partition run (process {os.getpid()})", "another --out")
        assert r.returncode == 2 and not out.exists()
        for left in (".b.new.k1lled", ".b.old.k1lled"):  # what a killed run leaves beside b
            (tmp_path / left).mkdir()
            (tmp_path / left / "plan.json").write_text("{}")
    r = plan(tmp_path, small_profile)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / ".b.new.k1lled").exists() and not (tmp_path / ".b.old.k1lled").exists()


def test_sigterm_while_profiling_ends_the_app_and_exits_143(tmp_path):
    import signal

    import psutil

    app = tmp_path / "poll.py"
    app.write_text(POLLING_APP)
    proc = start("plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "o"))
    try:
        children = app_running_under(proc)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 143
        assert "partition: terminated (SIGTERM)" in proc.stderr.read()
        _gone, alive = psutil.wait_procs(children, timeout=3)
        assert not alive, alive
        assert not (tmp_path / "o").exists()
    finally:
        proc.kill()


def test_ctrl_c_stops_partition_even_when_the_app_ignores_it(tmp_path):
    """Ctrl-C reaches the whole foreground process group: the app's own handler swallows it,
    partition does not, and takes the app down with it."""
    import signal

    import psutil

    app = tmp_path / "deaf.py"
    app.write_text(
        "import signal\nimport time\n\n\ndef work(n):\n    s = 0\n    for i in range(n):\n        s += i\n"
        "    return s\n\n\nif __name__ == '__main__':\n"
        "    signal.signal(signal.SIGINT, lambda *a: print('app: ignoring Ctrl-C'))\n"
        "    while True:\n        work(64)\n        time.sleep(0.01)\n"
    )
    proc = start("plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "o"), group=True)
    try:
        children = app_running_under(proc)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        assert proc.wait(timeout=10) == 130
        assert "partition: interrupted" in proc.stderr.read()
        _gone, alive = psutil.wait_procs(children, timeout=3)
        assert not alive, alive
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _when_running(proc: subprocess.Popen, names: set[str]) -> list:
    """The processes below `proc` once one of them is named in `names` (a compiler, a tool)."""
    import time

    import psutil

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        below = psutil.Process(proc.pid).children(recursive=True)
        if any(p.name() in names for p in below if p.is_running()):
            return below
        time.sleep(0.05)
    raise AssertionError(f"none of {names} started under partition")


@pytest.mark.sim
def test_sigterm_while_verilator_compiles_ends_the_compilers_too(tmp_path, small_profile):
    """make's children (the C++ compilers) are below partition too: none outlives it."""
    import signal

    import psutil

    assert plan(tmp_path, small_profile).returncode == 0
    proc = start("sim", str(tmp_path / "b"), CCACHE_DISABLE="1")
    try:
        below = _when_running(proc, {"cc1plus", "c++", "g++"})
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 143
        assert proc.stderr.read() == "partition: terminated (SIGTERM)\n"
        _gone, alive = psutil.wait_procs(below, timeout=3)
        assert not alive, alive
        assert not list((tmp_path / "b" / "results").rglob("rtl_sim.json"))
    finally:
        proc.kill()


@pytest.mark.sim
def test_ctrl_c_during_partition_measure_on_a_local_cluster(tmp_path, small_profile):
    """Ctrl-C reaches the Dask workers too: they end with partition, silently."""
    import signal

    import psutil

    assert plan(tmp_path, small_profile).returncode == 0
    proc = start("measure", str(tmp_path / "b"), "--tools", "yosys", "--workers", "2", group=True)
    try:
        below = _when_running(proc, {"yosys"})
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=10) == 130
        err = proc.stderr.read().splitlines()
        assert err[-1] == "partition: interrupted" and all(ln.startswith("measure [") for ln in err[:-1]), err
        _gone, alive = psutil.wait_procs(below, timeout=3)
        assert not alive, alive
        assert not (tmp_path / "b" / "results" / "measure.json").exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.sim
def test_ctrl_c_during_make_cosim_ends_make_partition_and_the_compilers(tmp_path, small_profile):
    """Ctrl-C at a terminal running `make cosim` reaches the whole job (make, partition, the
    model's C++ build): everything ends within seconds and no cosim result is left."""
    import signal

    import psutil

    assert plan(tmp_path, small_profile).returncode == 0
    exe = Path(sys.executable).parent / "partition"
    proc = subprocess.Popen(
        ["make", "-C", str(tmp_path / "b"), "cosim", f"PARTITION={exe}"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "CCACHE_DISABLE": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        below = _when_running(proc, {"cc1plus", "c++", "g++"})
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=10) != 0
        assert "partition: interrupted" in proc.stderr.read()
        _gone, alive = psutil.wait_procs(below, timeout=3)
        assert not alive, alive
        assert not (tmp_path / "b" / "results" / "cosim.json").exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def test_temporary_folders_of_killed_runs_are_removed_by_the_next(tmp_path):
    import tempfile

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid no longer names a process
    tmp = Path(tempfile.gettempdir())
    stale = [tmp / f"partition-profile-{dead.pid}-test", tmp / f"partition-replay-{dead.pid}-test"]
    live = tmp / f"partition-replay-{os.getpid()}-test"  # this process is alive: kept
    for d in (*stale, live):
        d.mkdir(exist_ok=True)
        (d / "result.json").write_text("{}")
    try:
        r = run(
            "profile",
            str(APPS / "small_app.py"),
            "--out",
            str(tmp_path / "p.json"),
            "--no-baseline",
            "--",
            "50",
        )
        assert r.returncode == 0, r.stderr
        assert not any(d.exists() for d in stale) and live.exists()
    finally:
        for d in (*stale, live):
            shutil.rmtree(d, ignore_errors=True)


def test_bad_profile_file(tmp_path):
    p = tmp_path / "p.json"
    p.write_text("{not json")
    r = run("plan", str(APPS / "small_app.py"), "--board", "pynq-z2", "--profile", str(p))
    assert_clean_error(r, "p.json:1")


def test_a_damaged_or_edited_profile_is_refused_with_what_is_wrong(tmp_path, small_profile):
    data = json.loads(small_profile.read_text())
    name, fp = next((n, f) for n, f in data["functions"].items() if any(
        a.get("t") == "ndarray" for s in f.get("samples", []) for a in s["args"]))  # fmt: skip
    pos = next(i for i, a in enumerate(fp["samples"][0]["args"]) if a.get("t") == "ndarray")

    def edited(change) -> str:
        d = json.loads(small_profile.read_text())
        change(d["functions"][name]["samples"][0]["args"][pos])
        p = tmp_path / "edited.json"
        p.write_text(json.dumps(d))
        r = run("plan", str(APPS / "small_app.py"), "--board", "pynq-z2", "--profile", str(p),
                "--out", str(tmp_path / "o"))  # fmt: skip
        assert r.returncode == 2
        assert_clean_error(r, "edited.json: malformed profile", f"function {name}, call 0, argument {pos}")
        return r.stderr

    assert "data is not base64" in edited(lambda a: a.update(data=a["data"][:-3]))
    assert "dtype 'int7'" in edited(lambda a: a.update(dtype="int7"))
    assert "shape [-4]" in edited(lambda a: a.update(shape=[-4]))
    assert "bytes of data for shape" in edited(lambda a: a.update(shape=[a["shape"][0] + 1]))
    assert not (tmp_path / "o").exists()


def test_a_fresh_profile_changes_only_measured_figures(tmp_path, small_profile):
    again = tmp_path / "again.json"
    r = run("profile", str(APPS / "small_app.py"), "--out", str(again), "--no-baseline", "--", "500")
    assert r.returncode == 0, r.stderr
    assert plan(tmp_path, small_profile, out="one").returncode == 0
    assert plan(tmp_path, again, out="two").returncode == 0
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert set(one) == set(two)
    measured = {"plan.json", "profile.json", "graph.json", "graph.dot", "report.md", "report.html"}
    measured |= {".partition/manifest.json", "host/small_app_kernels.json"}  # the spec carries predictions
    for rel in sorted(set(one) - measured):
        assert one[rel] == two[rel], rel
