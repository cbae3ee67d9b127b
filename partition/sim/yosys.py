"""Resource counts of a Verilog design from yosys `synth_xilinx` (out of context, no I/O pads).

yosys maps to the same primitives Vivado uses, so its cell counts are a usable estimate of
LUT/FF/DSP/BRAM (LUT counts differ from Vivado's by tens of percent; DSP and BRAM
inference usually agree). Distributed RAM and shift-register primitives occupy LUTs and are
counted as such with their LUT multiplicity:

* 7-series (UG474 v1.9, "Distributed RAM (SLICEM only)", Table "Distributed RAM
  Configuration"): RAM32X1S 1, RAM32X1D 2, RAM32M 4, RAM64X1S 1, RAM64X1D 2, RAM64M 4,
  RAM128X1S 2, RAM128X1D 4, RAM256X1S 4 LUTs.
* UltraScale(+) wide primitives (UG974 primitive pages / UG574: one LUT6 stores 64 bits,
  32x2 in the dual-output mode): RAM32M16, RAM64M8, RAM32X16DR8, RAM64X8SW, RAM512X1S and
  RAM256X1D fill the 8 LUTs of one CLB.
* SRL16E / SRLC16E / SRLC32E: one LUT each (UG474 "Shift Registers").
* INV: a LUT1 in Vivado.

BRAM is reported in RAMB18 units: a RAMB36 counts as 2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from partition.errors import PartitionError

YOSYS_MISSING = "yosys not found: apt-get install yosys (Debian/Ubuntu) — it provides synth_xilinx"

FAMILIES = ("xc7", "xcup", "xcu")

#: LUTs occupied by each LUT-based cell (logic, distributed RAM, shift registers).
LUT_CELLS: dict[str, int] = {
    "LUT1": 1,
    "LUT2": 1,
    "LUT3": 1,
    "LUT4": 1,
    "LUT5": 1,
    "LUT6": 1,
    "LUT6_2": 1,
    "INV": 1,
    "RAM16X1S": 1,
    "RAM32X1S": 1,
    "RAM64X1S": 1,
    "RAM16X1D": 2,
    "RAM32X1D": 2,
    "RAM64X1D": 2,
    "RAM128X1S": 2,
    "RAM128X1D": 4,
    "RAM256X1S": 4,
    "RAM32M": 4,
    "RAM64M": 4,
    "RAM256X1D": 8,
    "RAM512X1S": 8,
    "RAM32M16": 8,
    "RAM64M8": 8,
    "RAM32X16DR8": 8,
    "RAM64X8SW": 8,
    "SRL16E": 1,
    "SRLC16E": 1,
    "SRLC32E": 1,
}
#: Cells that are LUTRAM/SRL (subset of LUT_CELLS), reported separately as lutram.
LUTRAM_CELLS = frozenset(n for n in LUT_CELLS if n.startswith(("RAM", "SRL")))
FF_PREFIXES = ("FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1", "LDCE", "LDPE")
DSP_CELLS = {"DSP48E1": 1, "DSP48E2": 1}
BRAM18_CELLS = {"RAMB18E1": 1, "RAMB18E2": 1, "RAMB36E1": 2, "RAMB36E2": 2}
CARRY_CELLS = {"CARRY4": 1, "CARRY8": 1}


def yosys_path() -> str:
    """Path of the yosys executable; PartitionError naming the tool when it is missing."""
    path = shutil.which("yosys")
    if path is None:
        raise PartitionError(YOSYS_MISSING)
    return path


def count_resources(cells: dict[str, int]) -> dict:
    """Map yosys cell counts (num_cells_by_type) to lut/ff/dsp/bram18/carry (+ raw cells)."""
    lut = sum(LUT_CELLS[c] * n for c, n in cells.items() if c in LUT_CELLS)
    lutram = sum(LUT_CELLS[c] * n for c, n in cells.items() if c in LUTRAM_CELLS)
    ff = sum(n for c, n in cells.items() if c in FF_PREFIXES)
    return {
        "lut": lut,
        "lutram": lutram,
        "ff": ff,
        "dsp": sum(DSP_CELLS[c] * n for c, n in cells.items() if c in DSP_CELLS),
        "bram18": sum(BRAM18_CELLS[c] * n for c, n in cells.items() if c in BRAM18_CELLS),
        "carry": sum(CARRY_CELLS[c] * n for c, n in cells.items() if c in CARRY_CELLS),
        "cells": dict(sorted(cells.items())),
    }


def _script(sources: Sequence[Path], top: str, family: str, flatten: bool, stat_json: Path) -> str:
    reads = "; ".join(f"read_verilog {s}" for s in sources)
    flat = " -flatten" if flatten else ""
    return (
        f"{reads}; synth_xilinx -family {family} -top {top} -noiopad{flat}; "
        f"tee -q -o {stat_json} stat -json -top {top}"
    )


def _module_name(yosys_name: str) -> str:
    """`$paramod$<hash>\\name` or `\\name` -> `name`."""
    return yosys_name.rsplit("\\", 1)[-1]


def synth(
    sources: Sequence[Path | str],
    top: str,
    family: str = "xc7",
    *,
    parameters: dict[str, int] | None = None,
    flatten: bool = True,
    timeout: float = 600,
) -> dict:
    """Synthesize `top` with `synth_xilinx -family <family> -noiopad [-flatten]`; resource counts.

    Returns {"lut", "lutram", "ff", "dsp", "bram18", "carry", "cells", "family", "top"} for
    the whole design; with `flatten=False` also "modules": the same counts per module (each
    module by name; a second parameterization keeps yosys's `$paramod$...` name), so one run
    costs out a design's parts.
    `parameters` override the top's Verilog parameters.
    """
    if family not in FAMILIES:
        raise PartitionError(
            f"yosys synth_xilinx family {family!r} unknown; use one of {', '.join(FAMILIES)}"
        )
    exe = yosys_path()
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise PartitionError(f"{s}: Verilog source not found")
    with tempfile.TemporaryDirectory(prefix="partition-yosys-") as tmp:
        stat_json = Path(tmp) / "stat.json"
        script = _script(srcs, top, family, flatten, stat_json)
        if parameters:
            sets = "; ".join(f"chparam -set {k} {int(v)} {top}" for k, v in sorted(parameters.items()))
            script = script.replace("; synth_xilinx", f"; hierarchy -top {top}; {sets}; synth_xilinx", 1)
        proc = subprocess.run(
            [exe, "-q", "-p", script], capture_output=True, text=True, check=False, cwd=tmp, timeout=timeout
        )
        if proc.returncode != 0 or not stat_json.is_file():
            msg = (proc.stderr or proc.stdout)[-3000:]
            raise PartitionError(f"yosys synth_xilinx -family {family} -top {top} failed:\n{msg}")
        stat = json.loads(stat_json.read_text())
    modules: dict[str, dict] = {}
    for name, m in sorted(stat.get("modules", {}).items()):
        short = _module_name(name)
        modules[short if short not in modules else name] = m  # parameter variants keep yosys's name
    if top not in modules:
        raise PartitionError(f"yosys stat has no module {top} (found: {', '.join(sorted(modules))})")
    # "design" sums the hierarchy under -top; a flattened design is just the top module.
    total = stat.get("design") or modules[top]
    result = count_resources(_cells(total))
    result.update(family=family, top=top)
    if not flatten:
        result["modules"] = {
            name: count_resources({c: n for c, n in _cells(m).items() if c not in _submodules(stat)})
            for name, m in sorted(modules.items())
        }
    return result


def _submodules(stat: dict) -> set[str]:
    """Cell types that are modules of the design (instances, not primitives)."""
    return {k.lstrip("\\") for k in stat.get("modules", {})} | set(stat.get("modules", {}))


def _cells(stat_module: dict) -> dict[str, int]:
    return {k: int(v) for k, v in stat_module.get("num_cells_by_type", {}).items()}
