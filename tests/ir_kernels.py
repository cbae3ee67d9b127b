"""Hand-built integer kernels for the RTL backend, with vectors from the reference interpreter.

The integer kernels of tests/test_hls_codegen.py (control flow, 64-bit loop bounds, bool
logic) are reused as they are, every operation on every dtype with fewer elements; the float ones have integer
counterparts here (casts, arrays, scalars), plus kernels aimed at the microarchitecture:
II = 1 pipelines over packed narrow elements, accumulator and array recurrences, a
data-dependent index, 64-bit elements, sequential dividers and latency units inside loop
recurrences, and sizes of one and odd numbers of elements.
"""

from __future__ import annotations

import numpy as np
from test_hls_codegen import (
    CMPS,
    INT_BIN,
    INT_UN,
    INTS,
    SHIFT_DTYPES,
    arr,
    b,
    c,
    cast,
    int_pairs,
    int_values,
    k_bigloop,
    k_boolops,
    k_control,
    ld,
    loop,
    scal,
    shift_values,
    st,
    u,
    v,
)

from partition import ir
from partition.dtypes import DTYPES as D
from partition.vectors import VectorSet

INT_ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def k_intops(rng: np.random.Generator, n: int = 32) -> tuple[ir.Kernel, list[VectorSet]]:
    """tests/test_hls_codegen.py's k_intops with `n` elements (its edge pairs need 28):
    every integer operation on every integer dtype, shift amounts of assorted dtypes. The
    simulated cycles grow with n (the floor divisions run at II = bits + 2)."""
    params, body = [], []
    for t, dt in enumerate(INTS):
        sdt = SHIFT_DTYPES[t]
        x, y, s = f"x_{dt}", f"y_{dt}", f"s_{dt}"
        params += [arr(x, dt, (n,)), arr(y, dt, (n,)), arr(s, sdt, (n,))]
        params += [
            arr(f"r_{dt}", dt, (len(INT_BIN) + 2 + len(INT_UN), n), "out"),
            arr(f"c_{dt}", "bool", (6, n), "out"),
        ]
        j = v("j", "int32")
        xe, ye, se = ld(x, dt, j), ld(y, dt, j), ld(s, sdt, j)
        stmts = [st(f"r_{dt}", (c(row, "int32"), j), b(op, xe, ye)) for row, op in enumerate(INT_BIN)]
        row = len(INT_BIN)
        stmts.append(st(f"r_{dt}", (c(row, "int32"), j), ir.Bin("shl", xe, se, D[dt])))
        stmts.append(st(f"r_{dt}", (c(row + 1, "int32"), j), ir.Bin("shr", xe, se, D[dt])))
        for k, op in enumerate(INT_UN):
            stmts.append(st(f"r_{dt}", (c(row + 2 + k, "int32"), j), u(op, xe)))
        for k, op in enumerate(CMPS):
            stmts.append(st(f"c_{dt}", (c(k, "int32"), j), ir.Cmp(op, xe, ye)))
        body.append(loop("j", c(0, "int32"), c(n, "int32"), 1, stmts, n, f"ops_{dt}"))
    kernel = ir.Kernel("intops", params, {"j": D["int32"]}, [], body, source_file="ops.py", source_line=1)

    def inputs(seed: int) -> dict:
        r = np.random.default_rng(seed)
        out = {}
        for t, dt in enumerate(INTS):
            xs, ys = int_pairs(D[dt], n, r)
            if seed % 2:  # second vector: fully random operands
                xs, ys = int_values(D[dt], n, r)[::-1].copy(), int_values(D[dt], n, r)[::-1].copy()
            out[f"x_{dt}"], out[f"y_{dt}"] = xs, ys
            out[f"s_{dt}"] = shift_values(D[dt], D[SHIFT_DTYPES[t]], n, r)
        return out

    seed = int(rng.integers(1 << 30))
    return kernel, [
        VectorSet.from_interpreter(kernel, inputs(2 * seed), "edge pairs"),
        VectorSet.from_interpreter(kernel, inputs(2 * seed + 1), "random"),
    ]


