"""Floating-point tables: the operator cores and conversions Vitis HLS binds (HLS path only).

Latencies and DSP counts are those Vitis HLS binds (ScaleHLS's Vivado HLS operator table,
and core names of public Vitis HLS outputs), scaled to the clock (a core's stage delay is
fixed); LUT/FF are Bambu's characterised floating-point units. The built-in RTL backend
builds no floating point, so only the Vitis HLS estimate reads these.
"""

from __future__ import annotations

import math

from partition.estimate.tables.device import BAMBU, OpCost, check_family, combinational, log2ceil, lut_level

_SCALEHLS = (
    "ScaleHLS config.json (UIUC-ChenLab/scalehls): Vivado HLS operator table at 100MHz "
    "(fadd 4, fmul 3, fdiv 15, fcmp 1 cycles; fadd_delay 7.25, fmul_delay 5.7, fdiv_delay 6.07, "
    "fcmp_delay 6.4 ns; dsp_usage fadd 2, fmul 3, fdiv 0, fcmp 0)"
)

# Floating point: (op, bits) -> latency at 100 MHz, delay ns, dsp, lut, ff, source
# fmt: off
_FLOAT_XC7: dict[tuple[str, int], tuple[int, float, int, int, int, str]] = {
    ("fadd", 32): (
        4, 7.25, 2, 424, 379,
        f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {BAMBU['xc7']} fp_minus_expr_FU_32_32_32_500 "
        "(424 LUT, 475 registers - 96 harness I/O registers)",
    ),
    ("fmul", 32): (
        3, 5.7, 3, 130, 17,
        f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {BAMBU['xc7']} fp_mult_expr_FU_32_0_32_400 "
        "(130 LUT, 113 registers - 96 harness)",
    ),
    ("fdiv", 32): (
        15, 6.07, 0, 959, 1094,
        f"latency/delay/DSP: {_SCALEHLS}; LUT/FF: {BAMBU['xc7']} fp_rdiv_expr_FU_32_32_32_300 "
        "(959 LUT, 1190 registers - 96 harness)",
    ),
    ("fcmp", 32): (
        1, 6.4, 0, 32, 1,
        f"latency/delay/DSP: {_SCALEHLS}; LUT/FF derived: 32-bit magnitude compare (16 LUT, two "
        "bit pairs per LUT6 into the carry chain, UG474) + NaN detection of both operands "
        "(2 x (ceil(8/6) + ceil(23/6)) = 12 LUT) + sign handling 4 LUT; 1 output register",
    ),
    ("fadd", 64): (
        4, 7.25, 0, 1173, 1158,
        f"latency: Vitis HLS core dadd_64ns_64ns_64_5_full_dsp_1 'LATENCY 4' (SynModuleInfo of public "
        f"Vitis HLS outputs); delay derived = f32 adder's 7.25 ns; LUT/FF/DSP: {BAMBU['xc7']} "
        "fp_minus_expr_FU_64_64_64_500 (1173 LUT, 1350 registers - 192 harness, no DSP)",
    ),
    ("fmul", 64): (
        5, 5.7, 12, 530, 561,
        f"latency: Vitis HLS core dmul_64ns_64ns_64_6_max_dsp_1 (6 stages -> latency 5); delay derived "
        f"= f32 multiplier's 5.7 ns; LUT/FF/DSP: {BAMBU['xc7']} fp_mult_expr_FU_0_64_64_500 (530 LUT, "
        "753 registers - 192 harness, 12 DSP; also = ScaleHLS fmul 3 DSP x (4x4)/(2x2) 17-bit mantissa "
        "digit tiles)",
    ),
    ("fdiv", 64): (
        30, 6.07, 0, 3676, 4767,
        f"latency: Vitis HLS core ddiv_64ns_64ns_64_31_no_dsp_1 'LATENCY 30'; delay derived = f32 "
        f"divider's 6.07 ns; LUT/FF: {BAMBU['xc7']} fp_rdiv_expr_FU_64_64_64_300 (3676 LUT, 4959 "
        "registers - 192 harness)",
    ),
    ("fcmp", 64): (
        1, 6.4, 0, 58, 1,
        "latency: Vitis HLS core dcmp_64ns_64ns_1_2_no_dsp_1 (2 stages -> latency 1); delay derived = "
        "f32 compare; LUT derived: 64-bit magnitude compare 32 + NaN detection 2 x (ceil(11/6) + "
        "ceil(52/6)) = 22 + sign handling 4",
    ),
}
# Zynq UltraScale+: latencies from Vitis HLS core names seen on ZU+ parts, resources
# from the xc7 entries (DSP counts re-tiled for DSP48E2 where it differs).
# (op, bits) -> latency at 100 MHz, dsp, source; delay, lut and ff: the xc7 entry's
_XCZU_CORES: dict[tuple[str, int], tuple[int, int, str]] = {
    ("fadd", 32): (
        3, 2,
        "latency: Vitis HLS cores fadd_32ns_32ns_32_4_full_dsp_1 (4 stages -> latency 3) in public "
        "designs for xczu28dr-ffvg1517-2-e and a ZCU board; delay, DSP, LUT/FF: the xc7 entry (not "
        "characterised separately for UltraScale+)",
    ),
    ("fmul", 32): (
        2, 2,
        "latency: Vitis HLS core fmul_32ns_32ns_32_3_max_dsp_1 (latency 2) on the same ZU+ designs; DSP "
        "derived: the 24x24 mantissa product tiles into 2 DSP48E2 (24-bit unsigned fits the 27-bit port, "
        "UG579) instead of 3 on DSP48E1; delay and LUT/FF: the xc7 entry",
    ),
    ("fdiv", 32): (
        8, 0,
        "latency: Vitis HLS core fdiv_32ns_32ns_32_9_no_dsp_1 (latency 8) in a public ZCU design; delay "
        "and LUT/FF: the xc7 entry",
    ),
    ("fcmp", 32): (1, 0, "derived: same as the xc7 entry (one-cycle compare core)"),
    ("fadd", 64): (
        3, 0,
        "derived: xc7 latency 4 x 3/4 (ratio of the f32 adder latencies, ZU+/xc7); resources: xc7 entry",
    ),
    ("fmul", 64): (
        4, 12,
        "derived: xc7 latency 5 x 2/3 rounded up (ratio of the f32 multiplier latencies); resources: xc7 entry",
    ),
    ("fdiv", 64): (
        16, 0,
        "derived: xc7 latency 30 x 8/15 rounded up (ratio of the f32 divider latencies); resources: xc7 entry",
    ),
    ("fcmp", 64): (1, 0, "derived: same as the xc7 entry (one-cycle compare core)"),
}
# fmt: on
_FLOAT: dict[str, dict[tuple[str, int], tuple[int, float, int, int, int, str]]] = {
    "xc7": _FLOAT_XC7,
    "xczu": {
        key: (lat, _FLOAT_XC7[key][1], dsp, _FLOAT_XC7[key][3], _FLOAT_XC7[key][4], src)
        for key, (lat, dsp, src) in _XCZU_CORES.items()
    },
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


def float_cost(op: str, bits: int, family: str, clock_mhz: float) -> OpCost:
    """Floating-point operator (Vitis HLS path only). op: fadd (also fsub), fmul,
    fdiv, fcmp, fneg, fabs."""
    check_family(family)
    if op in ("fneg", "fabs"):
        lut_ns, lut_src = lut_level(family)
        if op == "fabs":
            return combinational(
                op, bits, family, 0.0, 0, "clear the sign bit: wiring only (IEEE 754 layout)"
            )
        return combinational(op, bits, family, lut_ns, 1, f"flip the sign bit: one LUT, {lut_src}")
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
    check_family(family)
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
        lut = n + n * math.ceil(log2ceil(n) / 2) + mant + exp
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
