"""Measured figures that replace the model's: Vitis HLS csynth reports and the built-in RTL's results.

`partition plan --calibrate DIR` re-plans with what was measured in DIR
(normally a build tree after `make hls` / `partition sim` / `partition synth`):

* Vitis HLS csynth reports, ``<kernel>_csynth.xml`` anywhere under DIR
  (``hls/<kernel>/<project>/<solution>/syn/report/`` in a build tree). The
  format is the one Vitis HLS writes (e.g. Vitis HLS 2020.2,
  github.com/hashi0203/Vitis_HLS_Gaussian, solution1/syn/report/csynth.xml):
  ``profile/UserAssignments/TopModelName`` and ``TargetClockPeriod`` (ns),
  ``profile/PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency``
  and ``Interval-min`` (cycles; "undef" when a loop bound is unknown),
  ``profile/AreaEstimates/Resources/{LUT,FF,DSP,BRAM_18K}``. A report
  describes the C++ as it was generated, i.e. the variant DIR/plan.json
  chose for the kernel (the base variant when DIR has no plan.json).
* The built-in RTL's results (written by partition.sim.flow, and per variant by
  `partition measure`: ``DIR/results/<kernel>/variants/<variant>/``, the same two files
  for that variant, and ``vitis.json`` there: that variant's csynth figures):
  ``DIR/results/<kernel>/rtl_sim.json`` (``cycles_per_vector``: cycles of
  one call per test vector, with the board's DDR latencies; the largest is
  taken) and ``DIR/results/<kernel>/yosys.json`` (``lut``, ``ff``, ``dsp``,
  ``bram18``), each only when its status is "pass". They replace the
  figures of the variant the built-in RTL built (DIR/plan.json's
  ``rtl.variant``: the chosen one, or base where it partitions arrays into
  banks; base when DIR has no plan.json).

A kernel that DIR/plan.json chains by AXI-Stream (plan "chains") was built
with those arrays as stream ports: no DDR phase, buffer or pointer register
for them. Its measurements describe that build, not the variant the ILP
weighs (the array in DDR), so each measured figure gets the model's
difference between the two builds added back (`apply`'s `streamed`); the
chain's saving is that same difference, so a re-planned chain again costs
what was measured.

Where both exist for the same variant, Vitis's numbers win (they are what
`make bitstream` builds). Every replaced field is recorded in the estimate's
``measured`` map (field -> where it came from) and the estimate's source
becomes "vitis" or "rtl"; fields without a measurement stay the model's.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.estimate.model import Estimate

_XML_RES = {"lut": "LUT", "ff": "FF", "dsp": "DSP", "bram18": "BRAM_18K"}


@dataclass
class Measurement:
    """Measured figures of one call of one kernel variant."""

    kernel: str
    variant: str
    source: str  # "vitis" or "rtl"
    cycles: int | None = None
    ii: int | None = None
    clock_mhz: float | None = None
    resources: dict[str, int] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # field -> file it came from (relative to DIR)
    streams: tuple[str, ...] = ()  # kernel arrays the measured build had as AXI-Stream ports


def _int(text: str | None, what: str, path: Path) -> int | None:
    if text is None:
        return None
    t = text.strip()
    if t in ("", "undef", "-"):
        return None
    try:
        return int(float(t))
    except ValueError:
        raise PartitionError(f"{path}: {what} is {t!r}, not a number of cycles or a count") from None


def read_csynth(path: Path) -> dict[str, Any]:
    """The figures of one csynth XML report: top, clock, latency, II, resources (None when absent)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise PartitionError(f"{path}: not a Vitis HLS csynth XML report ({e})") from None
    perf = root.find("PerformanceEstimates")
    area = root.find("AreaEstimates/Resources")
    if perf is None and area is None:
        raise PartitionError(
            f"{path}: no PerformanceEstimates or AreaEstimates; is this a Vitis HLS csynth report?"
        )
    lat = root.find("PerformanceEstimates/SummaryOfOverallLatency")
    period = root.findtext("UserAssignments/TargetClockPeriod")
    out: dict[str, Any] = {
        "top": (root.findtext("UserAssignments/TopModelName") or "").strip() or None,
        "clock_mhz": 1000.0 / float(period) if period and float(period) > 0 else None,
        "cycles": _int(lat.findtext("Worst-caseLatency"), "Worst-caseLatency", path)
        if lat is not None
        else None,
        "ii": _int(lat.findtext("Interval-min"), "Interval-min", path) if lat is not None else None,
        "resources": {},
    }
    if area is not None:
        for r, tag in _XML_RES.items():
            v = _int(area.findtext(tag), tag, path)
            if v is not None:
                out["resources"][r] = v
    return out


