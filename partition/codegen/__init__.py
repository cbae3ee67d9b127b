"""Code generation: kernels and plans -> the files of the build tree.

`build_tree` assembles the whole tree (DESIGN.md §6) from the plan; the parts
it is made of are the Vitis HLS C++ of each kernel (`partition.codegen.hls`),
the host runtime's files (`host`) and the Vivado block design (`vivado`).
Expressions are printed by `partition.codegen.cexpr`; every other text comes
from a template under templates/ (partition.templating).
"""

from __future__ import annotations

from partition.codegen.hls import CSIM_BINARY, CSIM_FLAGS, FLOAT_TOLERANCE, csim_command, generate_hls
from partition.codegen.host import executables, generate_host, host_spec
from partition.codegen.tree import build_tree, local_modules
from partition.codegen.vivado import (
    VIVADO_VERSION,
    VivadoKernel,
    builtin_vlnv,
    control_addresses,
    generate_vivado,
    hls_vlnv,
    kernel_cell,
    overlay_files,
)

__all__ = [
    "CSIM_BINARY",
    "CSIM_FLAGS",
    "FLOAT_TOLERANCE",
    "VIVADO_VERSION",
    "VivadoKernel",
    "build_tree",
    "builtin_vlnv",
    "control_addresses",
    "csim_command",
    "executables",
    "generate_hls",
    "generate_host",
    "generate_vivado",
    "hls_vlnv",
    "host_spec",
    "kernel_cell",
    "local_modules",
    "overlay_files",
]
