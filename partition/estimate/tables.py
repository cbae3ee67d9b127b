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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from partition.regmap import RegisterMap

FAMILIES = ("xc7", "xczu")

CLOCK_UNCERTAINTY = 0.125
CLOCK_UNCERTAINTY_SOURCE = (
    "kernel microarchitecture: chain while the delay stays <= period x (1 - 0.125), "
    "the Vivado HLS default 12.5 % clock uncertainty"
)

_BAMBU = {
    "xc7": "PandA-bambu etc/devices/Xilinx_devices/xc7z020-1clg484-VVD.xml (Vivado characterisation, xc7z020 -1)",
    "xczu": "PandA-bambu etc/devices/Xilinx_devices/xcu280-2Lfsvh2892-VVD.xml (Vivado characterisation, UltraScale+ -2L)",
}
_SCALEHLS = (
    "ScaleHLS config.json (UIUC-ChenLab/scalehls): Vivado HLS operator table at 100MHz "
    "(fadd 4, fmul 3, fdiv 15, fcmp 1 cycles; fadd_delay 7.25, fmul_delay 5.7, fdiv_delay 6.07, "
    "fcmp_delay 6.4 ns; dsp_usage fadd 2, fmul 3, fdiv 0, fcmp 0)"
)
_CHAR_WIDTHS = (1, 8, 16, 32, 64)


def budget_ns(clock_mhz: float) -> float:
    """Combinational delay allowed per cycle (period minus clock uncertainty)."""
    return 1000.0 / clock_mhz * (1.0 - CLOCK_UNCERTAINTY)


def char_width(bits: int) -> int:
    """The characterised width used for an operator of `bits` bits (next one up)."""
    for w in _CHAR_WIDTHS:
        if bits <= w:
            return w
    return _CHAR_WIDTHS[-1]


def _log2ceil(n: int) -> int:
    return max(1, math.ceil(math.log2(max(2, n))))


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


# ------------------------------------------------------------ characterisations

# (delay ns, Bambu cell) per family, operator class and width
_DELAY: dict[str, dict[str, dict[int, tuple[float, str]]]] = {
    "xc7": {
        "add": {
            1: (1.01, "ui_plus_expr_FU_1_1_1"),
            8: (1.893, "ui_plus_expr_FU_8_8_8"),
            16: (2.109, "ui_plus_expr_FU_16_16_16"),
            32: (2.625, "ui_plus_expr_FU_32_32_32"),
            64: (3.486, "ui_plus_expr_FU_64_64_64"),
        },
        "neg": {
            1: (0.612, "ui_negate_expr_FU_1_1"),
            8: (1.752, "ui_negate_expr_FU_8_8"),
            16: (2.04, "ui_negate_expr_FU_16_16"),
            32: (2.433, "ui_negate_expr_FU_32_32"),
            64: (3.408, "ui_negate_expr_FU_64_64"),
        },
        "cmp": {
            1: (1.01, "lt_expr_FU_1_1_1"),
            8: (1.934, "lt_expr_FU_8_8_8"),
            16: (2.042, "lt_expr_FU_16_16_16"),
            32: (2.315, "lt_expr_FU_32_32_32"),
            64: (2.737, "lt_expr_FU_64_64_64"),
        },
        "eq": {
            1: (0.887, "ui_eq_expr_FU_1_1_1"),
            8: (1.767, "ui_eq_expr_FU_8_8_8"),
            16: (2.205, "ui_eq_expr_FU_16_16_16"),
            32: (2.289, "ui_eq_expr_FU_32_32_32"),
            64: (2.56, "ui_eq_expr_FU_64_64_64"),
        },
        "shift_var": {
            1: (1.01, "lshift_expr_FU_1_1_1"),
            8: (1.953, "lshift_expr_FU_8_8_8"),
            16: (2.253, "lshift_expr_FU_16_16_16"),
            32: (3.065, "lshift_expr_FU_32_32_32"),
            64: (3.529, "lshift_expr_FU_64_64_64"),
        },
        "lut": {1: (0.858, "lut_expr_FU_1_1_1")},
        "mul_lut8": {8: (4.3, "ui_mult_expr_FU_8_8_8_0 (40 SLICE_LUTS)")},
        "ram_read": {1: (3.419, "ARRAY_1D_STD_BRAM_N1_SDS (LOAD stage_period)")},
    },
    "xczu": {
        "add": {
            1: (0.316, "ui_plus_expr_FU_1_1_1"),
            8: (0.705, "ui_plus_expr_FU_8_8_8"),
            16: (0.716, "ui_plus_expr_FU_16_16_16"),
            32: (0.805, "ui_plus_expr_FU_32_32_32"),
            64: (0.926, "ui_plus_expr_FU_64_64_64"),
        },
        "neg": {
            1: (0.279, "ui_negate_expr_FU_1_1"),
            8: (0.424, "ui_negate_expr_FU_8_8"),
            16: (0.583, "ui_negate_expr_FU_16_16"),
            32: (0.722, "ui_negate_expr_FU_32_32"),
            64: (0.835, "ui_negate_expr_FU_64_64"),
        },
        "cmp": {
            1: (0.316, "lt_expr_FU_1_1_1"),
            8: (0.56, "lt_expr_FU_8_8_8"),
            16: (0.656, "lt_expr_FU_16_16_16"),
            32: (0.657, "lt_expr_FU_32_32_32"),
            64: (0.787, "lt_expr_FU_64_64_64"),
        },
        "eq": {
            1: (0.316, "ui_ne_expr_FU_1_1_1"),
            8: (0.617, "ui_ne_expr_FU_8_8_8"),
            16: (0.634, "ui_ne_expr_FU_16_16_16"),
            32: (0.712, "ui_ne_expr_FU_32_32_32"),
            64: (0.845, "ui_ne_expr_FU_64_64_64"),
        },
        "shift_var": {
            1: (0.316, "lshift_expr_FU_1_1_1"),
            8: (0.59, "lshift_expr_FU_8_8_8"),
            16: (0.666, "lshift_expr_FU_16_16_16"),
            32: (1.021, "lshift_expr_FU_32_32_32"),
            64: (1.086, "lshift_expr_FU_64_64_64"),
        },
        "lut": {1: (0.384, "lut_expr_FU")},
        "mul_lut8": {8: (1.22, "ui_mult_expr_FU_8_8_8_0 (38 SLICE_LUTS)")},
        "ram_read": {1: (1.418, "ARRAY_1D_STD_BRAM_SDS (LOAD stage_period)")},
    },
}