def k_int_casts(rng: np.random.Generator) -> tuple[ir.Kernel, list[VectorSet]]:
    """Every integer/bool dtype to every other: wraps, sign/zero extension, -> bool."""
    n = 24
    params = [arr(f"v_{s}", s, (n,)) for s in INT_ALL] + [
        arr(f"o_{d}", d, (len(INT_ALL), n), "out") for d in INT_ALL
    ]
    j = v("j", "int32")
    stmts = [
        st(f"o_{d}", (c(r, "int32"), j), cast(ld(f"v_{s}", s, j), d))
        for d in INT_ALL
        for r, s in enumerate(INT_ALL)
    ]
    body = [loop("j", c(0, "int32"), c(n, "int32"), 1, stmts, n, "casts")]
    kernel = ir.Kernel("int_casts", params, {"j": D["int32"]}, [], body, source_file="ops.py", source_line=40)
    vecs = []
    for label in ("edges", "random"):
        inp = {}
        for s in INT_ALL:
            if s == "bool":
                inp[f"v_{s}"] = (np.arange(n) % 3 == 0).astype(np.bool_)
            else:
                inp[f"v_{s}"] = int_values(D[s], n, rng)
        if label == "random":
            inp = {k: rng.permutation(a) for k, a in inp.items()}
        vecs.append(VectorSet.from_interpreter(kernel, inp, label))
    return kernel, vecs


def k_int_arrays(rng: np.random.Generator) -> tuple[ir.Kernel, list[VectorSet]]:
    """2-D arrays, an inout int16 array, a ROM, zero-filled and initialised written locals,
    an uninitialised (np.empty) local, a select, a uint8 buffer with odd size, an int return."""
    i32 = "int32"
    i, j = v("i", i32), v("j", i32)
    body = [
        loop("i", c(0, i32), c(3, i32), 1, [
            loop("j", c(0, i32), c(5, i32), 1, [
                st("a", (i, j), b("add", b("mul", ld("a", "int16", i, j), c(3, "int16")),
                                  ld("rom", "int16", b("mod", b("add", i, j), c(4, i32)))))
            ], 5, "L1_1")
        ], 3, "L1"),
        loop("i", c(0, i32), c(7, i32), 1, [
            st("tmp", (i,), ir.Select(ld("flags", "bool", i), b("floordiv", ld("bb", "int64", i), c(3, "int64")),
                                      u("neg", ld("bb", "int64", i)), D["int64"]))
        ], 7, "L2"),
        loop("i", c(0, i32), c(2, i32), 1, [
            loop("j", c(0, i32), c(3, i32), 1, [
                st("zbuf", (i, j), b("add", ld("zbuf", i32, i, j), b("add", b("mul", i, c(3, i32)), j))),
                st("out", (i, j), cast(b("sub", b("mul", ld("zbuf", i32, i, j), c(1000, i32)), c(7, i32)), "uint16")),
            ], 3, "L3_1")
        ], 2, "L3"),
        st("ibuf", (c(1, i32),), b("add", ld("ibuf", "int8", c(0, i32)), ld("ibuf", "int8", c(2, i32)))),
        loop("i", c(0, i32), c(7, i32), 1, [
            st("px", (i,), cast(b("add", cast(ld("px", "uint8", i), i32), cast(ld("ibuf", "int8", c(1, i32)), i32)), "uint8"))
        ], 7, "L5"),
        ir.Assign("s", c(0, "int64")),
        loop("i", c(0, i32), c(7, i32), 1, [ir.Assign("s", b("add", v("s", "int64"), ld("tmp", "int64", i)))], 7, "L4"),
        ir.Assign("s", b("add", v("s", "int64"), cast(ld("ibuf", "int8", c(1, i32)), "int64"))),
        ir.Return(v("s", "int64")),
    ]  # fmt: skip
    params = [arr("a", "int16", (3, 5), "inout"), arr("bb", "int64", (7,)), arr("flags", "bool", (7,))]
    params += [arr("out", "uint16", (2, 3), "out"), arr("px", "uint8", (7,), "inout")]
    locals_ = [
        ir.LocalArray("rom", D["int16"], (4,), [1, -2, 3, -4]),
        ir.LocalArray("zbuf", D[i32], (2, 3), [0] * 6),
        ir.LocalArray("ibuf", D["int8"], (3,), [5, 15, -25]),
        ir.LocalArray("tmp", D["int64"], (7,), None),
    ]
    scalars = {"i": D[i32], "j": D[i32], "s": D["int64"]}
    kernel = ir.Kernel(
        "int_arrays", params, scalars, locals_, body, ret=D["int64"], source_file="app.py", source_line=30
    )
    vecs = []
    for k in range(2):
        inp = {
            "a": rng.integers(-(2**15), 2**15, size=(3, 5)).astype(np.int16),
            "bb": rng.integers(-(2**63), 2**63 - 1, size=7, dtype=np.int64),
            "flags": rng.integers(0, 2, size=7).astype(np.bool_),
            "px": rng.integers(0, 256, size=7).astype(np.uint8),
        }
        vecs.append(VectorSet.from_interpreter(kernel, inp, f"random {k}"))
    return kernel, vecs


