"""The files of hls/<task>/ for one kernel, and how they are built.

`generate_hls` fills the templates under templates/hls/ with the kernel's
context (partition.codegen.hls.context) and the testbench's, and adds the
vector files; the g++ line of C simulation and the Vitis HLS project layout
(where csynth and export_design leave their output) are here too, because the
build tree's Makefile, the Vivado scripts and the tests use them without
generating anything.
"""

from __future__ import annotations

import math
import re
from typing import Any

from partition import ir
from partition.codegen.hls.context import KernelView
from partition.codegen.hls.testbench import testbench_context
from partition.errors import PartitionError
from partition.estimate.interchange import interchange_reductions
from partition.estimate.tiling import tile_kernel
from partition.templating import render
from partition.vectors import VectorSet, bin_files

# One compile line for C simulation, shared by the build tree's Makefile and the tests.
# -ffp-contract=off: no fused multiply-add, so float results are the IEEE operations
#   numpy performs (GCC contracts by default on targets with FMA, e.g. aarch64).
# -fno-fast-math: keep NaN/inf/signed-zero semantics even if a user's CXXFLAGS say otherwise.
# -Wno-unknown-pragmas: g++ does not know `#pragma HLS`.
# -Wno-unused-label: loop labels name loops for Vitis HLS (pragmas, reports), nothing jumps to them.
CSIM_FLAGS: tuple[str, ...] = (
    "-std=c++14",
    "-O1",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wall",
    "-Wno-unknown-pragmas",
    "-Wno-unused-label",
)
CSIM_BINARY = "csim"

# Vitis HLS project layout under hls/<task>/ (run_hls.tcl creates it).
HLS_PROJECT = "prj"
HLS_SOLUTION = "sol1"
HLS_STEPS = ("csim", "csynth", "cosim", "export")  # what run_hls.tcl runs, in this order


# Clock uncertainty for synthesis: the margin the estimator's schedule assumes
# (Vivado HLS's default; Vitis HLS would otherwise use 27 %).
CLOCK_UNCERTAINTY = "12.5%"


def csim_command(task: str, include_dir: str, extra_flags: tuple[str, ...] = ()) -> list[str]:
    """argv that builds the C-simulation executable; run it in the task folder.

    `include_dir` holds partition_ops.h (the build tree's hls/include, i.e.
    "../include" from hls/<task>/). The executable is `./csim`, run from the
    same folder (it reads vectors/).
    """
    return [
        "g++",
        *CSIM_FLAGS,
        *extra_flags,
        f"-I{include_dir}",
        f"{task}.cpp",
        f"{task}_tb.cpp",
        "-o",
        CSIM_BINARY,
    ]


def hls_ip_dir() -> str:
    """Where `export_design` leaves the IP (relative to hls/<task>/): Vivado's ip_repo_paths entry."""
    return f"{HLS_PROJECT}/{HLS_SOLUTION}/impl/ip"


def csynth_report(task: str) -> str:
    """The csynth XML report of a task (relative to hls/<task>/)."""
    return f"{HLS_PROJECT}/{HLS_SOLUTION}/syn/report/{task}_csynth.xml"