# DSP multipliers: characterised width -> [(pipeline stages, stage period ns)], cell
# ui_mult_expr_FU_<n>_<n>_<n>_<stages> (cycles = stages + 1 in Bambu's notation).
_MUL_STAGES: dict[str, dict[int, list[tuple[int, float]]]] = {
    "xc7": {
        16: [(0, 5.518), (1, 3.005), (2, 2.927)],
        32: [(0, 8.406), (1, 6.452), (2, 5.608), (3, 5.608), (4, 3.813), (5, 3.813), (6, 1.88), (7, 1.88)],
        64: [
            (0, 12.141),
            (1, 9.825),
            (2, 9.092),
            (3, 9.092),
            (4, 5.582),
            (5, 3.813),
            (6, 3.813),
            (17, 3.813),
        ],
    },
    "xczu": {
        16: [(0, 2.38), (1, 1.452), (2, 1.543)],
        32: [(0, 3.361), (1, 2.603), (2, 2.304), (3, 2.304), (4, 1.647), (5, 1.646), (6, 0.932), (7, 0.952)],
        64: [
            (0, 4.933),
            (1, 4.011),
            (2, 3.704),
            (3, 3.775),
            (4, 2.354),
            (5, 1.646),
            (6, 1.747),
            (7, 1.671),
            (17, 2.437),
        ],
    },
}

# DSP slice multiplier port widths (signed): wide port x narrow port
DSP_PORTS = {
    "xc7": (25, 18, "UG479 DSP48E1: 25 x 18 two's complement multiplier"),
    "xczu": (27, 18, "UG579 DSP48E2: 27 x 18 two's complement multiplier"),
}
# Width of a partial product's digits when a product is split across slices.
DSP_DIGIT = 17
DSP_DIGIT_SOURCE = (
    "yosys synth_xilinx mul2dsp: DSP_A_MAXWIDTH_PARTIAL=18 so partial products use 18-bit signed "
    "(17-bit unsigned) digits to use the (PCOUT << 17) -> PCIN cascade; Vivado agrees: 32x32->32 "
    "uses 3 DSP48 and 64x64->64 uses 10 (Bambu ui_mult_expr_FU_32_32_32_*, _64_64_64_* on xc7 and xczu)"
)
LUT_MUL_MAX_BITS = 10  # both operands at most this wide -> LUT multiplier timing (microarchitecture)
# Narrowest product synthesis puts on a DSP48 rather than in LUTs. Both tools place a
# non-constant multiply on a DSP slice by default (UG901 "DSP Block Inference": multipliers
# go into DSP blocks by default); yosys synth_xilinx -family xc7 (mul2dsp) does so from a
# 9-bit product on, checked on a lone registered signed a x b: 8x8, 9x4, 5x4, 6x3, 2x7 -> one
# DSP48E1; 4x4 and 3x5 -> LUTs.
DSP_MIN_PRODUCT_BITS = 9
LUT_MUL_MAX_CONST_BITS = 3  # constant multiplier with at most this many set bits -> shift-add

