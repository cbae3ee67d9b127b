"""Vitis HLS C++ backend: one kernel IR -> the files of hls/<task>/ in the build tree.

    <task>.h  <task>.cpp     the top function (DESIGN.md §4): m_axi arrays, s_axilite scalars and control
    <task>_tb.cpp            C-simulation testbench over the vectors below
    vectors/                 profiled (and edge) inputs with their expected outputs, raw little-endian
    run_hls.tcl              csim, csynth, cosim and IP export under Vitis HLS

The kernel follows the shared microarchitecture: copy every in/inout array into
a local buffer `<name>_buf`, compute on buffers and registers (innermost loops
pipelined), copy out/inout buffers back. Every IR operation keeps numpy's exact
semantics through hls/partition_ops.h, so the same file compiles with plain g++
here (`csim_command`) and under Vitis HLS, and C simulation on the profiled
vectors proves the C++ computes what the Python did.

The parts: `files` (generate_hls, the compile line, the Vitis project layout),
`context` (the kernel as a template context), `analysis` (checks and usage),
`loops` (statements and loops), `pragmas` (the variant's directives),
`testbench` (tolerances and what the testbench adds).
"""

from __future__ import annotations

from partition.codegen.hls.files import (
    CLOCK_UNCERTAINTY,
    CSIM_BINARY,
    CSIM_FLAGS,
    HLS_PROJECT,
    HLS_SOLUTION,
    csim_command,
    csynth_report,
    generate_hls,
    hls_ip_dir,
)
from partition.codegen.hls.testbench import FLOAT_TOLERANCE

__all__ = [
    "CLOCK_UNCERTAINTY",
    "CSIM_BINARY",
    "CSIM_FLAGS",
    "FLOAT_TOLERANCE",
    "HLS_PROJECT",
    "HLS_SOLUTION",
    "csim_command",
    "csynth_report",
    "generate_hls",
    "hls_ip_dir",
]
