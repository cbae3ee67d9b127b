"""Whole-array numpy in a generated kernel: array expressions over whole arrays and slices
(arithmetic, np.where, np.minimum/maximum, np.abs, np.clip, astype), new arrays, slice
updates, reductions, dot and matrix products.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from partition.fuzz.exprs import ExprGen
from partition.fuzz.parts import Arr, Loop
from partition.fuzz.typed import CMP_OPS, FLOAT_DTS, INT_DTS, Ex, arr_sample, np_ctor, pyint, quiet


class ArrayGen(ExprGen):
    """Generates whole-array numpy statements."""

    # ------------------------------------------------------------ whole-array numpy

    def array_operand(self, shape: tuple[int, ...]) -> Ex | None:
        """An array of exactly `shape` (a whole array or a slice of a longer 1-D one), or a scalar."""
        d = self.d
        cands = [a for a in self.arrays.values() if not a.is_list and a.kind != "rom"]
        same = [a for a in cands if a.shape == shape]
        longer = [a for a in cands if len(shape) == 1 and len(a.shape) == 1 and a.shape[0] > shape[0]]
        r = d.int(0, 9)
        if d.chance(0.15):
            made = self.made_operand(shape, cands)
            if made is not None:
                return made
        if r < 6 and same:
            a = d.choice(same)
            return Ex(a.name, (a.sample(),))
        if r < 8 and longer:
            a = d.choice(longer)
            n, m = a.shape[0], shape[0]
            if d.chance(0.5):
                s = d.int(0, n - m)
                text = f"{a.name}[{s}:{s + m}]"
            else:
                st = d.choice((2, 3))
                if (n - 1) // st + 1 < m:
                    text = f"{a.name}[{n - m}:]"
                else:
                    s = d.int(0, n - 1 - (m - 1) * st)
                    text = f"{a.name}[{s}:{s + (m - 1) * st + 1}:{st}]"
            return Ex(text, (arr_sample(a.dt, shape),))
        e = self.expr(2, "int" if not self.floats else "")
        if e.kind == "int" and not e.const:
            return None
        return e

    def made_operand(self, shape: tuple[int, ...], cands: list[Arr]) -> Ex | None:
        """A run-time window of a longer 1-D array inside a loop (`x[i + 1:i + 4]`), a literal
        array (`np.array([...], dtype=...)`), or a lookup-table gather (`LUT[u8_array]`)."""
        d = self.d
        what = d.choice(("literal", "gather"))
        if what == "literal" and len(shape) <= 2 and math.prod(shape) <= 16:
            dt = self.int_dt()
            info = np.iinfo(dt)
            vals = np.array([d.int(max(info.min, -200), min(info.max, 200)) for _ in range(math.prod(shape))])
            text = str(vals.reshape(shape).tolist())
            self.features.add("literal")
            return Ex(f"np.array({text}, dtype={np_ctor(dt)})", (arr_sample(dt, shape),))
        if what == "gather":
            idx = [a for a in cands if a.shape == shape and a.dt in INT_DTS]
            if not idx:
                return None
            a = d.choice(idx)
            text = a.name if a.dt == "uint8" else f"{a.name}.astype(np.uint8)"
            if d.chance(0.3):  # an int64 index: checked at run time (in range here, negatives wrap)
                text = d.choice(
                    (f"{a.name}.astype(np.int64) % 256", f"{a.name}.astype(np.int64) % 512 - 256")
                )
                self.features.add("checked gather")
            name = "LUT8"
            if not any(g.startswith(f"{name} =") for g in self.globals_src):
                dt = d.choice(("int16", "uint8", "int32"))
                self.globals_src.append(
                    f"{name} = (np.arange(256, dtype=np.int64) * 37 % 251 - 100).astype({np_ctor(dt)})"
                )
                self.lut_dt = dt
            self.features.add("gather")
            return Ex(f"{name}[{text}]", (arr_sample(self.lut_dt, shape),))
        return None

    def stmt_window(self, cands: list[Arr]) -> None:
        """`w = np.zeros(T); for i in range(T): w[i] = x[i + c:i + c + m].sum()` (or max/min, or
        np.sum of the window times a literal of its shape): windows with run-time offsets."""
        d = self.d
        arrs = [a for a in cands if len(a.shape) == 1 and a.shape[0] >= 2 and a.dt != "bool"]
        if not arrs:
            return
        a = d.choice(arrs)
        n = a.shape[0]
        if d.chance(0.35):
            self.run_time_slices(a)
            return
        m = d.int(1, min(n, 4))
        c = d.int(0, n - m)
        t = n - m - c + 1
        red = d.choice(
            ("{}.max()", "{}.min()") if a.dt in FLOAT_DTS else ("{}.sum()", "{}.max()", "np.min({})")
        )
        i = self.fresh("i")
        window = f"{a.name}[{i} + {c}:{i} + {c} + {m}]" if c else f"{a.name}[{i}:{i} + {m}]"
        if red == "{}.sum()" and d.chance(0.4):
            window = f"({window} * np.array({[d.int(-3, 3) for _ in range(m)]}, dtype=np.int16))"
        val = quiet(lambda: eval(red.format("x"), {"np": np, "x": arr_sample(a.dt, (m,)) * (
            np.ones(m, np.int16) if "np.array" in window else 1)}))  # fmt: skip
        if val is None:
            return
        dt = np.asarray(val).dtype.name
        name = self.fresh("win")
        self.emit(f"{name} = np.zeros({t}, dtype={np_ctor(dt)})")
        self.emit(f"for {i} in range({t}):")
        self.emit(f"    {name}[{i}] = {red.format(window)}")
        self.arrays[name] = Arr(name, dt, (t,), writable=False)
        self.features.add("window")

    def run_time_slices(self, a: Arr) -> None:
        """Triangular loops: `for i in range(n): acc[i] = np.sum(x[:i + 1])` (or x[i:], x[c:i],
        x[i:n - c]) and, into a writable array, `t[:i + 1] += x[:i + 1]` or `*=`: slices of
        run-time length, empty ones included."""
        d = self.d
        n = a.shape[0]
        i = self.fresh("i")
        c = d.int(0, n - 1)
        lo, hi = d.choice(((None, f"{i} + 1"), (i, None), (str(c), i), (i, f"{n} - {c}"), (None, i)))
        piece = f"{a.name}[{lo or ''}:{hi or ''}]"
        if a.dt in INT_DTS and a.dt not in ("int64", "uint64"):
            acc_dt = "int64" if a.dt.startswith("int") else "uint64"
            name = self.fresh("tri")
            self.emit(f"{name} = np.zeros({n}, dtype=np.{acc_dt})")
            self.emit(f"for {i} in range({n}):")
            self.emit(f"    {name}[{i}] = np.sum({piece})")
            self.arrays[name] = Arr(name, acc_dt, (n,), writable=False)
        elif a.writable and a.dt in INT_DTS:
            op = d.choice(("+", "-", "^"))
            other = d.choice(
                [b for b in self.arrays.values() if not b.is_list and b.shape == (n,) and b.dt == a.dt] or [a]
            )
            self.emit(f"for {i} in range({n}):")
            self.emit(f"    {piece} {op}= {other.name}[{lo or ''}:{hi or ''}]")
        else:
            return
        self.features.add("run-time slice")

    def array_expr(self, shape: tuple[int, ...], depth: int = 0) -> Ex | None:
        d = self.d
        if depth >= 2 or d.chance(0.3):
            e = self.array_operand(shape)
            return e if e is not None and e.kind == "arr" else None
        r = d.weighted(
            [
                *(
                    ("bin", 6),
                    ("where", 2),
                    ("minmax", 2),
                    ("abs", 1),
                    ("clip", 1),
                    ("astype", 1),
                    ("neg", 1),
                ),
                ("math", 2 if self.floats else 0),
            ]
        )
        a = self.array_expr(shape, depth + 1)
        if a is None:
            return None
        if r == "bin":
            b = self.array_operand(shape) if d.chance(0.6) else self.array_expr(shape, depth + 1)
            if b is None:
                return None
            op = d.choice(("+", "-", "*", "//", "%", "&", "|", "^", ">>", "+", "-"))
            if op == ">>" and b.kind != "arr":
                b = pyint(str(d.int(0, 9)), 0, 9, True)
            res = self.binop(op, a, b)
            return res if res is not None and res.kind == "arr" and res.s.shape == shape else None
        if r == "where":
            b = self.array_operand(shape)
            c = self.array_operand(shape)
            if b is None or c is None:
                return None
            cond = self.cmp(d.choice(CMP_OPS), a, b)
            if cond is None or cond.kind != "arr":
                return None
            v = quiet(lambda: np.where(cond.s, a.s, c.s))
            return None if v is None else Ex(f"np.where({cond.text}, {a.text}, {c.text})", (v,))
        if r == "minmax":
            b = self.array_operand(shape)
            if b is None:
                return None
            fn = d.choice(("minimum", "maximum"))
            v = quiet(lambda: getattr(np, fn)(a.s, b.s))
            return None if v is None else Ex(f"np.{fn}({a.text}, {b.text})", (v,))
        if r == "abs":
            v = quiet(lambda: np.abs(a.s))
            return None if v is None else Ex(f"np.abs({a.text})", (v,))
        if r == "math":
            return self.exact_math(a)
        if r == "clip":
            if a.dt not in INT_DTS:
                return None
            info = np.iinfo(a.dt)
            lo = d.choice((0, -5, 1, -100))
            hi = d.choice((10, 100, 7, 255))
            if not (info.min <= lo <= hi <= info.max):
                return None
            return Ex(f"np.clip({a.text}, {lo}, {hi})", a.samples)
        if r == "astype":
            to = self.int_dt() if not a.is_float else d.choice(FLOAT_DTS)
            return Ex(f"{a.text}.astype({np_ctor(to)})", (arr_sample(to, shape),))
        v = quiet(lambda: -a.s)
        return None if v is None else Ex(f"(-{a.text})", (v,))

    # numpy's math with one IEEE 754 result (bit-exact in Python and C++ alike)
    _EXACT = ("np.sqrt({})", "np.floor({})", "np.ceil({})", "np.trunc({})", "np.rint({})", "np.round({})",
              "np.fabs({})", "np.square({})", "np.sign({})", "({} ** 2)", "({} ** 0.5)", "np.deg2rad({})",
              "np.isnan({})")  # fmt: skip
    # numpy's own approximate loops: their results are only returned (compared within the tolerance)
    _APPROX = ("np.exp({})", "np.tanh({})", "np.sin({})", "np.arctan({})", "np.log1p(np.abs({}))",
               "np.hypot({0}, {0})", "np.exp(-np.abs({}))", "np.sqrt(np.abs({}) + 1.0)")  # fmt: skip

    def exact_math(self, a: Ex) -> Ex | None:
        form = self.d.choice(self._EXACT)
        text = form.format(a.text)
        v = quiet(lambda: eval(form.format("x"), {"np": np, "x": a.s}))
        if v is None or not isinstance(v, np.ndarray) or v.dtype.name not in (*FLOAT_DTS, *INT_DTS, "bool"):
            return None
        self.features.add("numpy math")
        return Ex(text, (v,))

    def approx_math(self, shape: tuple[int, ...]) -> None:
        """`tN = np.exp(...)` of a float array expression, returned by the kernel and not read again."""
        e = self.array_expr(shape)
        if e is None or e.dt not in FLOAT_DTS:
            return
        form = self.d.choice(self._APPROX)
        v = quiet(lambda: eval(form.format("x"), {"np": np, "x": e.s}))
        if v is None or v.dtype != e.s.dtype:
            return
        name = self.fresh("tm")
        self.emit(f"{name} = {form.format(e.text)}")
        self.math_outputs.append(name)
        self.features.add("numpy math")

    def masked_update(self, cands: list[Arr]) -> None:
        """`t[mask] = v`, `t[mask] op= v` or `t[mask] = y[mask]`: a boolean mask of t's shape
        from a comparison of t or another array of its shape."""
        d = self.d
        targets = [a for a in cands if a.writable and a.dt != "bool"]
        if not targets:
            return
        t = d.choice(targets)
        other = self.array_operand(t.shape) if d.chance(0.5) else None
        left = other.text if other is not None and other.kind == "arr" else t.name
        mask = f"({left} {d.choice(('>', '<', '>=', '!='))} {d.int(-3, 3)})"
        y = self.array_operand(t.shape) if d.chance(0.3) else None
        if y is not None and y.kind == "arr" and y.dt == t.dt:
            stmt = f"{t.name}[{mask}] = {y.text}[{mask}]"
        else:
            op = d.choice(("", "+", "-", "*"))
            stmt = f"{t.name}[{mask}] {op}= {d.int(0, 5)}"
        self.emit(stmt)
        self.features.add("masked assignment")

    def masked_reduction(self, v: Any, e: Ex, shape: tuple[int, ...]) -> None:
        """`v = v + np.sum(e[mask])` (or .sum(), np.count_nonzero(mask), len(e[mask])): a
        boolean mask's selection reduced, the mask a comparison of e or another array of its
        shape (an empty selection sums to 0 and counts 0, as numpy's)."""
        d = self.d
        m = self.array_operand(shape)
        src = m if m is not None and m.kind == "arr" and m.dt != "bool" else e
        if src.dt == "bool":
            return
        cmp = f"{d.choice(('>', '<', '>=', '!='))} {d.int(-3, 3)}"
        form = d.choice(
            ("np.sum(({x})[{m}])", "({x})[{m}].sum()", "np.count_nonzero({m})", "len(({x})[{m}])")
        )
        if e.dt == "bool" and "sum" in form:
            return
        red = form.format(x=e.text, m=f"(({src.text}) {cmp})")
        val = quiet(lambda: eval(form.format(x="x", m=f"(y {cmp})"), {"np": np, "x": e.s, "y": src.s}))
        if val is None:
            return
        n = math.prod(shape)
        rv = Ex(red, (val,)) if "sum" in form else Ex(red, (0, n), lo=0, hi=n)
        res = self.binop("+", v.ex, rv)
        text = None if res is None else self.assign_to(v, res)
        if text:
            self.emit(text)
            self.features.add("mask reduction")

    def axis_reduction(self, shape: tuple[int, ...]) -> None:
        """`r = np.sum(e, axis=k)` (or mean/max/min/argmax/argmin, function or method, axis
        negative or not, a tuple of axes, keepdims): a new array of numpy's dtype for it. Or
        instead a flip, scan (cumsum, np.maximum/minimum.accumulate), roll, pad, join, np.insert,
        np.clip with keywords or an einsum transpose."""
        d = self.d
        e = self.array_expr(shape)
        if e is None or e.dt == "bool":
            return
        axis = d.int(0, len(shape) - 1)
        if d.chance(0.3):
            axis -= len(shape)
        if d.chance(0.25):  # instead: a flip, scan, roll, logical ufunc or pad
            form = d.choice(
                (
                    f"np.flip({{}}, axis={axis})", "np.flip({})", "np.flipud({})", "np.fliplr({})",
                    f"np.cumsum({{}}, axis={axis})", f"np.roll({{}}, {d.int(-3, 3)}, axis={axis})",
                    "np.logical_and({} > 0, {} < 9)", "np.pad({}, 1)",
                    f"np.concatenate(({{}}, {{}}), axis={axis})", f"np.stack([{{}}, {{}}], axis={axis})",
                    "np.transpose({})",
                    f"np.pad({{}}, ({d.int(0, 2)}, {d.int(0, 2)}), mode='edge')",
                    f"np.maximum.accumulate({{}}, axis={axis})", f"np.minimum.accumulate({{}}, {axis})",
                    f"np.insert({{}}, {d.int(-2, 2)}, {d.int(0, 9)})", "np.clip({}, a_min=2, a_max=7)",
                    "np.einsum('ij->ji', {}).copy()" if len(shape) == 2 else "np.flip({})",
                )
            )  # fmt: skip
            val = quiet(lambda: eval(form.format("x", "x"), {"np": np, "x": e.s}))
            if val is None:
                return
            name = self.fresh("fl")
            self.emit(f"{name} = " + form.format(e.text, e.text))
            self.arrays[name] = Arr(name, val.dtype.name, val.shape, writable=False)
            self.features.add("flip")
            return
        kinds = (
            ("max", "min", "argmax", "argmin")
            if e.is_float
            else ("sum", "max", "min", "argmax", "argmin", "mean")
        )
        kind = d.choice(kinds)
        keep = ", keepdims=True" if kind not in ("argmax", "argmin") and d.chance(0.2) else ""
        if kind not in ("argmax", "argmin") and len(shape) >= 3 and d.chance(0.3):
            axis = tuple(sorted(d.choice(((0, 1), (0, 2), (1, 2), (0, -1)))))  # type: ignore[assignment]
        form = d.choice((f"np.{kind}({{}}, axis={axis}{keep})", f"({{}}).{kind}(axis={axis}{keep})"))
        val = quiet(lambda: eval(form.format("x"), {"np": np, "x": e.s}))
        if val is None or not isinstance(val, np.ndarray) or val.dtype.name not in (*INT_DTS, *FLOAT_DTS):
            return
        name = self.fresh("red")
        self.emit(f"{name} = " + form.format(e.text))
        self.arrays[name] = Arr(name, val.dtype.name, val.shape, writable=False)
        self.features.add("axis reduction")

    def library_call(self, cands: list[Arr]) -> None:
        """`r = np.convolve(a, b[:m], mode)` of integer vectors, np.bincount of a uint8 or bool
        vector, np.argsort(a, kind="stable"), np.percentile of a float64 vector, or np.tensordot
        of integer arrays: a new array (results exact, so compared exactly)."""
        d = self.d
        ints = [a for a in cands if a.dt in INT_DTS and len(a.shape) == 1]
        vecs = [a for a in cands if len(a.shape) == 1 and a.dt in (*INT_DTS, "float64")]
        kind = d.choice(("convolve", "bincount", "argsort", "percentile", "tensordot"))
        if kind == "convolve" and ints:
            a, b = d.choice(ints), d.choice(ints)
            m = d.int(1, b.shape[0])
            mode = d.choice(("full", "same", "valid"))
            form = f"np.convolve({a.name}, {b.name}[:{m}], mode={mode!r})"
            val = quiet(lambda: np.convolve(a.sample(), b.sample()[:m], mode=mode))
        elif kind == "bincount":
            small = [a for a in cands if a.dt in ("uint8", "bool") and len(a.shape) == 1]
            if not small:
                return
            a = d.choice(small)
            n = 256 if a.dt == "uint8" else 2
            form = f"np.bincount({a.name}, minlength={n + d.int(0, 3)})"
            val = quiet(lambda: eval(form, {"np": np, a.name: a.sample()}))
        elif kind == "argsort" and vecs:
            a = d.choice(vecs)
            form = f"np.argsort({a.name}, kind='stable')"
            val = quiet(lambda: np.argsort(a.sample(), kind="stable"))
        elif kind == "percentile" and [a for a in vecs if a.dt == "float64"]:
            a = d.choice([a for a in vecs if a.dt == "float64"])
            qs = sorted({d.int(0, 100) for _ in range(d.int(1, 3))})
            form = f"np.percentile({a.name}, {qs})"
            val = quiet(lambda: np.percentile(a.sample(), qs))
        elif kind == "tensordot":
            mats = [a for a in cands if a.dt in INT_DTS and len(a.shape) >= 1]
            pairs = [(a, b) for a in mats for b in mats if a.shape[-1] == b.shape[0]]
            if not pairs:
                return
            a, b = d.choice(pairs)
            form = f"np.tensordot({a.name}, {b.name}, axes=1)"
            val = quiet(lambda: np.tensordot(a.sample(), b.sample(), axes=1))
        else:
            return
        if not isinstance(val, np.ndarray) or val.ndim == 0 or val.size == 0:
            return
        name = self.fresh("lib")
        self.emit(f"{name} = {form}")
        self.arrays[name] = Arr(name, val.dtype.name, val.shape, writable=False)
        self.features.add("library call")

    def rebind(self, cands: list[Arr]) -> None:
        """Inside a loop: a name given a new array of its dtype and shape (`q = q - 2 * q[::-1]`),
        another array's elements (`a = b`), or swapped with another (`a, b = b, a`), as time
        loops and ping-pong buffers do; an argument's caller must see what Python leaves in it."""
        d = self.d
        arrs = [a for a in cands if a.kind == "ndarray"]
        if not arrs:
            return
        a = d.choice(arrs)
        same = [b for b in arrs if b is not a and b.dt == a.dt and b.shape == a.shape]
        r = d.weighted([("expr", 4), ("name", 1 if same else 0), ("swap", 1 if same else 0)])
        if r == "expr":
            for _ in range(4):
                e = self.array_expr(a.shape)
                if e is not None and e.kind == "arr" and e.dt == a.dt and not e.text.isidentifier():
                    break
            else:
                return
            self.emit(f"{a.name} = {e.text}")
        elif r == "name":
            self.emit(f"{a.name} = {d.choice(same).name}")
        else:
            self.emit(f"{a.name}, {(b := d.choice(same)).name} = {b.name}, {a.name}")
        self.features.add("array name rebound in a loop")

    def stmt_time_loop(self) -> None:
        """`for s in range(k):` around whole-array statements and a rebinding, as a time-stepping
        loop is written (k may be 0: the names then keep what they named before)."""
        d = self.d
        if not any(a.kind == "ndarray" for a in self.arrays.values()):
            return
        steps = d.int(0, 3)
        var = self.fresh("s")
        before = dict(self.arrays)
        self.emit(f"for {var} in range({steps}):")
        self.loops.append(Loop(var, 0, max(0, steps - 1), steps))
        try:
            with self.block():
                if d.chance(0.5):
                    self.stmt_numpy()
                self.rebind([a for a in self.arrays.values() if a.kind != "rom" and not a.is_list])
                if d.chance(0.3):
                    self.stmt_numpy()
        finally:
            self.loops.pop()
            self.arrays = before  # arrays made in the loop are unbound after it when it runs 0 times

    def stmt_numpy(self) -> None:
        """One whole-array statement: a new array, an in-place update or a reduction."""
        d = self.d
        cands = [a for a in self.arrays.values() if not a.is_list and a.kind != "rom"]
        if not cands:
            return
        base = d.choice(cands)
        shape = base.shape
        if self.floats and not self.math_outputs and d.chance(0.2):
            self.approx_math(shape)
            return
        r = d.weighted(
            [
                ("new", 4),
                ("inplace", 3),
                ("reduce", 3),
                ("dot", 2),
                ("window", 2),
                ("library", 1),
                ("rebind", 2 if self.loops else 0),
            ]
        )
        if r == "library":
            self.library_call(cands)
            return
        if r == "rebind":
            self.rebind(cands)
            return
        if r == "window":
            self.stmt_window(cands)
            return
        if r == "new":
            for _ in range(4):
                e = self.array_expr(shape)
                if e is not None and not e.text.isidentifier():
                    break  # (`t = x` makes an alias, which the frontend asks to avoid)
            else:
                return
            name = self.fresh("t")
            self.emit(f"{name} = {e.text}")
            dt = e.dt
            self.arrays[name] = Arr(name, dt, shape, writable=False)
            return
        if r == "inplace" and d.chance(0.3):
            self.masked_update(cands)
            return
        if r == "inplace":
            targets = [a for a in cands if a.writable and len(a.shape) == 1 and a.shape[0] >= 2]
            if not targets:
                return
            t = d.choice(targets)
            n = t.shape[0]
            s = d.int(0, n - 2)
            m = d.int(1, n - s)
            e = self.array_operand((m,)) if d.chance(0.6) else self.array_expr((m,))
            if e is None:
                return
            op = d.choice(("+", "-", "*") if t.dt in FLOAT_DTS else ("+", "-", "*", "&", "|", "^"))

            def probe() -> Any:
                buf = arr_sample(t.dt, (m,))
                fn = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
                      "&": operator.iand, "|": operator.ior, "^": operator.ixor}[op]  # fmt: skip
                for smp in e.samples:
                    fn(buf, smp)
                return buf

            if quiet(probe) is None:
                return
            if e.kind == "int" and not (
                np.iinfo(t.dt).min <= e.lo and e.hi <= np.iinfo(t.dt).max if t.dt in INT_DTS else True
            ):
                return
            self.emit(f"{t.name}[{s}:{s + m}] {op}= {e.text}")
            return
        if (r == "reduce" or (r == "new" and d.chance(0.25))) and len(shape) >= 2 and d.chance(0.8):
            self.axis_reduction(shape)
            return
        if r == "reduce":
            ints = [
                v
                for v in self.vars.values()
                if v.mode == "np" and v.ex.dt in ("int32", "int64", "uint64", "uint32")
            ]
            if not ints:
                return
            v = d.choice(ints)
            e = self.array_expr(shape)
            if e is None:
                return
            if e.is_float:
                return  # numpy sums floats pairwise; the kernel adds in order
            if d.chance(0.3):
                self.masked_reduction(v, e, shape)
                return
            fn = d.choice(
                ("np.sum({})", "{}.max()", "{}.min()", "np.argmax({})", "np.max({})", "np.argmin({})")
            )
            red = fn.format(e.text)
            if e.dt == "bool" and "arg" not in fn:
                return
            val = quiet(lambda: eval(fn.format("x"), {"np": np, "x": e.s}))
            if val is None:
                return
            rv = Ex(red, (val,))
            res = self.binop("+", v.ex, rv)
            if res is None:
                return
            text = self.assign_to(v, res)
            if text:
                self.emit(text)
            return
        # dot products of integer vectors (exact), or a small integer matrix product
        ints = [a for a in cands if a.dt in INT_DTS and len(a.shape) == 1]
        targets = [v for v in self.vars.values() if v.mode == "np" and v.ex.dt in INT_DTS]
        mats = [a for a in cands if a.dt in INT_DTS and len(a.shape) == 2]
        r2 = d.int(0, 2)
        if r2 == 0 and ints and targets:
            # integer dot product (exact: numpy wraps in the operands' type) of equal lengths
            a = d.choice(ints)
            b = self.array_operand(a.shape)
            if b is None or b.kind != "arr" or b.dt not in INT_DTS:
                return
            prod = d.choice((f"np.dot({a.name}, {b.text})", f"({a.name} @ {b.text})"))
            val = quiet(lambda: np.dot(a.sample(), b.s))
            if val is None:
                return
            v = d.choice(targets)
            res = self.binop("+", v.ex, Ex(prod, (val,)))
            text = None if res is None else self.assign_to(v, res)
            if text:
                self.emit(text)
                self.features.add("dot")
            return
        pairs = [(a, b) for a in mats for b in mats + ints if a.shape[1] == b.shape[0]]
        pairs += [(a, b) for a in ints for b in mats if a.shape[0] == b.shape[0]]
        if pairs:
            a, b = d.choice(pairs)
            val = quiet(lambda: a.sample() @ b.sample())
            if val is None:
                return
            name = self.fresh("mm")
            self.emit(f"{name} = " + d.choice((f"{a.name} @ {b.name}", f"np.dot({a.name}, {b.name})")))
            self.arrays[name] = Arr(name, val.dtype.name, val.shape)
            self.features.add("matmul")