# Floating point: (op, bits) -> latency at 100 MHz, delay ns, dsp, lut, ff, source
_FLOAT: dict[str, dict[tuple[str, int], tuple[int, float, int, int, int, str]]] = {
    "xc7": {
        ("fadd", 32): (
            4,
            7.25,
            2,
            424,
            379,
            f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {_BAMBU['xc7']} fp_minus_expr_FU_32_32_32_500 "
            "(424 LUT, 475 registers - 96 harness I/O registers)",
        ),
        ("fmul", 32): (
            3,
            5.7,
            3,
            130,
            17,
            f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {_BAMBU['xc7']} fp_mult_expr_FU_32_0_32_400 "
            "(130 LUT, 113 registers - 96 harness)",
        ),
        ("fdiv", 32): (
            15,
            6.07,
            0,
            959,
            1094,
            f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {_BAMBU['xc7']} fp_rdiv_expr_FU_32_32_32_300 "
            "(959 LUT, 1190 registers - 96 harness)",
        ),
        ("fcmp", 32): (
            1,
            6.4,
            0,
            32,
            1,
            f"latency/delay/DSP: {_SCALEHLS}; LUT/FF derived: 32-bit magnitude compare (16 LUT, two "
            "bit pairs per LUT6 into the carry chain, UG474) + NaN detection of both operands "
            "(2 x (ceil(8/6) + ceil(23/6)) = 12 LUT) + sign handling 4 LUT; 1 output register",
        ),
        ("fadd", 64): (
            4,
            7.25,
            0,
            1173,
            1158,
            f"latency: Vitis HLS core dadd_64ns_64ns_64_5_full_dsp_1 'LATENCY 4' (SynModuleInfo of public "
            f"Vitis HLS outputs); delay derived = f32 adder's 7.25 ns; LUT/FF/DSP: {_BAMBU['xc7']} "
            "fp_minus_expr_FU_64_64_64_500 (1173 LUT, 1350 registers - 192 harness, no DSP)",
        ),
        ("fmul", 64): (
            5,
            5.7,
            12,
            530,
            561,
            f"latency: Vitis HLS core dmul_64ns_64ns_64_6_max_dsp_1 (6 stages -> latency 5); delay derived "
            f"= f32 multiplier's 5.7 ns; LUT/FF/DSP: {_BAMBU['xc7']} fp_mult_expr_FU_0_64_64_500 (530 LUT, "
            "753 registers - 192 harness, 12 DSP; also = ScaleHLS fmul 3 DSP x (4x4)/(2x2) 17-bit mantissa "
            "digit tiles)",
        ),
        ("fdiv", 64): (
            30,
            6.07,
            0,
            3676,
            4767,
            f"latency: Vitis HLS core ddiv_64ns_64ns_64_31_no_dsp_1 'LATENCY 30'; delay derived = f32 "
            f"divider's 6.07 ns; LUT/FF: {_BAMBU['xc7']} fp_rdiv_expr_FU_64_64_64_300 (3676 LUT, 4959 "
            "registers - 192 harness)",
        ),
        ("fcmp", 64): (
            1,
            6.4,
            0,
            58,
            1,
            "latency: Vitis HLS core dcmp_64ns_64ns_1_2_no_dsp_1 (2 stages -> latency 1); delay derived = "
            "f32 compare; LUT derived: 64-bit magnitude compare 32 + NaN detection 2 x (ceil(11/6) + "
            "ceil(52/6)) = 22 + sign handling 4",
        ),
    },
}
# Zynq UltraScale+: latencies from Vitis HLS core names seen on ZU+ parts, resources
# from the xc7 entries (DSP counts re-tiled for DSP48E2 where it differs).
_FLOAT["xczu"] = {
    ("fadd", 32): (
        3,
        7.25,
        2,
        424,
        379,
        "latency: Vitis HLS cores fadd_32ns_32ns_32_4_full_dsp_1 (4 stages -> latency 3) in public "
        "designs for xczu28dr-ffvg1517-2-e and a ZCU board; delay, DSP, LUT/FF: the xc7 entry (not "
        "characterised separately for UltraScale+)",
    ),
    ("fmul", 32): (
        2,
        5.7,
        2,
        130,
        17,
        "latency: Vitis HLS core fmul_32ns_32ns_32_3_max_dsp_1 (latency 2) on the same ZU+ designs; DSP "
        "derived: the 24x24 mantissa product tiles into 2 DSP48E2 (24-bit unsigned fits the 27-bit port, "
        "UG579) instead of 3 on DSP48E1; delay and LUT/FF: the xc7 entry",
    ),
    ("fdiv", 32): (
        8,
        6.07,
        0,
        959,
        1094,
        "latency: Vitis HLS core fdiv_32ns_32ns_32_9_no_dsp_1 (latency 8) in a public ZCU design; delay "
        "and LUT/FF: the xc7 entry",
    ),
    ("fcmp", 32): (1, 6.4, 0, 32, 1, "derived: same as the xc7 entry (one-cycle compare core)"),
    ("fadd", 64): (
        3,
        7.25,
        0,
        1173,
        1158,
        "derived: xc7 latency 4 x 3/4 (ratio of the f32 adder latencies, ZU+/xc7); resources: xc7 entry",
    ),
    ("fmul", 64): (
        4,
        5.7,
        12,
        530,
        561,
        "derived: xc7 latency 5 x 2/3 rounded up (ratio of the f32 multiplier latencies); resources: xc7 entry",
    ),
    ("fdiv", 64): (
        16,
        6.07,
        0,
        3676,
        4767,
        "derived: xc7 latency 30 x 8/15 rounded up (ratio of the f32 divider latencies); resources: xc7 entry",
    ),
    ("fcmp", 64): (1, 6.4, 0, 58, 1, "derived: same as the xc7 entry (one-cycle compare core)"),
}