def k_int_scalars(rng: np.random.Generator) -> tuple[ir.Kernel, list[VectorSet]]:
    """No arrays at all: scalars in (64-bit, bool, uint8), a select, a 16-bit return."""
    e = ir.Select(
        v("flag", "bool"),
        cast(b("add", v("a", "int64"), cast(v("b", "uint8"), "int64")), "int16"),
        b("mul", v("h", "int16"), c(-3, "int16")),
        D["int16"],
    )
    params = [scal("a", "int64"), scal("b", "uint8"), scal("h", "int16"), scal("flag", "bool")]
    kernel = ir.Kernel("int_scalars", params, {}, [], [ir.Return(e)], ret=D["int16"], source_file="app.py")
    cases = [(2**62 + 7, 255, 5, True), (-5, 3, -32768, False), (-(2**63), 0, 32767, True), (7, 9, -1, False)]
    vecs = [
        VectorSet.from_interpreter(kernel, {"a": a, "b": bb, "h": h, "flag": fl}, f"case {k}")
        for k, (a, bb, h, fl) in enumerate(cases)
    ]
    return kernel, vecs


def k_vadd(rng: np.random.Generator, n: int = 64, dt: str = "int8") -> tuple[ir.Kernel, list[VectorSet]]:
    """c[i] = a[i] + b[i]: a pipelined loop without recurrence (II = 1) over packed elements."""
    i = v("i", "int32")
    body = [
        loop(
            "i",
            c(0, "int32"),
            c(n, "int32"),
            1,
            [st("c", (i,), b("add", ld("a", dt, i), ld("b", dt, i)))],
            n,
            "L1",
        )
    ]
    params = [arr("a", dt, (n,)), arr("b", dt, (n,)), arr("c", dt, (n,), "out")]
    kernel = ir.Kernel(
        f"vadd_{dt}_{n}", params, {"i": D["int32"]}, [], body, source_file="vadd.py", source_line=1
    )
    vecs = []
    for k in range(2):
        x, y = (
            int_pairs(D[dt], n, rng)
            if n >= 30
            else (int_values(D[dt], n, rng), int_values(D[dt], n, rng)[::-1].copy())
        )
        vecs.append(VectorSet.from_interpreter(kernel, {"a": x, "b": y}, f"vector {k}"))
    return kernel, vecs


