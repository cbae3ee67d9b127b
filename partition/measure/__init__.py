"""`partition measure DIR`: every kernel variant of a build tree through the real tools.

The solver chooses among each kernel's implementation variants from estimates; this measures
them: for every kernel x variant (or only the chosen ones), the built-in RTL of that variant
is generated, simulated with Verilator on the kernel's test vectors (cycles per call, with the
board's DDR latencies) and synthesized with yosys (LUT, FF, DSP, BRAM18). The jobs run on
Dask distributed (`partition.measure.executor`), each a pure function of its inputs
(`partition.measure.jobs`), so results are cached by content hash and identical whichever
worker ran them.

Results go to DIR/results/<kernel>/variants/<variant>/rtl_sim.json and yosys.json (the
records `partition sim` and `partition synth` write, per variant) and vitis.json (the
figures of Vitis HLS csynth's report, where `vitis_hls` or `vitis-run` is on PATH), which
`partition plan --calibrate DIR` reads (`partition.estimate.calibrate`), and
DIR/results/measure.json lists every job. They are written only once every job has ended,
each file atomically.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from partition.measure.executor import check_cache, default_cache, run_jobs
from partition.measure.jobs import DEFAULT_TOOLS, STEPS, TOOLS, Job, jobs_for_tree, passed, run_job

__all__ = [
    "TOOLS",
    "Job",
    "Measured",
    "jobs_for_tree",
    "measure_tree",
    "passed",
    "result_files",
    "run_job",
    "run_jobs",
]

SUMMARY = "measure.json"


@dataclass
class Measured:
    """What `measure_tree` did: every job's record (in job order), the cache hits, what was skipped."""

    records: list[dict[str, Any]]
    hits: int
    skipped: list[str] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.records if not passed(r)]


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def result_files(tree: Path, records: list[dict[str, Any]]) -> dict[Path, dict[str, Any]]:
    """The files a measurement writes under `tree`/results (path -> JSON content)."""
    from partition.sim.flow import RESULT_FORMAT

    plan = json.loads((tree / "plan.json").read_text())
    estimates = {
        (t["kernel"], v["name"]): v["estimate"]["cycles"]
        for t in plan["tasks"]
        if t.get("kernel") and t.get("fpga")
        for v in t["fpga"]["variants"]
    }
    out: dict[Path, dict[str, Any]] = {}
    for r in records:
        folder = tree / "results" / r["kernel"] / "variants" / r["variant"]
        for step in STEPS:
            if step in r:
                extra = (
                    {"estimate_cycles": estimates.get((r["kernel"], r["variant"]))}
                    if step == "rtl_sim"
                    else {}
                )
                out[folder / f"{step}.json"] = {
                    "format": RESULT_FORMAT,
                    "kernel": r["kernel"],
                    "variant": r["variant"],
                    "step": step,
                    "job": r["key"],
                    **r[step],
                    **extra,
                }
    out[tree / "results" / SUMMARY] = {
        "format": "partition-measure-summary/1",
        "jobs": [
            {
                "kernel": r["kernel"],
                "variant": r["variant"],
                "job": r["key"],
                "status": "pass" if passed(r) else "fail",
                **({"error": r["error"]} if "error" in r else {}),
            }
            for r in records
        ],
    }
    return out


def measure_tree(
    tree: Path,
    *,
    variants: str = "all",
    tools: tuple[str, ...] = DEFAULT_TOOLS,
    kernels: tuple[str, ...] = (),
    scheduler: str | None = None,
    workers: int | None = None,
    cache: Path | None = None,
    progress: TextIO | None = None,
) -> Measured:
    """Measure `tree`'s kernel variants and write the results (see the module's docstring).

    Every check of the inputs (the tree, the cache folder, the scheduler) happens before a
    job runs, and nothing is written under results/ before every job has ended."""
    tree = Path(tree)
    cache = check_cache(cache if cache is not None else default_cache())
    jobs, skipped = jobs_for_tree(tree, variants=variants, tools=tools, kernels=kernels)
    records, hits = run_jobs(jobs, scheduler=scheduler, workers=workers, cache=cache, progress=progress)
    for path, data in sorted(result_files(tree, records).items()):
        _write(path, data)
    return Measured(records, hits, skipped, jobs)