# Conversions: (kind, src bits, dst bits) -> latency at 100 MHz per family, LUT, FF, source
_CONVERT_LATENCY = {
    # int -> float
    ("itof", 32): (3, "Vitis HLS core sitofp_32s_32_4_no_dsp_1 (4 stages -> latency 3)"),
    ("itof", 64): (4, "Vitis HLS core uitodp_32ns_64_5_no_dsp_1 (latency 4)"),
    # float -> int: same datapath reversed (normalise shift + round)
    ("ftoi", 32): (3, "derived: same datapath as sitofp_32s_32_4_no_dsp_1 (shift + round), latency 3"),
    ("ftoi", 64): (4, "derived: same datapath as uitodp_32ns_64_5_no_dsp_1, latency 4"),
    ("fext", 64): (1, "Vitis HLS core fpext_32ns_64_2_no_dsp_1 (2 stages -> latency 1)"),
    ("ftrunc", 32): (
        1,
        "derived: same depth as fpext_32ns_64_2_no_dsp_1 (exponent re-bias + rounding), latency 1",
    ),
}


def _scale_latency(latency100: int, clock_mhz: float) -> int:
    """Float core latency at another clock: stage delays are fixed, so stages scale with f."""
    if latency100 == 0:
        return 0
    return max(1, math.ceil(latency100 * clock_mhz / 100.0 - 1e-9))


_FLOAT_CLOCK_RULE = "derived: latency at 100 MHz x clock/100 MHz rounded up (the cores' stage delay is fixed)"


# ------------------------------------------------------------------- lookups


def _delay(family: str, cls: str, bits: int) -> tuple[float, str]:
    table = _DELAY[family][cls]
    w = char_width(bits)
    if w not in table:  # single-entry classes (one LUT level, RAM read, 8x8 LUT multiplier)
        w = next(iter(table))
    ns, cell = table[w]
    return ns, f"{_BAMBU[family]}, cell {cell}: {ns} ns"


def _check_family(family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"unknown device family {family!r}; known: {', '.join(FAMILIES)}")


def lut_level(family: str) -> tuple[float, str]:
    """Delay of one LUT level (a single LUT6 between registers)."""
    return _delay(family, "lut", 1)


INT_OPS = (
    "add",
    "sub",
    "neg",
    "cmp",
    "eq",
    "and",
    "or",
    "xor",
    "invert",
    "not",
    "logic",
    "select",
    "min",
    "max",
    "abs",
    "shift_var",
    "shift_const",
    "wire",
)


def int_cost(op: str, bits: int, family: str) -> OpCost:
    """Cost of a combinational integer operator of `bits` bits (latency 0).

    op: add/sub, neg, cmp (lt/le/gt/ge), eq (eq/ne), and/or/xor, invert (bitwise
    not), not/logic (one boolean LUT), select, min/max, abs, shift_var (barrel
    shifter with numpy's out-of-range rule), shift_const and wire (casts, constant
    shifts: wiring only).
    """
    _check_family(family)
    n = max(1, bits)
    lut_ns, lut_src = lut_level(family)
    if op in ("add", "sub"):
        ns, src = _delay(family, "add", n)
        return OpCost(
            op, n, family, ns, 0, 0.0, 1, n, 0, 0,
            f"delay: {src}; LUT: n-bit add/sub = n LUT + ceil(n/4) CARRY4 (UG474, carry logic: one LUT "
            "per bit drives the carry chain's propagate input)",
        )  # fmt: skip
    if op == "neg":
        ns, src = _delay(family, "neg", n)
        return OpCost(
            op,
            n,
            family,
            ns,
            0,
            0.0,
            1,
            n,
            0,
            0,
            f"delay: {src}; LUT: 0 - x on the carry chain, n LUT (UG474)",
        )
    if op == "cmp":
        ns, src = _delay(family, "cmp", n)
        lut = max(1, math.ceil(n / 2))
        return OpCost(
            op, n, family, ns, 0, 0.0, 1, lut, 0, 0,
            f"delay: {src}; LUT: ceil(n/2), a LUT6 compares two bit pairs into the carry chain (UG474 "
            "'wide comparators'); cross-check: the same Bambu cell reports 19 LUT for 32 bits incl. harness",
        )  # fmt: skip
    if op == "eq":
        ns, src = _delay(family, "eq", n)
        k = math.ceil(n / 3)
        lut = k + (math.ceil(k / 6) if k > 1 else 0)
        return OpCost(
            op, n, family, ns, 0, 0.0, 1, lut, 0, 0,
            f"delay: {src}; LUT: ceil(n/3) LUT6 each comparing three bit pairs, reduced by 6-input ANDs "
            "(UG474 LUT6)",
        )  # fmt: skip
    if op in ("and", "or", "xor", "invert", "select"):
        return OpCost(
            op, n, family, lut_ns, 0, 0.0, 1, n, 0, 0,
            f"delay: one LUT level, {lut_src}; LUT: one LUT per bit (UG474: a LUT6 implements any "
            "function of up to 6 inputs; a 2:1 select is a LUT3)",
        )  # fmt: skip
    if op in ("not", "logic"):
        return OpCost(
            op, 1, family, lut_ns, 0, 0.0, 1, 1, 0, 0, f"delay: one LUT level, {lut_src}; LUT: 1 (UG474 LUT6)"
        )
    if op in ("min", "max"):
        c = int_cost("cmp", n, family)
        s = int_cost("select", n, family)
        return OpCost(
            op, n, family, c.delay_ns + s.delay_ns, 0, 0.0, 1, c.lut + s.lut, 0, 0,
            "derived: compare + select; " + c.source + " | " + s.source,
        )  # fmt: skip
    if op == "abs":
        g = int_cost("neg", n, family)
        s = int_cost("select", n, family)
        return OpCost(
            op, n, family, g.delay_ns + s.delay_ns, 0, 0.0, 1, g.lut + s.lut, 0, 0,
            "derived: negate + select on the sign bit; " + g.source + " | " + s.source,
        )  # fmt: skip
    if op == "shift_var":
        ns, src = _delay(family, "shift_var", n)
        levels = math.ceil(_log2ceil(n) / 2)
        lut = n * levels + n
        return OpCost(
            op, n, family, ns + lut_ns, 0, 0.0, 1, lut, 0, 0,
            f"delay: barrel shifter {src} + one LUT level for numpy's out-of-range result ({lut_src}); "
            "LUT: n x ceil(log2(n)/2) (log4 levels of 4:1 muxes, a LUT6 is a 4:1 mux, UG474; Bambu "
            "reports 94 LUT for 32 bits) + n for the out-of-range select",
        )  # fmt: skip
    if op in ("shift_const", "wire"):
        return OpCost(
            op,
            n,
            family,
            0.0,
            0,
            0.0,
            1,
            0,
            0,
            0,
            "wiring only: constant shifts, sign/zero extension and truncation select bits (no logic)",
        )
    raise ValueError(f"unknown integer operator {op!r}")


