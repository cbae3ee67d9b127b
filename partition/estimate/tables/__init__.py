"""Per-operation cost tables: delay, latency and resources per device family.

Every number here comes with a source string: a characterisation file and cell, a
vendor document, a tool's own configuration, or "derived: <how>" for numbers
computed from those by a stated rule. `table_entries()` enumerates every entry
so tests can check that none lacks a source.

Families: "xc7" (Zynq-7000 / 7-series, speed grade -1) and "xczu" (Zynq
UltraScale+). The integer delays are post-route Vivado characterisations from the
PandA-bambu HLS project's device libraries:

* xc7: etc/devices/Xilinx_devices/xc7z020-1clg484-VVD.xml (the PYNQ-Z1/Z2 die and
  speed grade). Its `execution_time` is a register-to-register path of the
  characterisation harness, so it includes clock-to-out, routing and setup: using
  it as an operator delay and chaining several is conservative.
* xczu: etc/devices/Xilinx_devices/xcu280-2Lfsvh2892-VVD.xml, the same
  UltraScale+ CLB (LUT6 + CARRY8), DSP48E2 and RAMB18E2 as the ZU+ parts, speed
  grade -2L. Its figures are markedly smaller than the xc7 ones (newer
  characterisation of a faster fabric); treat cross-family comparisons with care.

Resources (LUT/FF/DSP) follow from architecture rules stated per operation (UG474
7-series CLB, UG479 DSP48E1, UG579 DSP48E2, UG473/UG573 block RAM) and from the
same characterisations as cross-checks. Floating point is for the Vitis HLS
estimate only; its latencies and DSP counts are those Vitis HLS binds (ScaleHLS's
Vivado HLS operator table, and core names of public Vitis HLS outputs), its LUT/FF
are Bambu's characterised floating-point units (the FloPoCo-based units Bambu
generates, not Xilinx's Floating-Point Operator cores: calibrate against csynth).

The interface shell (AXI-Lite control block, burst engines, phase FSM) is one
formula, `shell_resources`, parameterised by the register map and the arrays.

The package: `device` (families, clock budget, `OpCost`, the Bambu delays, the LUT6 mux
and FSM rules), `integer` (ALU operators, multipliers, dividers), `floating` (Vitis HLS
floating-point cores and conversions), `memory` (RAM accesses and RAM blocks), `shell`
(the interface shell) and `entries` (every entry, for checks).
"""

from partition.estimate.tables.device import (
    CLOCK_UNCERTAINTY,
    CLOCK_UNCERTAINTY_SOURCE,
    FAMILIES,
    FSM_SOURCE,
    MUX_SOURCE,
    OpCost,
    budget_ns,
    char_width,
    check_family,
    lut_level,
    mux_luts,
)
from partition.estimate.tables.entries import table_entries
from partition.estimate.tables.floating import convert_cost, float_cost, math_cost
from partition.estimate.tables.integer import (
    DSP_DIGIT,
    DSP_DIGIT_SOURCE,
    DSP_MIN_PRODUCT_BITS,
    DSP_PORTS,
    INT_OPS,
    LUT_MUL_MAX_BITS,
    LUT_MUL_MAX_CONST_BITS,
    div_cost,
    dsp_count,
    int_cost,
    mul_cost,
)
from partition.estimate.tables.memory import (
    BRAM18_SHAPES,
    BRAM18_SOURCE,
    BRAM_MUX_SOURCE,
    LUTRAM_MAX_BITS,
    LUTRAM_SOURCE,
    RamCost,
    bram_mux_luts,
    mem_cost,
    ram_cost,
    ram_read_ff,
)
from partition.estimate.tables.shell import (
    MIN_LEN_BITS,
    SHELL_PARAMS,
    SHELL_SOURCE,
    ShellParams,
    len_bits_for,
    shell_resources,
)

__all__ = [
    "BRAM18_SHAPES",
    "BRAM18_SOURCE",
    "BRAM_MUX_SOURCE",
    "CLOCK_UNCERTAINTY",
    "CLOCK_UNCERTAINTY_SOURCE",
    "DSP_DIGIT",
    "DSP_DIGIT_SOURCE",
    "DSP_MIN_PRODUCT_BITS",
    "DSP_PORTS",
    "FAMILIES",
    "FSM_SOURCE",
    "INT_OPS",
    "LUTRAM_MAX_BITS",
    "LUTRAM_SOURCE",
    "LUT_MUL_MAX_BITS",
    "LUT_MUL_MAX_CONST_BITS",
    "MIN_LEN_BITS",
    "MUX_SOURCE",
    "SHELL_PARAMS",
    "SHELL_SOURCE",
    "OpCost",
    "RamCost",
    "ShellParams",
    "bram_mux_luts",
    "budget_ns",
    "char_width",
    "check_family",
    "convert_cost",
    "div_cost",
    "dsp_count",
    "float_cost",
    "int_cost",
    "len_bits_for",
    "lut_level",
    "math_cost",
    "mem_cost",
    "mul_cost",
    "mux_luts",
    "ram_cost",
    "ram_read_ff",
    "shell_resources",
    "table_entries",
]
