"""Integer operator tables: combinational operators, multipliers and dividers.

Each function returns the `OpCost` of one operator instance by kind and width: the
combinational ALU operators (`int_cost`), multipliers in LUTs, on one DSP slice or split
across several with the stages the clock needs (`mul_cost`, `dsp_count`), and dividers
(wiring by a power of two, else sequential: `div_cost`). Delays come from the Bambu
characterisations (`device`), resources from the architecture rules stated per entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from partition.estimate.tables.device import (
    BAMBU,
    OpCost,
    budget_ns,
    char_width,
    check_family,
    combinational,
    delay,
    log2ceil,
    lut_level,
)

# DSP multipliers: characterised width -> [(pipeline stages, stage period ns)], cell
# ui_mult_expr_FU_<n>_<n>_<n>_<stages> (cycles = stages + 1 in Bambu's notation).
# fmt: off
_MUL_STAGES: dict[str, dict[int, list[tuple[int, float]]]] = {
    "xc7": {
        16: [(0, 5.518), (1, 3.005), (2, 2.927)],
        32: [(0, 8.406), (1, 6.452), (2, 5.608), (3, 5.608), (4, 3.813), (5, 3.813), (6, 1.88), (7, 1.88)],
        64: [(0, 12.141), (1, 9.825), (2, 9.092), (3, 9.092), (4, 5.582), (5, 3.813), (6, 3.813),
             (17, 3.813)],
    },
    "xczu": {
        16: [(0, 2.38), (1, 1.452), (2, 1.543)],
        32: [(0, 3.361), (1, 2.603), (2, 2.304), (3, 2.304), (4, 1.647), (5, 1.646), (6, 0.932), (7, 0.952)],
        64: [(0, 4.933), (1, 4.011), (2, 3.704), (3, 3.775), (4, 2.354), (5, 1.646), (6, 1.747),
             (7, 1.671), (17, 2.437)],
    },
}
# fmt: on

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


_ADD_RULE = (
    "n-bit add/sub = n LUT + ceil(n/4) CARRY4 (UG474, carry logic: one LUT per bit drives the carry "
    "chain's propagate input)"
)


def _eq_luts(n: int) -> int:
    k = math.ceil(n / 3)
    return k + (math.ceil(k / 6) if k > 1 else 0)


# operators whose delay Bambu characterised: delay class, LUTs of n bits, the LUT rule
_CHARACTERISED: dict[str, tuple[str, Callable[[int], int], str]] = {
    "add": ("add", lambda n: n, _ADD_RULE),
    "sub": ("add", lambda n: n, _ADD_RULE),
    "neg": ("neg", lambda n: n, "0 - x on the carry chain, n LUT (UG474)"),
    "cmp": (
        "cmp",
        lambda n: max(1, math.ceil(n / 2)),
        "ceil(n/2), a LUT6 compares two bit pairs into the carry chain (UG474 'wide comparators'); "
        "cross-check: the same Bambu cell reports 19 LUT for 32 bits incl. harness",
    ),
    "eq": (
        "eq",
        _eq_luts,
        "ceil(n/3) LUT6 each comparing three bit pairs, reduced by 6-input ANDs (UG474 LUT6)",
    ),
}


def int_cost(op: str, bits: int, family: str) -> OpCost:
    """Cost of a combinational integer operator of `bits` bits (latency 0).

    op: add/sub, neg, cmp (lt/le/gt/ge), eq (eq/ne), and/or/xor, invert (bitwise
    not), not/logic (one boolean LUT), select, min/max, abs, shift_var (barrel
    shifter with numpy's out-of-range rule), shift_const and wire (casts, constant
    shifts: wiring only).
    """
    check_family(family)
    n = max(1, bits)
    lut_ns, lut_src = lut_level(family)
    if op in _CHARACTERISED:
        cls, luts, rule = _CHARACTERISED[op]
        ns, src = delay(family, cls, n)
        return combinational(op, n, family, ns, luts(n), f"delay: {src}; LUT: {rule}")
    if op in ("and", "or", "xor", "invert", "select"):
        return combinational(
            op, n, family, lut_ns, n,
            f"delay: one LUT level, {lut_src}; LUT: one LUT per bit (UG474: a LUT6 implements any "
            "function of up to 6 inputs; a 2:1 select is a LUT3)",
        )  # fmt: skip
    if op in ("not", "logic"):
        return combinational(
            op, 1, family, lut_ns, 1, f"delay: one LUT level, {lut_src}; LUT: 1 (UG474 LUT6)"
        )
    if op in ("min", "max", "abs"):  # a compare (a negation) and a select on its result
        first = int_cost("neg" if op == "abs" else "cmp", n, family)
        s = int_cost("select", n, family)
        what = "negate + select on the sign bit" if op == "abs" else "compare + select"
        return combinational(
            op, n, family, first.delay_ns + s.delay_ns, first.lut + s.lut,
            f"derived: {what}; " + first.source + " | " + s.source,
        )  # fmt: skip
    if op == "shift_var":
        ns, src = delay(family, "shift_var", n)
        levels = math.ceil(log2ceil(n) / 2)
        lut = n * levels + n
        return combinational(
            op, n, family, ns + lut_ns, lut,
            f"delay: barrel shifter {src} + one LUT level for numpy's out-of-range result ({lut_src}); "
            "LUT: n x ceil(log2(n)/2) (log4 levels of 4:1 muxes, a LUT6 is a 4:1 mux, UG474; Bambu "
            "reports 94 LUT for 32 bits) + n for the out-of-range select",
        )  # fmt: skip
    if op in ("shift_const", "wire"):
        return combinational(
            op, n, family, 0.0, 0,
            "wiring only: constant shifts, sign/zero extension and truncation select bits (no logic)",
        )  # fmt: skip
    raise ValueError(f"unknown integer operator {op!r}")


def dsp_count(a_bits: int, b_bits: int, out_bits: int, family: str) -> int:
    """DSP slices for a signed a_bits x b_bits multiply truncated to out_bits bits.

    Fits one slice when the operands fit the ports (either way round); otherwise both
    operands are split into 17-bit unsigned digits and only the partial products
    that reach below `out_bits` are built.
    """
    check_family(family)
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
    check_family(family)
    if const is not None:
        mag = abs(int(const)) % (1 << out_bits)
        ones = bin(mag).count("1")
        if ones <= 1:
            return combinational(
                "mul", out_bits, family, 0.0, 0,
                "multiply by 0 or a power of two: a constant shift, wiring only",
            )  # fmt: skip
        if ones <= LUT_MUL_MAX_CONST_BITS:
            add = int_cost("add", out_bits, family)
            k = ones - 1
            return combinational(
                "mul", out_bits, family, add.delay_ns * k, add.lut * k,
                f"constant with {ones} set bits -> {k} shift-and-add adders (microarchitecture: constant "
                f"multipliers with <= {LUT_MUL_MAX_CONST_BITS} set bits map to LUTs); " + add.source,
            )  # fmt: skip
    if a_bits <= LUT_MUL_MAX_BITS and b_bits <= LUT_MUL_MAX_BITS:
        ns, src = delay(family, "mul_lut8", 8)
        if a_bits + b_bits >= DSP_MIN_PRODUCT_BITS:
            # scheduled as the narrow combinational multiply it is (latency 0), but synthesis
            # maps it onto one DSP slice (no input/output registers used), not LUTs
            return combinational(
                "mul", out_bits, family, ns, 0,
                f"narrow multiply (operands <= {LUT_MUL_MAX_BITS} bits): combinational, delay {src}; "
                f"a product of {DSP_MIN_PRODUCT_BITS} bits or more goes on one DSP48 (UG901 default DSP "
                "inference; yosys synth_xilinx mul2dsp, checked)",
                dsp=1,
            )  # fmt: skip
        char_lut = 40 if family == "xc7" else 38
        lut = math.ceil(char_lut * a_bits * b_bits / 64)
        return combinational(
            "mul", out_bits, family, ns, lut,
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
        f"budget, {BAMBU[family]}, cell {cell}: {ns} ns; LUT derived: partial products above the "
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
    check_family(family)
    n = max(1, bits)
    if const is not None and const > 0 and (const & (const - 1)) == 0:
        return combinational(
            "div", n, family, 0.0, 0,
            "division/modulo by a power-of-two constant: arithmetic shift right (floor) or bit mask "
            "(floor modulo) in two's complement, wiring only",
        )  # fmt: skip
    add = int_cost("add", n, family)
    latency = n + 2
    lut = 2 * n + (4 * n if signed else 0)
    ff = 3 * n + log2ceil(latency + 1)
    return OpCost(
        "div", n, family, add.delay_ns, latency, 0.0, latency, lut, ff, 0,
        "microarchitecture: sequential radix-2 divider, latency bits + 2, not pipelined (ii = latency); "
        "LUT derived: n-bit subtractor + n-bit restore mux per step"
        + (", plus operand negations (2n) and the floor-rounding fix-up add and select (2n)" if signed else "")
        + " (UG474 adder rule); FF derived: remainder, quotient and divisor registers (3n) + step "
        "counter; stage delay " + add.source,
    )  # fmt: skip