def dsp_count(a_bits: int, b_bits: int, out_bits: int, family: str) -> int:
    """DSP slices for a signed a_bits x b_bits multiply truncated to out_bits bits.

    Fits one slice when the operands fit the ports (either way round); otherwise both
    operands are split into 17-bit unsigned digits and only the partial products
    that reach below `out_bits` are built.
    """
    _check_family(family)
    wide, narrow, _ = DSP_PORTS[family]
    a, b = max(a_bits, b_bits), min(a_bits, b_bits)
    if a <= wide and b <= narrow:
        return 1
    da = [i * DSP_DIGIT for i in range(math.ceil((a - 1) / DSP_DIGIT))] or [0]
    db = [j * DSP_DIGIT for j in range(math.ceil((b - 1) / DSP_DIGIT))] or [0]
    return sum(1 for x in da for y in db if x + y < out_bits)


def _dsp_source(family: str) -> str:
    return f"DSP count: {DSP_PORTS[family][2]}; split products: {DSP_DIGIT_SOURCE}"


def mul_cost(
    a_bits: int,
    b_bits: int,
    out_bits: int,
    family: str,
    clock_mhz: float,
    const: int | None = None,
) -> OpCost:
    """Integer multiply. `a_bits`/`b_bits` are the operands' significant signed widths
    (a cast from a narrower type keeps the narrow width); `const` is the value of a
    constant operand, if any."""
    _check_family(family)
    if const is not None:
        mag = abs(int(const)) % (1 << out_bits)
        ones = bin(mag).count("1")
        if ones <= 1:
            return OpCost(
                "mul", out_bits, family, 0.0, 0, 0.0, 1, 0, 0, 0,
                "multiply by 0 or a power of two: a constant shift, wiring only",
            )  # fmt: skip
        if ones <= LUT_MUL_MAX_CONST_BITS:
            add = int_cost("add", out_bits, family)
            k = ones - 1
            return OpCost(
                "mul", out_bits, family, add.delay_ns * k, 0, 0.0, 1, add.lut * k, 0, 0,
                f"constant with {ones} set bits -> {k} shift-and-add adders (microarchitecture: constant "
                f"multipliers with <= {LUT_MUL_MAX_CONST_BITS} set bits map to LUTs); " + add.source,
            )  # fmt: skip
    if a_bits <= LUT_MUL_MAX_BITS and b_bits <= LUT_MUL_MAX_BITS:
        ns, src = _delay(family, "mul_lut8", 8)
        if a_bits + b_bits >= DSP_MIN_PRODUCT_BITS:
            # scheduled as the narrow combinational multiply it is (latency 0), but synthesis
            # maps it onto one DSP slice (no input/output registers used), not LUTs
            return OpCost(
                "mul", out_bits, family, ns, 0, 0.0, 1, 0, 0, 1,
                f"narrow multiply (operands <= {LUT_MUL_MAX_BITS} bits): combinational, delay {src}; "
                f"a product of {DSP_MIN_PRODUCT_BITS} bits or more goes on one DSP48 (UG901 default DSP "
                "inference; yosys synth_xilinx mul2dsp, checked)",
            )  # fmt: skip
        char_lut = 40 if family == "xc7" else 38
        lut = math.ceil(char_lut * a_bits * b_bits / 64)
        return OpCost(
            "mul", out_bits, family, ns, 0, 0.0, 1, lut, 0, 0,
            f"LUT multiplier (product under {DSP_MIN_PRODUCT_BITS} bits); delay {src}; LUT "
            f"derived: {char_lut} LUT for 8x8 scaled by the partial-product count a*b/64",
        )  # fmt: skip
    dsp = dsp_count(a_bits, b_bits, out_bits, family)
    w = char_width(max(a_bits, b_bits, 16))
    stages = _MUL_STAGES[family][w]
    budget = budget_ns(clock_mhz)
    fitting = [(lat, ns) for lat, ns in stages if ns <= budget]
    lat, ns = fitting[0] if fitting else stages[-1]
    lut = max(0, out_bits - DSP_DIGIT) if dsp > 1 else 0
    ff = max(0, lat - 2) * out_bits
    cell = f"ui_mult_expr_FU_{w}_{w}_{w}_{lat}"
    return OpCost(
        "mul", out_bits, family, ns, lat, 0.0, 1, lut, ff, dsp,
        f"{_dsp_source(family)}; latency: fewest pipeline stages whose stage period fits the clock "
        f"budget, {_BAMBU[family]}, cell {cell}: {ns} ns; LUT derived: partial products above the "
        "first 17-bit cascade step summed in one (out_bits - 17)-bit fabric adder (Bambu reports "
        "18 LUT for 32x32 and 43 for 64x64 on xc7); FF: stages beyond the DSP's own M and P "
        "registers are fabric registers (out_bits each)",
    )  # fmt: skip


