"""partition measure: every kernel variant of a build tree through Verilator and yosys, on Dask.

One small app (one integer kernel, five variants) keeps the tool runs to about a minute; the
benchmark (benchmarks/bench_measure.py) measures the examples. The cluster's figures are
checked against jobs run in this process, the cache against a second run, a worker killed
mid-job against Dask's retry, a broken variant against the others, and bad input against a
clear error with nothing written under results/.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from pathlib import Path

import pytest

from partition.cli import main
from partition.estimate.calibrate import load_measurements
from partition.measure import Job, jobs_for_tree, measure_tree, passed, run_job, run_jobs

APP = '''"""A frame check: a rolling checksum over int16 samples."""
import numpy as np


def rolling_checksum(y: np.ndarray) -> int:
    s = 0
    for i in range(y.shape[0]):
        s = (s * 31 + int(y[i])) & 0xFFFF
    return s


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    for _ in range(3):
        print(rolling_checksum(rng.integers(-2000, 2000, 48, dtype=np.int16)))
'''


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory, verilator_env, yosys_exe) -> Path:
    base = tmp_path_factory.mktemp("measure")
    app = base / "frames.py"
    app.write_text(APP)
    assert main(["plan", str(app), "--board", "pynq-z2", "--out", str(base / "tree"), "--force"]) == 0
    return base / "tree"


@pytest.fixture(scope="module")
def measured(tree: Path, tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("cache")
    return measure_tree(tree, workers=2, cache=cache), cache


def _results(tree: Path) -> dict[str, bytes]:
    root = tree / "results"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_variant_is_measured_on_two_workers_as_in_this_process(tree: Path, measured) -> None:
    m, _ = measured
    plan = json.loads((tree / "plan.json").read_text())
    task = next(t for t in plan["tasks"] if t.get("kernel") == "rolling_checksum")
    variants = [v["name"] for v in task["fpga"]["variants"]]
    assert len(variants) >= 4 and not m.skipped
    assert [(j.kernel, j.variant) for j in m.jobs] == [("rolling_checksum", v) for v in variants]
    assert not m.failed, [r for r in m.records if not passed(r)]
    for r in m.records:
        assert r["rtl_sim"]["vectors"] >= 3 and r["yosys"]["lut"] > 0
    # the same jobs run here, one after another, give the same records (two of them: each
    # run of the tools takes seconds)
    for job, record in list(zip(m.jobs, m.records))[:2]:
        assert run_job(job) == record
    # --calibrate reads every variant's figures
    ms = {mm.variant: mm for mm in load_measurements(tree, ["rolling_checksum"]) if mm.source == "rtl"}
    assert set(ms) == set(variants)
    for v, r in zip(variants, m.records):
        assert ms[v].cycles == max(r["rtl_sim"]["cycles_per_vector"])
        assert ms[v].resources["lut"] == r["yosys"]["lut"]
        assert ms[v].origin["cycles"] == f"results/rolling_checksum/variants/{v}/rtl_sim.json"


def test_a_second_run_is_all_cache_hits_and_writes_the_same_files(tree: Path, measured) -> None:
    m, cache = measured
    before = _results(tree)
    again = measure_tree(tree, workers=2, cache=cache)
    assert again.hits == len(again.records) == len(m.records)
    assert again.records == m.records
    assert _results(tree) == before


def _die_once(folder: Path, job: Job) -> dict:
    """A job that kills its worker process the first time it runs (a marker file in `folder` tells)."""
    marker = folder / f"{job.variant}.started"
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    return {"kernel": job.kernel, "variant": job.variant, "key": job.key, "yosys": {"status": "pass"}}


def test_a_killed_workers_job_is_retried(tmp_path: Path) -> None:
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
    jobs = [Job("k", f"v{i}", "top", (), (), (), "xc7", (0, 0), 5_000_000, ()) for i in range(3)]
    records, hits = run_jobs(
        jobs, workers=2, cache=None, progress=None, fn=functools.partial(_die_once, tmp_path)
    )
    assert hits == 0
    assert [r["variant"] for r in records] == ["v0", "v1", "v2"] and all(passed(r) for r in records)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v0.started", "v1.started", "v2.started"]


def test_a_broken_variant_fails_alone(tree: Path, tmp_path: Path) -> None:
    jobs, _ = jobs_for_tree(tree, tools=("yosys",))
    good, bad = jobs[0], jobs[1]
    files = tuple(
        (rel, b"module broken(\n" if rel.endswith(f"{bad.top}.v") else data) for rel, data in bad.files
    )
    bad = dataclasses.replace(bad, files=files)
    records, _ = run_jobs([good, bad], workers=1, cache=tmp_path, progress=None)
    assert passed(records[0]) and not passed(records[1])
    assert records[1]["yosys"]["status"] == "error" and "<job>" in records[1]["yosys"]["detail"]
    assert [p.name for p in tmp_path.iterdir()] == [f"{good.key}.json"]  # failures are not cached


def test_bad_input_is_a_clear_error_and_nothing_is_written(
    tree: Path, measured, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    before = _results(tree)
    fresh = tmp_path / "fresh-cache"

    def error(*argv: str) -> str:
        capsys.readouterr()
        assert main(["measure", *argv]) == 2
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return out.err

    assert "cannot reach a Dask scheduler" in error(
        str(tree), "--scheduler", "tcp://127.0.0.1:9", "--cache", str(fresh), "--variants", "chosen"
    )
    afile = tmp_path / "afile"
    afile.write_text("")
    assert "not a writable folder" in error(str(tree), "--cache", str(afile / "sub"))
    assert "unknown tool vivado" in error(str(tree), "--tools", "yosys,vivado")
    assert _results(tree) == before
    old = tmp_path / "old"
    old.mkdir()
    plan = json.loads((tree / "plan.json").read_text())
    (old / "plan.json").write_text(json.dumps({**plan, "format": "partition-plan/0"}))
    assert "written by another version" in error(str(old))
    assert "no such folder" in error(str(tmp_path / "nowhere"))
    assert not (old / "results").exists()


FAKE_VITIS = """#!/bin/sh
# stands in for vitis_hls -f run_hls.tcl: writes the csynth report where Vitis HLS writes it
grep -q '^csynth_design$' run_hls.tcl && ! grep -q '^csim_design$' run_hls.tcl || exit 3  # csynth alone
[ "$1 $2" = "-f run_hls.tcl" ] && [ -f run_hls.tcl ] && [ -f ../include/partition_ops.h ] || exit 4
top=$(sed -n 's/^set_top //p' run_hls.tcl)
mkdir -p prj/sol1/syn/report
cat > "prj/sol1/syn/report/${top}_csynth.xml" <<EOF
<profile><UserAssignments><TopModelName>$top</TopModelName><TargetClockPeriod>10.00</TargetClockPeriod>
</UserAssignments><PerformanceEstimates><SummaryOfOverallLatency><Worst-caseLatency>1234</Worst-caseLatency>
<Interval-min>1235</Interval-min></SummaryOfOverallLatency></PerformanceEstimates><AreaEstimates><Resources>
<BRAM_18K>2</BRAM_18K><DSP>3</DSP><FF>456</FF><LUT>789</LUT></Resources></AreaEstimates></profile>
EOF
"""


def test_vitis_csynth_runs_where_the_tool_is_and_is_named_where_not(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from partition.measure import jobs as measure_jobs
    from partition.measure import result_files

    path = os.pathsep.join(
        d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "vitis_hls").exists()
    )
    monkeypatch.setenv("PATH", path)
    measure_jobs.tool_versions.cache_clear()
    assert jobs_for_tree(tree, tools=("vitis",)) == ([], [measure_jobs.VITIS_MISSING])
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "vitis_hls"
    fake.write_text(FAKE_VITIS)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{path}")
    measure_jobs.tool_versions.cache_clear()
    (job,), skipped = jobs_for_tree(tree, tools=("vitis",), variants="chosen")
    assert not skipped and job.tools == ("vitis",)
    record = run_job(job)
    assert record["vitis"] == {
        "status": "pass", "tool": "Vitis HLS csynth", "cycles": 1234, "ii": 1235, "clock_mhz": 100.0,
        "lut": 789, "ff": 456, "dsp": 3, "bram18": 2,
    }  # fmt: skip
    copy = tmp_path / "tree"
    copy.mkdir()
    (copy / "plan.json").write_bytes((tree / "plan.json").read_bytes())
    for p, data in result_files(copy, [record]).items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(data))
    (m,) = load_measurements(copy, [job.kernel])
    assert (m.source, m.variant, m.cycles, m.resources["lut"]) == ("vitis", job.variant, 1234, 789)
    # a float kernel: the built-in RTL does not build it, Vitis HLS still measures it
    app = tmp_path / "gain.py"
    app.write_text(
        "import numpy as np\n\n\ndef gain(x):\n    y = np.zeros(x.shape[0], dtype=np.float32)\n"
        "    for i in range(x.shape[0]):\n        y[i] = x[i] * np.float32(0.5)\n    return y\n\n\n"
        "if __name__ == '__main__':\n    print(float(gain(np.ones(32, dtype=np.float32)).sum()))\n"
    )
    assert main(["plan", str(app), "--board", "pynq-z2", "--out", str(tmp_path / "ftree")]) == 0
    (job,), skipped = jobs_for_tree(
        tmp_path / "ftree", tools=("verilator", "yosys", "vitis"), variants="chosen"
    )
    assert job.tools == ("vitis",) and job.sources == ()
    assert len(skipped) == 1 and skipped[0].endswith("; Vitis HLS csynth still runs")
    assert run_job(job)["vitis"]["status"] == "pass"
    measure_jobs.tool_versions.cache_clear()