def k_dot(rng: np.random.Generator, n: int = 33) -> tuple[ir.Kernel, list[VectorSet]]:
    """int16 dot product into an int32 accumulator: a one-add recurrence, II = 1."""
    i, acc = v("i", "int32"), v("acc", "int32")
    prod = b("mul", cast(ld("a", "int16", i), "int32"), cast(ld("b", "int16", i), "int32"))
    body = [
        ir.Assign("acc", c(0, "int32")),
        loop("i", c(0, "int32"), c(n, "int32"), 1, [ir.Assign("acc", b("add", acc, prod))], n, "L1"),
        ir.Return(acc),
    ]
    params = [arr("a", "int16", (n,)), arr("b", "int16", (n,))]
    kernel = ir.Kernel(
        "dot", params, {"i": D["int32"], "acc": D["int32"]}, [], body, ret=D["int32"], source_file="dot.py"
    )
    vecs = [
        VectorSet.from_interpreter(
            kernel,
            {"a": int_values(D["int16"], n, rng), "b": int_values(D["int16"], n, rng)[::-1].copy()},
            f"v{k}",
        )
        for k in range(2)
    ]
    return kernel, vecs


def k_recur(rng: np.random.Generator) -> tuple[ir.Kernel, list[VectorSet]]:
    """Recurrences through registered units and arrays: an int64 product chain (a 4-stage
    multiplier feeding itself: forwarded), a floor-division chain (the sequential divider
    feeding itself), a prefix sum through the array (RAW, II 2), a histogram (data-dependent
    index), and a uint64 buffer of 64-bit words."""
    i = v("i", "int32")
    i64, u64 = "int64", "uint64"
    body = [
        ir.Assign("p", c(1, i64)),
        loop("i", c(0, "int32"), c(9, "int32"), 1, [ir.Assign("p", b("mul", v("p", i64), ld("m", i64, i)))], 9, "Lmul"),
        st("res", (c(0, "int32"),), v("p", i64)),
        ir.Assign("q", v("q0", "int32")),
        loop("i", c(0, "int32"), c(5, "int32"), 1, [ir.Assign("q", b("floordiv", v("q", "int32"), v("d", "int32")))], 5, "Ldiv"),
        st("res", (c(1, "int32"),), cast(v("q", "int32"), i64)),
        ir.Assign("r", v("q0", "int32")),
        loop("i", c(0, "int32"), c(4, "int32"), 1, [ir.Assign("r", b("mod", b("add", v("r", "int32"), c(1000003, "int32")), v("d", "int32")))], 4, "Lmod"),
        st("res", (c(2, "int32"),), cast(v("r", "int32"), i64)),
        loop("i", c(1, "int32"), c(20, "int32"), 1, [
            st("ps", (i,), b("add", ld("ps", "int16", b("sub", i, c(1, "int32"))), ld("ps", "int16", i)))
        ], 19, "Lpre"),
        loop("i", c(0, "int32"), c(40, "int32"), 1, [
            st("h", (cast(b("and", ld("x", "uint8", i), c(15, "uint8")), "int32"),),
               b("add", ld("h", "int32", cast(b("and", ld("x", "uint8", i), c(15, "uint8")), "int32")), c(1, "int32")))
        ], 40, "Lhist"),
        loop("i", c(0, "int32"), c(6, "int32"), 1, [
            st("w", (i,), b("xor", b("shl", ld("w", u64, i), c(3, u64)), cast(ld("m", i64, i), u64)))
        ], 6, "Lw"),
    ]  # fmt: skip
    params = [
        arr("m", i64, (9,)),
        scal("q0", "int32"),
        scal("d", "int32"),
        arr("ps", "int16", (20,), "inout"),
    ]
    params += [arr("x", "uint8", (40,)), arr("h", "int32", (16,), "inout"), arr("w", u64, (6,), "inout")]
    params += [arr("res", i64, (3,), "out")]
    scalars = {"i": D["int32"], "p": D[i64], "q": D["int32"], "r": D["int32"]}
    kernel = ir.Kernel("recur", params, scalars, [], body, source_file="recur.py", source_line=1)
    vecs = []
    for k, (q0, d) in enumerate([(-(2**31), -1), (987654321, -7), (-1000, 0), (123, 5)]):
        inp = {
            "m": rng.integers(-(2**63), 2**63 - 1, size=9, dtype=np.int64),
            "q0": q0,
            "d": d,
            "ps": rng.integers(-3000, 3000, size=20).astype(np.int16),
            "x": rng.integers(0, 256, size=40).astype(np.uint8),
            "h": np.zeros(16, np.int32) if k % 2 else rng.integers(0, 9, size=16).astype(np.int32),
            "w": rng.integers(0, 2**64 - 1, size=6, dtype=np.uint64),
        }
        vecs.append(VectorSet.from_interpreter(kernel, inp, f"q0={q0} d={d}"))
    return kernel, vecs