def div_cost(bits: int, family: str, signed: bool, const: int | None = None) -> OpCost:
    """Integer floor division / modulo (numpy semantics).

    By a power-of-two constant: an arithmetic shift (floordiv) or a mask (mod), both
    exact for floor semantics in two's complement, so wiring only. Otherwise a
    sequential radix-2 restoring divider: latency bits + 2, not pipelined.
    """
    _check_family(family)
    n = max(1, bits)
    if const is not None and const > 0 and (const & (const - 1)) == 0:
        return OpCost(
            "div", n, family, 0.0, 0, 0.0, 1, 0, 0, 0,
            "division/modulo by a power-of-two constant: arithmetic shift right (floor) or bit mask "
            "(floor modulo) in two's complement, wiring only",
        )  # fmt: skip
    add = int_cost("add", n, family)
    latency = n + 2
    lut = 2 * n + (4 * n if signed else 0)
    ff = 3 * n + _log2ceil(latency + 1)
    return OpCost(
        "div", n, family, add.delay_ns, latency, 0.0, latency, lut, ff, 0,
        "microarchitecture: sequential radix-2 divider, latency bits + 2, not pipelined (ii = latency); "
        "LUT derived: n-bit subtractor + n-bit restore mux per step"
        + (", plus operand negations (2n) and the floor-rounding fix-up add and select (2n)" if signed else "")
        + " (UG474 adder rule); FF derived: remainder, quotient and divisor registers (3n) + step "
        "counter; stage delay " + add.source,
    )  # fmt: skip


def float_cost(op: str, bits: int, family: str, clock_mhz: float) -> OpCost:
    """Floating-point operator (Vitis HLS path only). op: fadd (also fsub), fmul,
    fdiv, fcmp, fneg, fabs."""
    _check_family(family)
    if op in ("fneg", "fabs"):
        lut_ns, lut_src = lut_level(family)
        if op == "fabs":
            return OpCost(
                op, bits, family, 0.0, 0, 0.0, 1, 0, 0, 0, "clear the sign bit: wiring only (IEEE 754 layout)"
            )
        return OpCost(op, bits, family, lut_ns, 0, 0.0, 1, 1, 0, 0, f"flip the sign bit: one LUT, {lut_src}")
    key = ("fadd" if op == "fsub" else op, bits)
    if key not in _FLOAT[family]:
        raise ValueError(f"no floating-point entry for {op} on {bits}-bit floats")
    lat100, ns, dsp, lut, ff, src = _FLOAT[family][key]
    lat = _scale_latency(lat100, clock_mhz)
    return OpCost(
        op, bits, family, ns, lat, 0.0, 1, lut, ff, dsp, f"{src}; at {clock_mhz:g} MHz: {_FLOAT_CLOCK_RULE}"
    )


def convert_cost(kind: str, src_bits: int, dst_bits: int, family: str, clock_mhz: float) -> OpCost:
    """Float conversions: itof (int -> float), ftoi (float -> int, truncating), fext
    (f32 -> f64), ftrunc (f64 -> f32)."""
    _check_family(family)
    if kind == "itof":
        n, fbits = src_bits, dst_bits
    elif kind == "ftoi":
        n, fbits = dst_bits, src_bits
    elif kind == "fext":
        n, fbits = 32, 64
    elif kind == "ftrunc":
        n, fbits = 64, 32
    else:
        raise ValueError(f"unknown conversion {kind!r}")
    lat100, lsrc = _CONVERT_LATENCY[(kind, fbits)]
    mant, exp = (24, 8) if fbits == 32 else (53, 11)
    if kind in ("itof", "ftoi"):
        lut = n + n * math.ceil(_log2ceil(n) / 2) + mant + exp
        rule = (
            "LUT derived: leading-zero count (n) + normalising barrel shift (n x ceil(log2(n)/2), UG474 "
            "LUT6 as 4:1 mux) + rounding adder (mantissa bits) + exponent adder (exponent bits)"
        )
    elif kind == "fext":
        lut = 11 + 64
        rule = "LUT derived: 11-bit exponent re-bias adder + 64 output bits of special-case selection"
    else:
        lut = 24 + 11 + 32
        rule = "LUT derived: 24-bit rounding adder + 11-bit exponent adder + 32 output bits of overflow selection"
    lat = _scale_latency(lat100, clock_mhz)
    lut_ns, lut_src = lut_level(family)
    return OpCost(
        kind, dst_bits, family, lut_ns, lat, 0.0, 1, lut, lat * dst_bits, 0,
        f"latency at 100 MHz: {lsrc}; {_FLOAT_CLOCK_RULE}; {rule}; FF: one {dst_bits}-bit register per "
        f"stage; input stage delay one LUT level ({lut_src})",
    )  # fmt: skip


