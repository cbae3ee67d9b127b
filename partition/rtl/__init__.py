"""The built-in RTL backend: Verilog-2001 from the kernel IR, inside verified shells.

`generate_rtl` builds a kernel's IP core (`RtlKernel`) in an implementation variant, or
raises `RtlUnsupported` / `RtlVariantUnsupported`; `vector_files` writes the test vectors
its cocotb testbench reads, `render_cosim_top` the top that joins a chain's kernels for
co-simulation, and `shells` holds the verified interface shells.
"""

from partition.rtl.kernel import RtlKernel, generate_rtl
from partition.rtl.shells import control_address_bits
from partition.rtl.support import FLOAT_REASON, RtlUnsupported, RtlVariantUnsupported
from partition.rtl.system import render_cosim_top
from partition.rtl.vectors import vector_files

__all__ = [
    "FLOAT_REASON",
    "RtlKernel",
    "RtlUnsupported",
    "RtlVariantUnsupported",
    "control_address_bits",
    "generate_rtl",
    "render_cosim_top",
    "vector_files",
]
