"""What every table stands on: the device families, the clock budget, the `OpCost` record,
the operator delays PandA-bambu characterised per family, and the LUT6 fabric rules.

The integer, floating-point and memory tables all read their delays from the Bambu
characterisations here (`delay`, `lut_level`) and return `OpCost`; the multiplexer and
FSM rules (`mux_luts`) serve the operators, the RAMs, the shell and the estimator alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FAMILIES = ("xc7", "xczu")

CLOCK_UNCERTAINTY = 0.125
CLOCK_UNCERTAINTY_SOURCE = (
    "kernel microarchitecture: chain while the delay stays <= period x (1 - 0.125), "
    "the Vivado HLS default 12.5 % clock uncertainty"
)

BAMBU = {
    "xc7": "PandA-bambu etc/devices/Xilinx_devices/xc7z020-1clg484-VVD.xml (Vivado characterisation, xc7z020 -1)",
    "xczu": "PandA-bambu etc/devices/Xilinx_devices/xcu280-2Lfsvh2892-VVD.xml (Vivado characterisation, UltraScale+ -2L)",
}
CHAR_WIDTHS = (1, 8, 16, 32, 64)


def budget_ns(clock_mhz: float) -> float:
    """Combinational delay allowed per cycle (period minus clock uncertainty)."""
    return 1000.0 / clock_mhz * (1.0 - CLOCK_UNCERTAINTY)


def char_width(bits: int) -> int:
    """The characterised width used for an operator of `bits` bits (next one up)."""
    for w in CHAR_WIDTHS:
        if bits <= w:
            return w
    return CHAR_WIDTHS[-1]


def log2ceil(n: int) -> int:
    return max(1, math.ceil(math.log2(max(2, n))))


def check_family(family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"unknown device family {family!r}; known: {', '.join(FAMILIES)}")


@dataclass(frozen=True)
class OpCost:
    """Cost of one operator instance.

    `delay_ns`: combinational delay before the first register (the whole operator
    when `latency` is 0, which makes it chainable). `latency`: cycles from issue to
    result. `out_ns`: delay after the clock edge at which the result is valid in its
    ready cycle (0 for a registered output). `ii`: cycles between issues of one
    unit (1 = fully pipelined; a sequential divider has ii = latency).
    """

    op: str
    bits: int
    family: str
    delay_ns: float
    latency: int
    out_ns: float
    ii: int
    lut: int
    ff: int
    dsp: int
    source: str


def combinational(
    op: str, bits: int, family: str, delay_ns: float, lut: int, source: str, dsp: int = 0
) -> OpCost:
    """An operator of logic alone: latency 0 (chainable), one issue a cycle, no register."""
    return OpCost(op, bits, family, delay_ns, 0, 0.0, 1, lut, 0, dsp, source)


# ------------------------------------------------------------ characterisations

# Bambu's cell of each operator class characterised at every width w (xc7's library
# characterises the eq cell, xczu's the ne cell: the same comparator)
_CELLS = {
    "add": {"xc7": "ui_plus_expr_FU_{w}_{w}_{w}", "xczu": "ui_plus_expr_FU_{w}_{w}_{w}"},
    "neg": {"xc7": "ui_negate_expr_FU_{w}_{w}", "xczu": "ui_negate_expr_FU_{w}_{w}"},
    "cmp": {"xc7": "lt_expr_FU_{w}_{w}_{w}", "xczu": "lt_expr_FU_{w}_{w}_{w}"},
    "eq": {"xc7": "ui_eq_expr_FU_{w}_{w}_{w}", "xczu": "ui_ne_expr_FU_{w}_{w}_{w}"},
    "shift_var": {"xc7": "lshift_expr_FU_{w}_{w}_{w}", "xczu": "lshift_expr_FU_{w}_{w}_{w}"},
}
# delay ns of those cells at the characterised widths (CHAR_WIDTHS: 1, 8, 16, 32, 64)
_WIDE_DELAYS: dict[str, dict[str, tuple[float, ...]]] = {
    "xc7": {
        "add": (1.01, 1.893, 2.109, 2.625, 3.486),
        "neg": (0.612, 1.752, 2.04, 2.433, 3.408),
        "cmp": (1.01, 1.934, 2.042, 2.315, 2.737),
        "eq": (0.887, 1.767, 2.205, 2.289, 2.56),
        "shift_var": (1.01, 1.953, 2.253, 3.065, 3.529),
    },
    "xczu": {
        "add": (0.316, 0.705, 0.716, 0.805, 0.926),
        "neg": (0.279, 0.424, 0.583, 0.722, 0.835),
        "cmp": (0.316, 0.56, 0.656, 0.657, 0.787),
        "eq": (0.316, 0.617, 0.634, 0.712, 0.845),
        "shift_var": (0.316, 0.59, 0.666, 1.021, 1.086),
    },
}
# classes characterised at one width: width, delay ns, Bambu cell
_ONE_WIDTH: dict[str, dict[str, tuple[int, float, str]]] = {
    "xc7": {
        "lut": (1, 0.858, "lut_expr_FU_1_1_1"),
        "mul_lut8": (8, 4.3, "ui_mult_expr_FU_8_8_8_0 (40 SLICE_LUTS)"),
        "ram_read": (1, 3.419, "ARRAY_1D_STD_BRAM_N1_SDS (LOAD stage_period)"),
    },
    "xczu": {
        "lut": (1, 0.384, "lut_expr_FU"),
        "mul_lut8": (8, 1.22, "ui_mult_expr_FU_8_8_8_0 (38 SLICE_LUTS)"),
        "ram_read": (1, 1.418, "ARRAY_1D_STD_BRAM_SDS (LOAD stage_period)"),
    },
}


def _delay_table(family: str) -> dict[str, dict[int, tuple[float, str]]]:
    """(delay ns, Bambu cell) per operator class and characterised width of `family`."""
    table = {
        cls: {w: (ns, _CELLS[cls][family].format(w=w)) for w, ns in zip(CHAR_WIDTHS, delays, strict=True)}
        for cls, delays in _WIDE_DELAYS[family].items()
    }
    table.update({cls: {w: (ns, cell)} for cls, (w, ns, cell) in _ONE_WIDTH[family].items()})
    return table


# (delay ns, Bambu cell) per family, operator class and width
DELAY: dict[str, dict[str, dict[int, tuple[float, str]]]] = {fam: _delay_table(fam) for fam in FAMILIES}


def delay(family: str, cls: str, bits: int) -> tuple[float, str]:
    table = DELAY[family][cls]
    w = char_width(bits)
    if w not in table:  # single-entry classes (one LUT level, RAM read, 8x8 LUT multiplier)
        w = next(iter(table))
    ns, cell = table[w]
    return ns, f"{BAMBU[family]}, cell {cell}: {ns} ns"


def lut_level(family: str) -> tuple[float, str]:
    """Delay of one LUT level (a single LUT6 between registers)."""
    return delay(family, "lut", 1)


# ---------------------------------------------------------------- fabric rules

FSM_SOURCE = (
    "one-hot state encoding (UG901 fsm_encoding 'auto' picks one-hot for small FSMs): one FF and "
    "one next-state LUT per state"
)
MUX_SOURCE = "a LUT6 implements a 4:1 multiplexer (UG474): an n-bit k:1 mux takes n x ceil((k-1)/3) LUTs"


def mux_luts(bits: int, inputs: int) -> int:
    """LUTs of an n-bit multiplexer with `inputs` inputs (a LUT6 is a 4:1 mux; a tree of
    them adds 3 inputs per extra LUT)."""
    if inputs <= 1:
        return 0
    return bits * math.ceil((inputs - 1) / 3)
