"""Scalar expressions of a generated kernel: leaves (constants, array loads with in-bounds
indices, parameters, variables, loop variables), operations typed by probing numpy,
conditions, and calls of new helper functions.
"""

from __future__ import annotations

import operator

import numpy as np

from partition.fuzz.builder import MAX_DEPTH, KernelBuilder
from partition.fuzz.parts import Arr
from partition.fuzz.typed import (
    BIN_OPS,
    CMP_OPS,
    FLOAT_DTS,
    INT_DTS,
    PYINT_LIMIT,
    Ex,
    int_interval,
    np_ctor,
    np_sample,
    npval,
    pybool,
    pyfloat,
    pyint,
    quiet,
    same_type,
)


class ExprGen(KernelBuilder):
    """Generates typed scalar expressions."""

    # ------------------------------------------------------------ leaves

    def const(self, like: Ex | None = None) -> Ex:
        """A constant; shaped to combine with `like` when given."""
        d = self.d
        if like is not None and like.dt in INT_DTS and d.chance(0.5):
            info = np.iinfo(like.dt)
            v = d.choice((0, 1, 2, 3, 7, int(info.max), int(info.min), -1, -3, 5, 100, -128, 255))
            if info.min <= v <= info.max:
                return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        r = d.int(0, 9)
        if r < 5:
            v = d.choice((0, 1, 2, 3, 5, 7, 9, 15, 16, 31, 100, 127, -1, -2, -3, -7, -8, -100))
            return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        if r < 7 and not (self.floats and d.chance(0.3)):
            dt = self.int_dt()
            info = np.iinfo(dt)
            v = d.choice((0, 1, 3, -1, -5, int(info.max), int(info.min), 42))
            v = v if info.min <= v <= info.max else 7
            return npval(f"{np_ctor(dt)}({v})", dt)
        if r < 8 and self.floats:
            v = d.choice((0.5, -1.25, 3.0, 0.1, -2.0, 1e3, 1e-3))
            if d.chance(0.3):
                dt = d.choice(FLOAT_DTS)
                return npval(f"{np_ctor(dt)}({v!r})", dt)
            return pyfloat(repr(v) if v >= 0 else f"({v!r})", v)
        if r < 9:
            b = d.chance(0.5)
            if d.chance(0.3):
                return Ex(f"np.bool_({b})", (np.bool_(b),))
            return Ex(str(b), (b,), int(b), int(b), True)
        return pyint("4", 4, 4, True)

    def index(self, n: int, dim_text: str) -> Ex:
        """An in-bounds index (possibly negative, as Python allows) of a dimension of size n."""
        d = self.d
        loops = [lp for lp in self.loops if lp.elem is None and lp.hi - lp.lo < 4 * n + 64]
        opts: list[tuple[str, int]] = [("const", 2), ("mod", 2)]
        fits = [lp for lp in loops if lp.lo >= 0 and lp.hi <= n - 1]
        if fits:
            opts += [("var", 10), ("rev", 3), ("neg", 1), ("clamp", 1)]
        if loops:
            opts += [("shift", 2)]
        data = self.data_int()
        if data is not None:
            opts += [("data", 1), ("dataneg", 1 if data.dt.startswith("int") else 0)]
        how = d.weighted(opts)
        if how == "const":
            v = d.int(-n, n - 1)
            return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        if how == "var":
            lp = d.choice(fits)
            return pyint(lp.var, lp.lo, lp.hi)
        if how == "rev":
            lp = d.choice(fits)
            return pyint(f"{dim_text} - 1 - {lp.var}", n - 1 - lp.hi, n - 1 - lp.lo)
        if how == "neg":
            lp = d.choice(fits)
            return pyint(f"-1 - {lp.var}", -1 - lp.hi, -1 - lp.lo)
        if how == "clamp":
            lp = d.choice(fits)
            return pyint(f"max({lp.var} - 1, 0)", max(lp.lo - 1, 0), max(lp.hi - 1, 0))
        if how == "mod" and loops:
            lp = d.choice(loops)
            return pyint(f"{lp.var} % {dim_text}", 0, n - 1)
        if how == "shift":
            lp = d.choice(loops)
            c = d.int(0, 3)
            return pyint(f"({lp.var} + {c}) % {dim_text}", 0, n - 1)
        if how in ("data", "dataneg"):
            assert data is not None
            e = f"{data.text} % {n}" if how == "data" else f"{data.text} % {n} - {n}"
            return Ex(f"({e})", (np_sample(data.dt),))
        return pyint(f"{dim_text} // 2", n // 2, n // 2)

    def data_int(self) -> Ex | None:
        """An integer element of an input array (for data-dependent indices)."""
        cands = [
            a for a in self.arrays.values() if a.kind == "ndarray" and a.dt in INT_DTS and not a.writable
        ]
        if not cands:
            return None
        a = self.d.choice(cands)
        return self.load(a, allow_data=False)

    def dim_text(self, a: Arr, k: int) -> str:
        """How the kernel spells the size of a's dimension k."""
        n = str(a.shape[k])
        if a.kind == "rom":
            return n
        if a.is_list:
            return f"len({a.name})" if k == 0 else self.d.choice((n, f"len({a.name}[0])"))
        if k == 0:
            return self.d.choice((n, f"{a.name}.shape[0]", f"len({a.name})"))
        return self.d.choice((n, f"{a.name}.shape[{k}]"))

    def load(self, a: Arr, allow_data: bool = True) -> Ex:
        saved = None
        if not allow_data:
            saved, self.arrays = self.arrays, {}
        try:
            idx = [self.index(n, self.dim_text(a, k)) for k, n in enumerate(a.shape)]
        finally:
            if saved is not None:
                self.arrays = saved
        if len(idx) == 1:
            text = f"{a.name}[{idx[0].text}]"
        elif a.is_list or self.d.chance(0.3):
            text = a.name + "".join(f"[{i.text}]" for i in idx)
        else:
            text = f"{a.name}[{', '.join(i.text for i in idx)}]"
        if a.is_list:
            assert a.elem is not None
            return Ex(text, a.elem.samples, a.elem.lo, a.elem.hi)
        return npval(text, a.dt)

    def leaf(self) -> Ex:
        d = self.d
        opts: list[tuple[str, int]] = [("const", 3)]
        if self.arrays:
            opts.append(("load", 8))
        if self.scalars:
            opts.append(("param", 3))
        if self.records:
            opts.append(("record", 3))
        if self.vars:
            opts.append(("var", 3))
        if self.loops:
            opts.append(("loop", 3))
        how = d.weighted(opts)
        if how == "load":
            return self.load(d.choice(list(self.arrays.values())))
        if how == "param":
            name = d.choice(list(self.scalars))
            return self.scalars[name]
        if how == "record":
            return self.record_leaf()
        if how == "var":
            v = self.vars[d.choice(list(self.vars))]
            return v.ex
        if how == "loop":
            lp = d.choice(self.loops)
            if lp.elem is not None:
                return lp.elem
            return pyint(lp.var, lp.lo, lp.hi)
        return self.const()

    # ------------------------------------------------------------ operations

    def binop(self, op: str, a: Ex, b: Ex) -> Ex | None:
        """`a op b` when every sample combination works and gives one type."""
        fn = BIN_OPS[op]
        results = [quiet(lambda x=x, y=y: fn(x, y)) for x in a.samples for y in b.samples]
        if any(r is None for r in results) or not same_type(results):
            return None
        r = results[0]
        text = f"({a.text} {op} {b.text})"
        if isinstance(r, (np.generic, np.ndarray)):  # first: np.float64 is a float too
            return Ex(text, (r,))
        if isinstance(r, bool):
            return Ex(text, (r, not r), 0, 1)
        if isinstance(r, int):
            iv = int_interval(op, (a.lo, a.hi), (b.lo, b.hi))
            if iv is None or max(abs(iv[0]), abs(iv[1])) > PYINT_LIMIT:
                return None
            return pyint(text, *iv)
        if isinstance(r, float):
            if op in ("/", "//", "%") and b.kind == "float" and not b.const:
                return None
            return pyfloat(text)
        return None

    def cmp(self, op: str, a: Ex, b: Ex) -> Ex | None:
        signed = {a.dt, b.dt} & {"int8", "int16", "int32", "int64"} or min(a.lo, b.lo) < 0
        pyint_var = (a.kind == "int" and not a.const) or (b.kind == "int" and not b.const)
        if "uint64" in (a.dt, b.dt) and (signed or pyint_var):
            return None  # numpy compares these through float64
        fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
              "==": operator.eq, "!=": operator.ne}[op]  # fmt: skip
        r = quiet(lambda: fn(a.s, b.s))
        if r is None:
            return None
        text = f"({a.text} {op} {b.text})"
        if isinstance(r, np.ndarray):
            return Ex(text, (r,))
        if isinstance(r, np.generic):
            return Ex(text, (np.bool_(True),))
        return pybool(text)

    def unop(self, op: str, a: Ex) -> Ex | None:
        if op == "abs":
            fn, text = abs, f"abs({a.text})"
        elif op == "-":
            fn, text = operator.neg, f"(-{a.text})"
        else:
            if a.kind == "bool":
                return None  # ~True is deprecated
            fn, text = operator.invert, f"(~{a.text})"
        results = [quiet(lambda x=x: fn(x)) for x in a.samples]
        if any(r is None for r in results) or not same_type(results):
            return None
        r = results[0]
        if isinstance(r, (np.generic, np.ndarray)):
            return Ex(text, (r,))
        if isinstance(r, bool):
            return pybool(text)
        if isinstance(r, int):
            vals = [fn(a.lo), fn(a.hi)]
            lo, hi = min(vals), max(vals)
            if op == "abs" and a.lo < 0 < a.hi:
                lo = 0
            return pyint(text, lo, hi)
        if isinstance(r, float):
            return pyfloat(text)
        return Ex(text, (r,))

    def cast(self, a: Ex, to: str) -> Ex | None:
        """np.<dt>(a), int(a), float(a) or bool(a), where numpy defines the result."""
        if to in ("py_int", "py_float", "py_bool"):
            if to == "py_int":
                if a.is_float:
                    return None
                if a.kind == "np" and a.dt in INT_DTS:
                    info = np.iinfo(a.dt)
                    if info.bits > 32:
                        return None
                    return pyint(f"int({a.text})", int(info.min), int(info.max))
                return pyint(f"int({a.text})", a.lo, a.hi)
            if to == "py_float":
                return pyfloat(f"float({a.text})")
            return pybool(f"bool({a.text})")
        if a.is_float and to not in FLOAT_DTS:
            return None
        if a.kind == "arr":
            return None
        if a.kind in ("int", "bool") and to in INT_DTS:
            info = np.iinfo(to)
            if not (info.min <= a.lo and a.hi <= info.max):
                return None
        return npval(f"{np_ctor(to)}({a.text})", to)

    def expr(self, depth: int = 0, want: str = "") -> Ex:
        """A scalar expression; `want` = "int" keeps floats out, "bool" asks for a condition."""
        if not self.floats and not want:
            want = "int"
        for _ in range(12):
            e = self._expr(depth, want)
            if e is None:
                continue
            if want == "int" and e.is_float:
                continue
            if want == "bool" and not e.is_boolean:
                continue
            return e
        if want == "bool":
            return pybool("True")
        return self.const()

    def _expr(self, depth: int, want: str) -> Ex | None:
        d = self.d
        if want == "bool":
            return self.condition(depth)
        if depth >= MAX_DEPTH or d.chance(0.25 + 0.2 * depth):
            e = self.leaf()
            return None if want == "int" and e.is_float else e
        r = d.weighted([("arith", 8), ("div", 3), ("bits", 3), ("shift", 3), ("un", 2), ("minmax", 2),
                        ("ternary", 2), ("cast", 3), ("pow", 1), ("cmp", 1),
                        ("helper", 1 if len(self.helper_names) < 2 and not self.cond_depth else 0),
                        ("math", 2 if self.floats else 0)])  # fmt: skip
        if r == "math":
            return self.math_call(depth, want)
        if r == "cmp":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.cmp(d.choice(CMP_OPS), a, b)
        if r == "arith":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.binop(d.choice(("+", "-", "*", "+", "-")), a, b)
        if r == "div":
            a = self.expr(depth + 1, want)
            b = self.divisor(depth + 1, want)
            op = d.choice(("//", "%", "/")) if self.floats else d.choice(("//", "%"))
            return self.binop(op, a, b)
        if r == "bits":
            a, b = self.expr(depth + 1, "int"), self.operand(depth + 1, "int")
            return self.binop(d.choice(("&", "|", "^")), a, b)
        if r == "shift":
            a = self.expr(depth + 1, "int")
            return self.binop(d.choice(("<<", ">>")), a, self.shift_amount(a))
        if r == "un":
            return self.unop(d.choice(("-", "~", "abs")), self.expr(depth + 1, want))
        if r == "minmax":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.minmax(d.choice(("min", "max")), a, b)
        if r == "ternary":
            c = self.condition(depth + 1)
            a = self.expr(depth + 1, want)
            b = self.like(a, depth + 1)
            if b is None:
                return None
            if a.kind == "int":
                return pyint(f"({a.text} if {c.text} else {b.text})", min(a.lo, b.lo), max(a.hi, b.hi))
            return Ex(f"({a.text} if {c.text} else {b.text})", a.samples)
        if r == "cast":
            a = self.expr(depth + 1, want)
            to = d.choice(
                (*INT_DTS, "py_int", "py_bool", "bool", *(("py_float", *FLOAT_DTS) if self.floats else ()))
            )
            return self.cast(a, to)
        if r == "pow":
            a = self.expr(depth + 1, want)
            if a.is_boolean:
                return None
            e = 2 if a.is_float else d.choice((2, 3))
            if a.kind == "int":
                vals = [a.lo**e, a.hi**e] + ([0] if a.lo <= 0 <= a.hi else [])
                if max(abs(v) for v in vals) > PYINT_LIMIT:
                    return None
                return pyint(f"({a.text} ** {e})", min(vals), max(vals))
            r2 = quiet(lambda: a.s**e)
            return None if r2 is None else Ex(f"({a.text} ** {e})", (r2,))
        return self.helper_call(depth + 1, want)

    # math calls whose value is the same in Python, the interpreter and C simulation: Python's
    # math (libm, as the C++'s <cmath>) and numpy's exact functions; arguments kept where
    # Python's call returns, in a form the frontend proves (abs, clamps)
    _MATH_FLOAT = (
        "math.sqrt(abs({x}))", "math.exp(-abs({x}))", "math.log(abs({x}) + 1.0)", "math.log1p(abs({x}))",
        "math.atan({x})", "math.tanh({x})", "math.sin(max(-1e6, min(1e6, {x})))",
        "math.cos(max(-1e6, min(1e6, {x})))", "math.fabs({x})", "math.atan2({x}, {y})",
        "math.copysign({x}, {y})", "(min(abs({x}), 1e100) ** 3)", "math.radians({x})",
        "float(np.sqrt({x}))", "float(np.floor({x}))", "float(np.rint({x}))", "float(np.fabs({x}))",
    )  # fmt: skip
    _MATH_INT = ("math.floor(max(-1e9, min(1e9, {x})))", "math.ceil(max(-1e9, min(1e9, {x})))",
                 "math.trunc(max(-1e9, min(1e9, {x})))")  # fmt: skip

    def math_call(self, depth: int, want: str) -> Ex | None:
        """A math function of float(s) of generated expressions (a Python float, or int)."""
        if want == "bool":
            return None
        forms = self._MATH_INT if want == "int" or self.d.chance(0.2) else self._MATH_FLOAT
        form = self.d.choice(forms)
        args = []
        for _ in range(2 if "{y}" in form else 1):
            a = self.expr(depth + 1, "")
            if a.kind == "arr" or a.is_boolean:
                return None
            args.append(a.text if a.kind == "float" else f"float({a.text})")
        self.uses_math = True
        self.features.add("math")
        text = form.format(x=args[0], y=args[-1])
        if forms is self._MATH_INT:
            return pyint(text, -(10**9), 10**9)
        return pyfloat(text)

    def operand(self, depth: int, want: str) -> Ex:
        return self.leaf() if self.d.chance(0.5) else self.expr(depth, want)

    def like(self, a: Ex, depth: int) -> Ex | None:
        """An expression of exactly a's type (Python ints: any interval)."""
        for _ in range(8):
            b = self.expr(depth, "int" if not a.is_float else "")
            if b.key == a.key:
                return b
        if a.kind == "np":
            return self.cast(self.expr(depth, "int" if a.dt not in FLOAT_DTS else ""), a.dt)
        return None

    def minmax(self, fn: str, a: Ex, b: Ex) -> Ex | None:
        if a.key != b.key:
            b2 = self.cast(b, a.dt) if a.kind == "np" else None
            if b2 is None or b2.key != a.key:
                return None
            b = b2
        text = f"{fn}({a.text}, {b.text})"
        if a.kind == "int":
            iv = int_interval(fn, (a.lo, a.hi), (b.lo, b.hi))
            assert iv is not None
            return pyint(text, *iv)
        if a.kind == "bool":
            return pybool(text)
        return Ex(text, a.samples)

    def divisor(self, depth: int, want: str) -> Ex:
        d = self.d
        if d.chance(0.4):
            v = d.choice((1, 2, 3, 4, 7, 8, 16, -1, -2, -3, -7, 10))
            return pyint(str(v) if v > 0 else f"({v})", v, v, True)
        return self.operand(depth, want)

    def shift_amount(self, a: Ex) -> Ex:
        d = self.d
        bits = np.dtype(a.dt).itemsize * 8 if a.dt in INT_DTS else 8
        r = d.int(0, 4)
        if r <= 1:
            v = d.choice((0, 1, 2, 3, 4, 5, 7, bits - 1, bits, bits + 1))
            return pyint(str(v), v, v, True)
        if r == 2 and a.kind == "np":
            dt = self.int_dt()
            v = d.choice((0, 1, 3, bits - 1, bits, 70, -1))
            info = np.iinfo(dt)
            v = v if info.min <= v <= info.max else 1
            return npval(f"{np_ctor(dt)}({v})", dt)
        if r == 3:
            lps = [lp for lp in self.loops if lp.elem is None and lp.lo >= 0 and lp.hi <= 16]
            if lps:
                lp = d.choice(lps)
                return pyint(lp.var, lp.lo, lp.hi)
        data = self.data_int()
        if data is not None and a.kind == "np":
            return Ex(f"({data.text} & 7)", (np_sample(data.dt),))
        return pyint("1", 1, 1, True)

    def condition(self, depth: int) -> Ex:
        d = self.d
        r = d.int(0, 9)
        if r < 6 or depth >= MAX_DEPTH:
            a = self.expr(min(depth + 1, MAX_DEPTH), "")
            b = self.operand(min(depth + 1, MAX_DEPTH), "" if a.is_float else "int")
            c = self.cmp(d.choice(CMP_OPS), a, b)
            return c if c is not None else pybool("True")
        if r < 8:
            a, b = self.condition(depth + 1), self.condition(depth + 1)
            op = d.choice(("and", "or"))
            if a.key == b.key:  # `and`/`or` give one of their operands: keep one type
                return Ex(f"({a.text} {op} {b.text})", a.samples, 0, 1)
            return pybool(f"(bool({a.text}) {op} bool({b.text}))")
        if r < 9:
            return pybool(f"(not {self.condition(depth + 1).text})")
        bools = [e for e in [*self.scalars.values(), *(v.ex for v in self.vars.values())] if e.is_boolean]
        if bools:
            return d.choice(bools)
        return pybool("True")

    # ------------------------------------------------------------ helpers

    def helper_call(self, depth: int, want: str) -> Ex | None:
        """A call of a new helper function over two scalar arguments (inlined by the frontend)."""
        a = self.expr(depth, want)
        b = self.operand(depth, want)
        name = self.fresh("helper")
        params = ("p", "q")
        saved = (self.arrays, self.vars, self.scalars, self.loops, self.records)
        self.arrays, self.vars, self.loops, self.records = {}, {}, [], {}
        pa = a if a.kind != "int" else pyint("p", a.lo, a.hi)
        pb = b if b.kind != "int" else pyint("q", b.lo, b.hi)
        self.scalars = {"p": Ex("p", pa.samples, pa.lo, pa.hi), "q": Ex("q", pb.samples, pb.lo, pb.hi)}
        self.helper_names.append(name)
        try:
            body = self.expr(1, want)
            cond = self.condition(2)
            other = self.like(body, 2)
        finally:
            self.arrays, self.vars, self.scalars, self.loops, self.records = saved
        if other is None or body.kind == "int":
            src = [f"def {name}({params[0]}, {params[1]}):", f"    return {body.text}"]
            result = body
        else:
            src = [
                f"def {name}({params[0]}, {params[1]}):",
                f"    r = {body.text}",
                f"    if {cond.text}:",
                f"        r = {other.text}",
                "    return r",
            ]
            result = body
        self.helpers_src.append("\n".join(src))
        self.features.add("helper")
        call = f"{name}({a.text}, {b.text})"
        if result.kind == "int":
            return pyint(call, result.lo, result.hi)
        return Ex(call, result.samples, result.lo, result.hi)