def generate_hls(
    kernel: ir.Kernel,
    vectors: list[VectorSet],
    *,
    part: str,
    clock_mhz: float,
    include_rel: str = "../include",
    directives: dict[str, Any] | None = None,
    bus_bits: int = 32,
    steps: tuple[str, ...] = HLS_STEPS,
) -> dict[str, bytes]:
    """All files of hls/<task>/ (paths relative to that folder) for `kernel`.

    `steps`: the Vitis HLS steps run_hls.tcl runs, in HLS_STEPS's order (`partition
    measure` asks for csynth alone).

    `vectors` become the testbench's vectors/ (at least one). `part` and
    `clock_mhz` go into run_hls.tcl; `include_rel` is the folder holding
    partition_ops.h, relative to the task folder. `directives` are the chosen
    implementation variant's (partition.estimate.variants.Directives.to_json:
    "sequential" loop labels get PIPELINE off, "unroll" {label: factor} an
    UNROLL factor, "partition" {array: factor} a cyclic ARRAY_PARTITION of the
    array's local buffer); None is the base variant.

    A "permute" directive builds the IR with its reduction loops moved outward
    (partition.estimate.interchange), before any tiling; the unroll labels are that IR's.
    A "tile" directive (bytes of rows a tile) builds the tiled IR
    (partition.estimate.tiling): the arrays it tiles have no whole buffer and move a tile
    at a time through copy loops inside compute.

    `bus_bits` is the kernel's m_axi data width: the board's kernel_axi_bits, or the
    PS port's width for a burst-width variant (`Directives.bus`). The load and store loops
    move one bus word a cycle, as the estimate (partition.estimate.schedule's
    `ram_geometry`) and the built-in RTL do: the m_axi port may be widened to
    `bus_bits` (buffers from pynq.allocate are page-aligned), a buffer of
    narrower elements is reshaped so one RAM word holds a bus word's elements
    (`ARRAY_RESHAPE cyclic`, the estimate's packed RAM), and the copy loop is
    unrolled by that many elements. A buffer the variant partitions into banks
    keeps its banks (they give the copy loop as many ports).

    Array parameters marked `stream` (`ir.with_streams`: the kernel is in an
    AXI-Stream chain, partition.frontend.chains) are AXI-Stream ports: an in-array is read
    from `hls::stream<uint64_t>` beats into its buffer instead of its m_axi load,
    an out-array written to one after compute instead of its store, in the byte
    layout of the array in DDR (partition_ops.h, pack_beat), one beat a cycle. The
    testbench feeds and drains those streams from the same vectors.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", part or ""):
        raise PartitionError(f"HLS part {part!r} is not a Xilinx part name (e.g. xc7z020clg400-1)")
    if not (isinstance(clock_mhz, (int, float)) and math.isfinite(clock_mhz) and clock_mhz > 0):
        raise PartitionError(f"HLS clock {clock_mhz!r} MHz: give a positive frequency")
    if not re.fullmatch(r"[A-Za-z0-9_.\-/]+", include_rel) or include_rel.startswith("/"):
        raise PartitionError(f"HLS include folder {include_rel!r}: give a relative path without spaces")
    if not vectors:
        raise PartitionError(f"kernel {kernel.name}: no test vectors for the C-simulation testbench")

    if bus_bits not in (32, 64, 128):
        raise PartitionError(f"HLS m_axi width {bus_bits!r} bits: use 32, 64 or 128")
    if directives and directives.get("permute"):  # reduction loops moved outward
        kernel = interchange_reductions(kernel)
    if directives and directives.get("tile"):  # the tiled variant: arrays through DDR by tiles
        tiled = tile_kernel(kernel, bus_bits, int(directives["tile"]))
        if isinstance(tiled, str):
            raise PartitionError(f"kernel {kernel.name}: the tiled variant does not apply: {tiled}")
        kernel = tiled
    view = KernelView(kernel, directives, bus_bits)
    ctx = view.context()
    ctx.update(
        part=part,
        clock_period_ns=f"{1000.0 / clock_mhz:.3f}",
        clock_mhz=f"{clock_mhz:g}",
        clock_uncertainty=CLOCK_UNCERTAINTY,
        include_rel=include_rel,
        bus_bits=bus_bits,
        align_bytes=bus_bits // 8,
        streams=any(p.stream for p in kernel.params),
        project=HLS_PROJECT,
        solution=HLS_SOLUTION,
        steps=[x for x in HLS_STEPS if x in steps],
        **testbench_context(vectors),
    )
    task = kernel.name
    files: dict[str, bytes] = {
        f"{task}.h": render("hls/kernel.h.j2", **ctx).encode(),
        f"{task}.cpp": render("hls/kernel.cpp.j2", **ctx).encode(),
        f"{task}_tb.cpp": render("hls/tb.cpp.j2", **ctx).encode(),
        "run_hls.tcl": render("hls/run_hls.tcl.j2", **ctx).encode(),
        "vectors/README": render("hls/vectors_README.j2", **ctx).encode(),
    }
    files.update(bin_files(kernel, view.ret_dtype, vectors))
    return dict(sorted(files.items()))