def k_divs(rng: np.random.Generator) -> tuple[ir.Kernel, list[VectorSet]]:
    """Division and modulo by constants: powers of two (shifts/masks, floor semantics),
    others and negative ones (the divider), zero."""
    n = 24
    i = v("i", "int32")
    consts = [1, 2, 8, 64, 3, 7, -4, -1, 0]
    stmts = []
    for r, k in enumerate(consts):
        for col, op in enumerate(("floordiv", "mod")):
            stmts.append(st("o", (c(2 * r + col, "int32"), i), b(op, ld("x", "int8", i), c(k, "int8"))))
            stmts.append(
                st("ou", (c(2 * r + col, "int32"), i), b(op, ld("y", "uint16", i), c(abs(k), "uint16")))
            )
    body = [loop("i", c(0, "int32"), c(n, "int32"), 1, stmts, n, "L1")]
    params = [arr("x", "int8", (n,)), arr("y", "uint16", (n,)), arr("o", "int8", (2 * len(consts), n), "out")]
    params.append(arr("ou", "uint16", (2 * len(consts), n), "out"))
    kernel = ir.Kernel("divs", params, {"i": D["int32"]}, [], body, source_file="divs.py")
    vecs = [
        VectorSet.from_interpreter(
            kernel, {"x": int_values(D["int8"], n, rng), "y": int_values(D["uint16"], n, rng)}, "edges"
        )
    ]
    return kernel, vecs


CASES = {
    "intops": k_intops,
    "int_casts": k_int_casts,
    "boolops": k_boolops,
    "control": k_control,
    "bigloop": k_bigloop,
    "int_arrays": k_int_arrays,
    "int_scalars": k_int_scalars,
    "vadd_int8": lambda rng: k_vadd(rng, 64, "int8"),
    "vadd_int16_7": lambda rng: k_vadd(rng, 7, "int16"),
    "vadd_int32_1": lambda rng: k_vadd(rng, 1, "int32"),
    "dot": k_dot,
    "recur": k_recur,
    "divs": k_divs,
}


def intops_slices(rng: np.random.Generator) -> dict[str, tuple[ir.Kernel, list[VectorSet]]]:
    """`intops` cut into one kernel per dtype (the same loops and vectors), for synthesis:
    yosys takes minutes on the whole kernel, seconds on each slice."""
    kernel, vecs = k_intops(rng)
    out = {}
    for t, loop_ in enumerate(kernel.body):
        params = kernel.params[5 * t : 5 * t + 5]
        names = {p.name for p in params}
        dt = params[0].dtype.name
        k = ir.Kernel(
            f"intops_{dt}", params, dict(kernel.scalars), [], [loop_], source_file="ops.py", source_line=1
        )
        sliced = [
            VectorSet.from_interpreter(k, {n: a for n, a in vs.inputs.items() if n in names}, vs.label)
            for vs in vecs
        ]
        out[k.name] = (k, sliced)
    return out