def mem_cost(kind: str, family: str) -> OpCost:
    """Local RAM access (microarchitecture: synchronous read, 1 cycle, 2 ports).

    load: issued in a cycle with its address; data valid one cycle later after the
    RAM's clock-to-out and routing. store: address, data and write enable are
    captured by the RAM's input registers at the clock edge.
    """
    _check_family(family)
    if kind == "load":
        ns, src = _delay(family, "ram_read", 1)
        return OpCost(
            "load",
            0,
            family,
            0.0,
            1,
            ns,
            1,
            0,
            0,
            0,
            f"microarchitecture: synchronous read, latency 1; data valid {ns} ns into the next cycle: {src}",
        )
    if kind == "store":
        return OpCost(
            "store", 0, family, 0.0, 0, 0.0, 1, 0, 0, 0,
            "microarchitecture: synchronous write; inputs are captured by the RAM's own input registers, "
            "the routing to them is covered by the clock-uncertainty margin",
        )  # fmt: skip
    raise ValueError(kind)


# -------------------------------------------------------------------- memories

# (depth, width) aspect ratios of one RAMB18 (microarchitecture list; UG473/UG573)
BRAM18_SHAPES = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
BRAM18_SOURCE = (
    "UG473 (7-series) / UG573 (UltraScale) RAMB18 aspect ratios 16Kx1, 8Kx2, 4Kx4, 2Kx9, 1Kx18, 512x36 "
    "(512x36 only as simple dual port in the primitive; the microarchitecture lists it), cascaded: "
    "count = min over shapes of ceil(depth/d) x ceil(width/w)"
)
LUTRAM_MAX_BITS = 1024
LUTRAM_SOURCE = (
    "microarchitecture: arrays of at most 1024 bits map to LUTRAM, one LUT per 64 bits (UG474: a SLICEM "
    "LUT6 is a 64x1 RAM): ceil(depth/64) x width LUTs"
)


@dataclass(frozen=True)
class RamCost:
    impl: str  # "bram18" or "lutram"
    depth: int
    width: int
    bram18: int
    lut: int
    source: str
    depth_blocks: int = 1  # blocks stacked in depth (> 1: a read mux selects among them)


def ram_cost(depth: int, width: int) -> RamCost:
    bits = depth * width
    if bits <= LUTRAM_MAX_BITS:
        return RamCost("lutram", depth, width, 0, math.ceil(depth / 64) * width, LUTRAM_SOURCE)
    count, blocks = min(
        (math.ceil(depth / d) * math.ceil(width / w), math.ceil(depth / d)) for d, w in BRAM18_SHAPES
    )
    return RamCost("bram18", depth, width, count, 0, BRAM18_SOURCE, blocks)


BRAM_MUX_SOURCE = (
    "derived: a RAM deeper than its cheapest block shape is stacked in depth (of the shapes with the "
    "fewest blocks, the one with the fewest levels); each read port selects its word among the levels "
    "with a LUT6 4:1 mux tree (the MUXF7/F8 that yosys adds are not LUTs), each write port decodes one "
    "enable per level; checked against yosys synth_xilinx -family xc7 on the built-in RAM alone, both "
    "ports used: 9216x32 = 9 levels, 274 LUT (model 210); 9216x16 = 116 LUT (model 114); in a kernel "
    "synthesized flat, logic of an unused port goes and the model's lower figure fits better"
)


def ram_read_ff(cost: RamCost, read_ports: int) -> int:
    """Fabric FFs of a RAM's registered read data on the ports the compute datapath reads
    through: the microarchitecture reads synchronously (data one cycle after the address). A
    block RAM has that register inside; distributed RAM (UG474: asynchronous read) takes one
    FF per data bit and read port in the fabric (yosys on dense_int32 unroll4_wide64: its 64
    8-bit LUTRAM banks of w, one compute read port each, keep 512 such FFs). A ROM is not
    charged (the model passes 0 ports): its words are constants, which synthesis turns into
    logic (yosys on the ROM banks of bandpass_q15 and gaussian_blur3 keeps no data FFs)."""
    return cost.width * read_ports if cost.impl == "lutram" else 0


def bram_mux_luts(cost: RamCost, read_ports: int, write_ports: int) -> int:
    """LUTs that select among the depth levels of a block RAM stacked in depth."""
    n = cost.depth_blocks
    if cost.impl != "bram18" or n <= 1:
        return 0
    return read_ports * mux_luts(cost.width, n) + write_ports * n