def _json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise PartitionError(f"{path}: unreadable result ({e})") from None
    if not isinstance(data, dict):
        raise PartitionError(f"{path}: not a result record")
    return data


def load_measurements(folder: Path, kernels: list[str]) -> list[Measurement]:
    """Every measurement of the given kernels found in `folder`, sorted (kernel, variant, source)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PartitionError(f"--calibrate {folder}: no such folder")
    chosen: dict[str, str] = {}  # kernel -> the variant the plan chose (the HLS C++ builds it)
    in_rtl: dict[str, str] = {}  # kernel -> the variant the built-in RTL built
    streams: dict[str, tuple[str, ...]] = {}  # kernel -> its arrays built as streams
    plan = _json(folder / "plan.json")
    if plan is not None:
        kernel_of: dict[str, str] = {}
        for t in plan.get("tasks", []):
            if t.get("kernel") and t.get("name"):
                kernel_of[str(t["name"])] = str(t["kernel"])
            if t.get("kernel") and t.get("variant"):
                chosen[t["kernel"]] = str(t["variant"])
            if t.get("kernel") and isinstance(t.get("rtl"), dict) and t["rtl"].get("variant"):
                in_rtl[t["kernel"]] = str(t["rtl"]["variant"])
        for c in plan.get("chains", []):
            for task, port in ((c.get("src"), c.get("out")), (c.get("dst"), c.get("in"))):
                if task not in kernel_of or not port:
                    raise PartitionError(
                        f"{folder / 'plan.json'}: chain {c.get('src')} -> {c.get('dst')} names a task or "
                        "port the plan does not have; re-run partition plan for that folder"
                    )
                k = kernel_of[task]
                streams[k] = tuple(sorted({*streams.get(k, ()), str(port)}))
    out: list[Measurement] = []
    known = set(kernels)
    for path in sorted(folder.rglob("*_csynth.xml")):
        name = path.name[: -len("_csynth.xml")]
        if name not in known:
            continue
        rel = path.relative_to(folder).as_posix()
        r = read_csynth(path)
        if r["top"] and r["top"] != name:
            raise PartitionError(f"{path}: the report is of {r['top']}, not of kernel {name}")
        m = Measurement(
            name, chosen.get(name, "base"), "vitis", clock_mhz=r["clock_mhz"], streams=streams.get(name, ())
        )
        if r["cycles"] is not None:
            m.cycles, m.origin["cycles"] = r["cycles"], rel
        if r["ii"] is not None:
            m.ii, m.origin["ii"] = r["ii"], rel
        for res, v in r["resources"].items():
            m.resources[res], m.origin[res] = v, rel
        if m.origin:
            out.append(m)
    for name in sorted(known):
        res_dir = folder / "results" / name
        built = [(res_dir, in_rtl.get(name, "base"))]  # what `partition sim` / `synth` measured
        variants = res_dir / "variants"  # what `partition measure` measured, one folder per variant
        if variants.is_dir():
            built += [(d, d.name) for d in sorted(variants.iterdir()) if d.is_dir()]
        for where, variant in built:
            m = _rtl_measurement(folder, where, name, variant, streams.get(name, ()))
            if m.origin:
                out.append(m)
            v = _vitis_measurement(folder, where / "vitis.json", name, variant, streams.get(name, ()))
            if v is not None:
                out.append(v)
    return sorted(out, key=lambda m: (m.kernel, m.variant, m.source))


def _vitis_measurement(
    folder: Path, path: Path, name: str, variant: str, streams: tuple[str, ...]
) -> Measurement | None:
    """The Vitis HLS csynth figures `partition measure` wrote for one variant (None: none passed)."""
    rec = _json(path)
    if rec is None or rec.get("status") != "pass":
        return None
    rel = path.relative_to(folder).as_posix()
    clock = rec.get("clock_mhz")
    m = Measurement(name, variant, "vitis", clock_mhz=float(clock) if clock else None, streams=streams)
    if isinstance(rec.get("cycles"), int):
        m.cycles, m.origin["cycles"] = rec["cycles"], rel
    if isinstance(rec.get("ii"), int):
        m.ii, m.origin["ii"] = rec["ii"], rel
    for r in RESOURCES:
        if isinstance(rec.get(r), int):
            m.resources[r], m.origin[r] = rec[r], rel
    return m if m.origin else None


def _rtl_measurement(
    folder: Path, where: Path, name: str, variant: str, streams: tuple[str, ...]
) -> Measurement:
    """The built-in RTL's figures of one variant from `where`/rtl_sim.json and yosys.json (those
    that passed)."""
    m = Measurement(name, variant, "rtl", streams=streams)
    sim = _json(where / "rtl_sim.json")
    if sim is not None and sim.get("status") == "pass":
        per = [int(c) for c in sim.get("cycles_per_vector") or [] if c is not None]
        if per:
            m.cycles, m.origin["cycles"] = max(per), (where / "rtl_sim.json").relative_to(folder).as_posix()
    syn = _json(where / "yosys.json")
    if syn is not None and syn.get("status") == "pass":
        for r in RESOURCES:
            if isinstance(syn.get(r), int):
                m.resources[r], m.origin[r] = syn[r], (where / "yosys.json").relative_to(folder).as_posix()
    return m


def apply(
    est: Estimate,
    measurements: list[Measurement],
    streamed: Callable[[tuple[str, ...]], Estimate] | None = None,
) -> Estimate:
    """`est` with the fields measured for its kernel and variant replaced (RTL first, then Vitis).

    `streamed(arrays)`: the model's estimate of the same variant built with
    those arrays as AXI-Stream ports; needed for a measurement of a chained
    build, whose figures are moved to the array-in-DDR build `est` describes by
    the model's difference between the two (cycles and each resource).
    """
    mine = [m for m in measurements if m.kernel == est.task and m.variant == est.variant]
    if not mine:
        return est
    mine.sort(key=lambda m: m.source != "rtl")  # rtl first, vitis overrides
    model = {"cycles": est.cycles, **{r: getattr(est, r) for r in RESOURCES}}
    twins: dict[tuple[str, ...], Estimate] = {}

    def moved(m: Measurement, what: str, value: int) -> tuple[int, str]:
        """The measured `value` of field `what`, moved to the array-in-DDR build; and how."""
        if not m.streams:
            return value, ""
        if streamed is None:
            raise ValueError(f"{m.kernel}: a measurement of a streamed build needs the model's stream twin")
        if m.streams not in twins:
            twins[m.streams] = streamed(m.streams)
        delta = model[what] - getattr(twins[m.streams], what)
        how = f", built with {', '.join(m.streams)} as AXI-Stream: {delta:+d} for the array in DDR (model)"
        return max(0, value + delta), how

    measured: dict[str, str] = {}
    for m in mine:
        tag = "Vitis HLS csynth" if m.source == "vitis" else "built-in RTL"
        if m.cycles is not None:
            if m.clock_mhz and not math.isclose(m.clock_mhz, est.clock_mhz, rel_tol=1e-6):
                est.notes.append(
                    f"{tag}: target clock {m.clock_mhz:g} MHz instead of the board's {est.clock_mhz:g} MHz"
                )
                est.clock_mhz = m.clock_mhz
            est.cycles, how = moved(m, "cycles", m.cycles)
            measured["cycles"] = f"{tag} ({m.origin['cycles']}{how})"
        if m.ii is not None:
            measured["ii"] = f"{tag} ({m.origin['ii']}): {m.ii} cycles"
        for r, v in m.resources.items():
            value, how = moved(m, r, v)
            setattr(est, r, value)
            measured[r] = f"{tag} ({m.origin[r]}{how})"
        est.source = m.source  # vitis last: it names the estimate when both measured it
    est.breakdown = dict(est.breakdown, measured=dict(sorted(measured.items())))
    est.notes.append(
        "measured: "
        + ", ".join(f"{k} from {v}" for k, v in sorted(measured.items()))
        + "; every other figure is the model's"
    )
    return est
