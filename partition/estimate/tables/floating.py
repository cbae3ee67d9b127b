"""Floating-point tables: the operator cores, conversions and math functions Vitis HLS binds (HLS path only).

Latencies and DSP counts are those Vitis HLS binds (ScaleHLS's Vivado HLS operator table,
and core names of public Vitis HLS outputs), scaled to the clock (a core's stage delay is
fixed); LUT/FF are Bambu's characterised floating-point units. The built-in RTL backend
builds no floating point, so only the Vitis HLS estimate reads these. Math functions
(`math_cost`): sqrt, exp and log are Vitis HLS cores (latency from core names of public
Vitis HLS outputs, DSP from ScaleHLS where it has them); the others are hls_math C++,
estimated as compositions of those cores and operators, or as a CORDIC (sin, cos, atan):
no published figure exists for them, and each source string gives the derivation.
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


# ------------------------------------------------------------- math functions
# Vitis HLS binds sqrt, exp and log of hls_math to Floating-Point Operator cores (fsqrt,
# fexp, flog in its reports); every other function of hls_math is C++ it synthesises like
# kernel code. Cores: (fn, bits) -> latency at 100 MHz on xc7, delay ns, DSP, LUT, FF, source.
_CORE_SOURCE = "SynModuleInfo of a public Vitis HLS project (its clock not stated)"
# fmt: off
_MATH_CORES: dict[tuple[str, int], tuple[int, float, int, int, int, str]] = {
    ("sqrt", 32): (
        15, 6.07, 0, 959, 1094,
        f"latency: Vitis HLS core fsqrt_32ns_32ns_32_16_no_dsp_1 'IMPL fabric LATENCY 15' ({_CORE_SOURCE} "
        "Bert_layer); DSP 0 (no_dsp core); delay, LUT/FF estimate: the f32 divider's (PG060 builds the "
        "square root as the same one-bit-per-stage digit recurrence over the significand, without DSP)",
    ),
    ("sqrt", 64): (
        29, 6.07, 0, 3676, 4767,
        f"latency: Vitis HLS core dsqrt_64ns_64ns_64_30_no_dsp_1 'IMPL fabric LATENCY 29' ({_CORE_SOURCE} "
        "kp_502_7); DSP 0 (no_dsp core); delay, LUT/FF estimate: the f64 divider's (same recurrence)",
    ),
    ("exp", 32): (
        8, 7.68, 7, 350, 420,
        "latency/delay/DSP: ScaleHLS config.json (UIUC-ChenLab/scalehls), Vivado HLS operator table at "
        "100MHz: fexp 8 cycles, fexp_delay 7.68 ns, dsp_usage fexp 7; "
        "LUT/FF estimate from the exponential's datapath (PG060): float-to-fixed barrel shift 32 x 3 "
        "LUT + two 32-bit adders 64 + 2**7 x 27-bit table as LUT ROM 54 + rounding and packing 40 + "
        "exponent logic 20 + pipeline control ~75 = 350 LUT; FF ~ 52 bits x 8 stages = 420",
    ),
    ("exp", 64): (
        17, 7.68, 28, 780, 930,
        "latency: Vitis HLS core dexp_64ns_64ns_64_18_full_dsp_1 'IMPL fulldsp LATENCY 17' "
        f"({_CORE_SOURCE} GBM, master_fix); delay: the f32 core's; DSP/LUT/FF estimate: the f32 "
        "core's 7 DSP x 4 (a 53-bit product tiles into 4x the DSP48E1 of a 24-bit one, as the "
        "f64/f32 multipliers' 12/3), LUT/FF x 53/24 (datapath width)",
    ),
    ("log", 32): (
        12, 7.68, 7, 350, 420,
        f"latency: Vitis HLS core flog_32ns_32ns_32_13_full_dsp_1 'IMPL fulldsp LATENCY 12' ({_CORE_SOURCE} "
        "latency_encoding); delay/DSP/LUT/FF estimate: the f32 exponential's (PG060's logarithm "
        "uses a table, a range-reduction product and a polynomial of the same widths)",
    ),
    ("log", 64): (
        23, 7.68, 28, 780, 930,
        "latency estimate: the f32 core's 12 x 17/9 (the dexp/fexp latency ratio of the Vitis HLS "
        "cores above), rounded up; delay/DSP/LUT/FF: the f64 exponential's (same reasoning as f32)",
    ),
}
# fmt: on
# hls_math functions Vitis HLS synthesises from C++: the cores and operators each one is
# estimated to use, in the order of its critical path (a value's latency is their sum)
_MATH_PARTS: dict[str, tuple[str, ...]] = {
    "expm1": ("exp", "fadd"),
    "log1p": ("fadd", "log"),
    "log2": ("log", "fmul"),
    "log10": ("log", "fmul"),
    "sinh": ("exp", "fdiv", "fadd", "fmul"),
    "cosh": ("exp", "fdiv", "fadd", "fmul"),
    "tanh": ("fmul", "exp", "fadd", "fdiv", "fadd"),
    "pow": ("log", "fmul", "exp"),
    "hypot": ("fmul", "fadd", "sqrt"),
    "fmod": ("fdiv", "trunc", "fmul", "fadd"),
    "tan": ("cordic", "fdiv"),
    "asin": ("fmul", "fadd", "sqrt", "cordic"),
    "acos": ("fmul", "fadd", "sqrt", "cordic"),
    "atan2": ("cordic", "fcmp"),
}
_CORDIC_RULE = (
    "estimate, assuming a CORDIC (no published figure for hls_math's trigonometric functions): "
    "n = significand bits + 2 fully pipelined iterations (26 for f32, 55 for f64), "
    "each three (n + 2)-bit add/subtracts on the carry chain, one LUT and one FF per bit (UG474): "
    "LUT = FF = 3n(n + 2); plus the range reduction (a multiply by 2/pi, the f-multiplier's DSP and "
    "latency) and the float-to-fixed and fixed-to-float conversions (their latency)"
)
_ROUNDING_RULE = (
    "estimate: the exponent decides which significand bits are fraction: an exponent compare (exponent "
    "bits / 2 LUT), a mask decoder and the masking (one LUT per significand bit), the increment of "
    "floor/ceil/rint on the carry chain (one LUT per significand bit), registered once (UG474)"
)


def math_cost(fn: str, bits: int, family: str, clock_mhz: float) -> OpCost:
    """A Math function (`partition.ir.MATH_FUNCS`) on `bits`-bit floats (Vitis HLS path only)."""
    check_family(family)
    if fn == "copysign":
        return combinational(
            fn, bits, family, 0.0, 0, "the sign bit of the second operand: wiring only (IEEE 754 layout)"
        )
    if fn in ("floor", "ceil", "trunc", "rint"):
        mant, exp = (24, 8) if bits == 32 else (53, 11)
        lut_ns, lut_src = lut_level(family)
        lut = exp // 2 + 2 * mant + (0 if fn == "trunc" else mant)
        return OpCost(
            fn,
            bits,
            family,
            2 * lut_ns,
            1,
            0.0,
            1,
            lut,
            bits,
            0,
            f"{_ROUNDING_RULE}; delay two LUT levels ({lut_src})",
        )
    if fn in ("sin", "cos", "atan") or fn == "cordic":
        return _cordic(fn, bits, family, clock_mhz)
    if (fn, bits) in _MATH_CORES:
        lat100, ns, dsp, lut, ff, src = _MATH_CORES[(fn, bits)]
        if family == "xczu":
            ratio = _XCZU_CORES[("fdiv", 32)][0] / _FLOAT_XC7[("fdiv", 32)][0]
            lat100 = max(1, math.ceil(lat100 * ratio))
            src += f"; xczu: latency derived: x {ratio:.3f} (the ZU+/xc7 ratio of the f32 divider cores)"
        lat = _scale_latency(lat100, clock_mhz)
        return OpCost(
            fn,
            bits,
            family,
            ns,
            lat,
            0.0,
            1,
            lut,
            ff,
            dsp,
            f"{src}; at {clock_mhz:g} MHz: {_FLOAT_CLOCK_RULE}",
        )
    if fn not in _MATH_PARTS:
        raise ValueError(f"no cost entry for the math function {fn}")
    parts = [_part(p, bits, family, clock_mhz) for p in _MATH_PARTS[fn]]
    return OpCost(
        fn, bits, family, parts[0].delay_ns, sum(p.latency for p in parts), 0.0, 1,
        sum(p.lut for p in parts), sum(p.ff for p in parts), sum(p.dsp for p in parts),
        f"estimate: hls_math's {fn} as {' -> '.join(_MATH_PARTS[fn])} in sequence (no published figure): "
        "latency the sum, resources the sum of: " + " | ".join(f"{p.op}: {p.source}" for p in parts),
    )  # fmt: skip


def _part(name: str, bits: int, family: str, clock_mhz: float) -> OpCost:
    if name in ("fadd", "fmul", "fdiv", "fcmp"):
        return float_cost(name, bits, family, clock_mhz)
    return math_cost(name, bits, family, clock_mhz)


def _cordic(fn: str, bits: int, family: str, clock_mhz: float) -> OpCost:
    n = (24 if bits == 32 else 53) + 2
    mul = float_cost("fmul", bits, family, clock_mhz)
    to_fixed = convert_cost("ftoi", bits, bits, family, clock_mhz)
    to_float = convert_cost("itof", bits, bits, family, clock_mhz)
    lut = ff = 3 * n * (n + 2)
    lat = n + mul.latency + to_fixed.latency + to_float.latency
    return OpCost(
        fn, bits, family, mul.delay_ns, lat, 0.0, 1, lut + mul.lut + to_fixed.lut + to_float.lut,
        ff + mul.ff + to_fixed.ff + to_float.ff, mul.dsp,
        f"{_CORDIC_RULE}: n = {n}, {lut} LUT and FF; multiply: {mul.source}; conversions: {to_fixed.source}",
    )  # fmt: skip