# ------------------------------------------------------------- control, muxes

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


# --------------------------------------------------------------------- shell

SHELL_SOURCE = (
    "derived (structural count of the kernel's own interface logic, to be calibrated against yosys on "
    "the built-in RTL): AXI-Lite control block = argument data words (32 FF each) + control bits "
    "(ap_start, ap_done, ap_idle, ap_ready, auto_restart, GIE, IER x2, ISR x2 = 10 FF) + address "
    "register + 32-bit read-data register + write/read handshake FSMs (2 x 3 one-hot states); read "
    "mux over the readable words (32-bit, 4:1 per LUT6) + one decode LUT per writable word + one LUT "
    "per control bit; burst engines (read and write): 64-bit address adder and register, 32-bit "
    "remaining-beat counter, 8-bit burst length with the 256-beat / 4 KB clamp (two 12-bit compares + "
    "8-bit select), 4-state one-hot FSM, bus-width data register, write strobes; per array buffer "
    "an engine/compute port mux on address and data; phase FSM one-hot over idle, load per in-array, "
    "compute, store per out-array, done"
)


@dataclass(frozen=True)
class ShellParams:
    """Widths and counts of the interface shell's parts (one place, for calibration)."""

    ctrl_bits: int = 10  # ap_start, ap_done, ap_idle, ap_ready, auto_restart, GIE, IER x2, ISR x2
    lite_fsm_states: int = 6  # AXI-Lite write and read handshake FSMs, 3 one-hot states each
    lite_rdata_bits: int = 32
    engine_addr_bits: int = 64  # m_axi_addr64
    engine_count_bits: int = 32  # remaining beats
    engine_len_bits: int = 8  # AXI4 burst length (256 beats)
    engine_clamp_compares: int = (
        2  # 256-beat and 4 KB boundary clamps, 12-bit compares (one LUT6 each per 6 bits)
    )
    engine_fsm_states: int = 4


SHELL_PARAMS = ShellParams()


def shell_resources(
    regmap: RegisterMap,
    load_arrays: int,
    store_arrays: int,
    buffer_ports: list[tuple[int, int]],
    bus_bits: int,
    params: ShellParams = SHELL_PARAMS,
) -> dict[str, int]:
    """LUT/FF of the kernel's interface shell, from its register map and arrays.

    `buffer_ports` lists (address bits, data bits) of each array buffer, which gets
    a 2:1 mux between the burst engine and the compute datapath on one port.
    """
    p = params
    data_words = sum(r.words for r in regmap.registers)
    writable_words = sum(r.words for r in regmap.registers if r.kind != "return")
    readable_words = data_words + 4  # CTRL, GIE, IER, ISR are readable too
    addr_bits = _log2ceil(regmap.size)
    lite_ff = 32 * data_words + p.ctrl_bits + addr_bits + p.lite_rdata_bits + p.lite_fsm_states
    lite_lut = mux_luts(p.lite_rdata_bits, readable_words) + writable_words + p.ctrl_bits + p.lite_fsm_states
    engines = (1 if load_arrays else 0) + (1 if store_arrays else 0)
    engine_ff = p.engine_addr_bits + p.engine_count_bits + p.engine_len_bits + p.engine_fsm_states + bus_bits
    engine_lut = (
        p.engine_addr_bits  # address adder
        + p.engine_count_bits  # beat counter
        + p.engine_clamp_compares * 2  # two LUT6 per 12-bit compare
        + p.engine_len_bits  # burst-length select
        + p.engine_fsm_states
        + bus_bits // 8  # write strobes / byte lanes
    )
    phases = 1 + load_arrays + 1 + store_arrays + 1
    buf_lut = sum(a + d for a, d in buffer_ports)
    lut = lite_lut + engines * engine_lut + phases + buf_lut
    ff = lite_ff + engines * engine_ff + phases
    return {"lut": lut, "ff": ff, "dsp": 0, "bram18": 0}


# --------------------------------------------------------------- enumeration


def table_entries(clock_mhz: float = 100.0) -> list[OpCost]:
    """Every table entry for every family at the characterised widths (for checks)."""
    out: list[OpCost] = []
    for fam in FAMILIES:
        for op in INT_OPS:
            for w in _CHAR_WIDTHS:
                out.append(int_cost(op, w, fam))
        for w in (8, 16, 32, 64):
            out.append(mul_cost(w, w, w, fam, clock_mhz))
            out.append(mul_cost(w, w, w, fam, clock_mhz, const=5))
            out.append(div_cost(w, fam, signed=True))
            out.append(div_cost(w, fam, signed=False, const=8))
        for bits in (32, 64):
            for op in ("fadd", "fsub", "fmul", "fdiv", "fcmp", "fneg", "fabs"):
                out.append(float_cost(op, bits, fam, clock_mhz))
            out.append(convert_cost("itof", 32, bits, fam, clock_mhz))
            out.append(convert_cost("ftoi", bits, 32, fam, clock_mhz))
        out.append(convert_cost("fext", 32, 64, fam, clock_mhz))
        out.append(convert_cost("ftrunc", 64, 32, fam, clock_mhz))
        out.append(mem_cost("load", fam))
        out.append(mem_cost("store", fam))
    return out
