"""Statements of a generated kernel: local declarations and the output array, element stores,
assignments that keep each variable's type, `if`/`elif`/`else`, counted, element and `while`
loops with `break`/`continue`, statements calling tuple-returning and in-place helpers, and
the early return.
"""

from __future__ import annotations

import numpy as np

from partition.fuzz.builder import MAX_NEST, SHAPES_2D, SIZES_1D
from partition.fuzz.exprs import ExprGen
from partition.fuzz.parts import Arr, Loop, Var
from partition.fuzz.typed import INT_DTS, Ex, np_ctor, npval, pybool, pyfloat, pyint


class StmtGen(ExprGen):
    """Generates statements (and the loops and branches around them)."""

    def stmt_tuple_helper(self) -> None:
        """`q, r = helper(a, b)` with a helper returning a tuple, then a statement using q and r."""
        d = self.d
        a = self.expr(1)
        b = self.operand(1, "")
        name = self.fresh("pair")
        shapes = [("//", "%"), ("min", "max"), ("+", "-")]
        ops = d.choice(shapes)
        pa = Ex("p", a.samples, a.lo, a.hi)
        pb = Ex("q", b.samples, b.lo, b.hi)
        outs = []
        for op in ops:
            e = self.minmax(op, pa, pb) if op in ("min", "max") else self.binop(op, pa, pb)
            if e is None:
                return
            outs.append(e)
        self.helpers_src.append(
            "\n".join([f"def {name}(p, q):", f"    return {outs[0].text}, {outs[1].text}"])
        )
        self.helper_names.append(name)
        q, r = self.fresh("q"), self.fresh("r")
        self.emit(f"{q}, {r} = {name}({a.text}, {b.text})")
        self.features.update(("helper", "tuple-unpack"))
        for v, e in ((q, outs[0]), (r, outs[1])):
            self.vars[v] = Var(v, Ex(v, e.samples, e.lo, e.hi), "pyint_ro")
        try:
            self.stmt_store() if d.chance(0.5) else self.stmt_assign()
        finally:
            del self.vars[q], self.vars[r]

    def stmt_inplace_helper(self) -> None:
        """`helper(arr, c)` where the helper updates a 1-D array in place (an in/out argument)."""
        d = self.d
        cands = [a for a in self.arrays.values() if a.writable and a.kind == "ndarray" and len(a.shape) == 1]
        if not cands:
            return
        arr = d.choice(cands)
        c = self.operand(1, "")
        name = self.fresh("update")
        saved = (self.arrays, self.vars, self.scalars, self.loops, self.records)
        v = Arr("v", arr.dt, arr.shape, writable=True)
        self.arrays, self.vars, self.records = {"v": v}, {}, {}
        self.scalars = {"c": Ex("c", c.samples, c.lo, c.hi)}
        self.loops = [Loop("k", 0, arr.shape[0] - 1, arr.shape[0])]
        try:
            value = None
            for _ in range(6):
                value = self.store_value(v, self.expr(1, "int" if arr.dt in INT_DTS else ""))
                if value is not None:
                    break
        finally:
            self.arrays, self.vars, self.scalars, self.loops, self.records = saved
        if value is None:
            return
        self.helpers_src.append(
            "\n".join([f"def {name}(v, c):", "    for k in range(len(v)):", f"        v[k] = {value.text}"])
        )
        self.helper_names.append(name)
        self.emit(f"{name}({arr.name}, {c.text})")
        self.features.update(("helper", "inplace-helper"))

    def maybe_early_return(self) -> None:
        """`if cond: return <what the function returns>` (filled in at the end)."""
        if self.early_return or not self.d.chance(0.15):
            return
        c = self.condition(0)
        self.emit(f"if {c.text}:")
        with self.branch():
            self.emit("return @RETURN@")
        self.early_return = True
        self.features.add("early-return")

    # ------------------------------------------------------------ statements

    def declare_vars(self) -> None:
        d = self.d
        for _ in range(d.int(1, 3)):
            kind = d.weighted([("np", 6), ("pyint_mod", 2), ("pyint_count", 1), ("bool", 1),
                               ("pyfloat", 2 if self.floats else 0)])  # fmt: skip
            if kind == "np":
                dt = self.any_dt() if self.d.chance(0.8) else self.int_dt()
                name = self.fresh("acc")
                init = d.choice(("0", "1", "-1")) if dt != "bool" else "False"
                if dt.startswith("uint") and init == "-1":
                    init = "0"
                if d.chance(0.2):  # a = b = value
                    other = self.fresh("acc")
                    self.emit(f"{name} = {other} = {np_ctor(dt)}({init})")
                    self.vars[other] = Var(other, npval(other, dt))
                    self.features.add("chained assignment")
                else:
                    self.emit(f"{name} = {np_ctor(dt)}({init})")
                self.vars[name] = Var(name, npval(name, dt))
            elif kind == "pyint_mod":
                name = self.fresh("h")
                m = d.choice((7, 251, 1000, 65521, 1 << 20))
                self.emit(f"{name} = {d.int(0, min(m - 1, 5))}")
                self.vars[name] = Var(name, pyint(name, 0, m - 1), "pyint_mod", m)
            elif kind == "pyint_count":
                name = self.fresh("cnt")
                self.emit(f"{name} = 0")
                self.vars[name] = Var(name, pyint(name, 0, 1 << 17), "pyint_count")
            elif kind == "bool":
                name = self.fresh("flag")
                self.emit(f"{name} = False")
                self.vars[name] = Var(name, pybool(name), "bool")
            else:
                name = self.fresh("f")
                self.emit(f"{name} = 0.0")
                self.vars[name] = Var(name, pyfloat(name), "pyfloat")

    def declare_out(self) -> Arr | None:
        d = self.d
        if d.chance(0.15):
            return None
        if d.chance(0.15):
            # a Python list output
            n = d.choice(SIZES_1D)
            name = self.fresh("res")
            self.emit(f"{name} = [0] * {n}")
            lo, hi = -(1 << 31), (1 << 31) - 1
            a = Arr(name, "int64", (n,), "list", writable=True, elem=pyint("_", lo, hi), lo=lo, hi=hi)
            self.arrays[name] = a
            self.features.add("list-out")
            return a
        dt = self.any_dt()
        shape = (d.choice(SIZES_1D),) if d.chance(0.75) else d.choice(SHAPES_2D)
        name = self.fresh(d.choice(("out", "y", "r")))
        shape_text = str(shape[0]) if len(shape) == 1 else str(shape)
        maker = d.weighted([("zeros", 5), ("full", 2), ("ones", 1), ("empty", 2 if len(shape) == 1 else 0)])
        if maker == "empty":
            # contents undefined until written: every element is written first
            self.emit(f"{name} = np.empty({shape_text}, dtype={np_ctor(dt)})")
            a = Arr(name, dt, shape, writable=True)
            i = self.fresh("i")
            self.emit(f"for {i} in range({shape[0]}):")
            self.loops.append(Loop(i, 0, shape[0] - 1, shape[0]))
            try:
                with self.block():
                    for _ in range(6):
                        v = self.store_value(a, self.expr(1, "int" if dt in INT_DTS else ""))
                        if v is not None:
                            self.emit(f"{name}[{i}] = {v.text}")
                            break
                    else:
                        self.emit(f"{name}[{i}] = {'True' if dt == 'bool' else '0'}")
            finally:
                self.loops.pop()
            self.arrays[name] = a
            self.features.add("np.empty")
            return a
        if maker == "full":
            v = self.const().text if dt not in INT_DTS else str(d.choice((1, 3, 7)))
            if dt == "bool":
                v = "True"
            self.emit(f"{name} = np.full({shape_text}, {v}, dtype={np_ctor(dt)})")
        else:
            self.emit(f"{name} = np.{maker}({shape_text}, dtype={np_ctor(dt)})")
        a = Arr(name, dt, shape, writable=True)
        self.arrays[name] = a
        return a

    def store_value(self, a: Arr, e: Ex) -> Ex | None:
        """e as a value storable in a's elements (None when numpy would raise or be undefined).

        A list keeps one element type: Python ints (an output list within 32 bits), floats
        or bools; numpy values are converted with int()/float()/bool() first.
        """
        if a.is_list:
            assert a.elem is not None
            want = a.elem.kind
            if e.kind != want:
                conv = self.cast(e, f"py_{want}")
                if conv is None or conv.kind != want:
                    return None
                e = conv
            if want == "int" and (e.lo < a.lo or e.hi > a.hi):
                return None
            return e
        if a.dt in INT_DTS:
            if e.is_float:
                return None
            if e.kind in ("int", "bool"):
                info = np.iinfo(a.dt)
                return e if info.min <= e.lo and e.hi <= info.max else None
            if e.dt != "bool" and not np.can_cast(e.dt, a.dt, "safe"):
                # numpy raises OverflowError storing a value outside the array's dtype
                return self.cast(e, a.dt)
            return e
        return e

    def stmt_store(self) -> None:
        cands = [a for a in self.arrays.values() if a.writable]
        if not cands:
            self.stmt_assign()
            return
        a = self.d.choice(cands)
        target = self.load(a)
        aug = self.d.chance(0.35) and not a.is_list
        for _ in range(6):
            e = self.expr(0, "int" if a.dt in INT_DTS else "")
            if aug:
                op = self.d.choice(("+", "-", "*", "^", "|", "&") if a.dt in INT_DTS else ("+", "-", "*"))
                r = self.binop(op, npval(target.text, a.dt), e)
                if r is None or r.key != ("np", a.dt):
                    continue  # the result is stored back: numpy raises when it does not fit
                self.emit(f"{target.text} {op}= {e.text}")
                return
            v = self.store_value(a, e)
            if v is None:
                continue
            self.emit(f"{target.text} = {v.text}")
            return

    def assign_to(self, v: Var, e: Ex) -> str | None:
        """Text of `v = e` keeping v's type, or None."""
        if v.mode == "np":
            if e.key == v.ex.key:
                return f"{v.name} = {e.text}"
            c = self.cast(e, v.ex.dt)
            return None if c is None else f"{v.name} = {c.text}"
        if v.mode == "pyint_mod":
            if e.kind not in ("int", "bool"):
                e2 = self.cast(e, "py_int")
                if e2 is None:
                    return None
                e = e2
            r = self.binop("+", pyint(v.name, v.ex.lo, v.ex.hi), e)
            if r is None:
                return None
            return f"{v.name} = {r.text} % {v.modulus}"
        if v.mode == "pyint_count":
            return f"{v.name} += 1" if self.n_counts < 8 else None
        if v.mode == "bool":
            if e.kind == "bool":
                return f"{v.name} = {e.text}"
            return f"{v.name} = bool({e.text})"
        if v.mode == "pyfloat":
            if e.kind == "float":
                return f"{v.name} = {e.text}"
            if e.kind in ("int", "bool") or (e.kind == "np" and e.dt != "bool"):
                return f"{v.name} = float({e.text})"
        return None

    def stmt_assign(self) -> None:
        if not self.vars:
            self.stmt_store()
            return
        names = [n for n, v in self.vars.items() if v.mode != "pyint_ro"]
        if not names:
            return
        v = self.vars[self.d.choice(names)]
        for _ in range(6):
            if v.mode == "bool":
                e = self.condition(0)
                if e.kind != "bool":
                    e = pybool(f"bool({e.text})")
            else:
                e = self.expr(0, "int" if not (v.ex.is_float) else "")
            if v.mode == "np" and self.d.chance(0.5) and v.ex.dt != "bool":
                # accumulate: v = v op e
                op = self.d.choice(("+", "-", "^", "+", "*") if v.ex.dt in INT_DTS else ("+", "-", "*"))
                r = self.binop(op, v.ex, e)
                if r is None:
                    continue
                if r.key == v.ex.key and self.d.chance(0.5):
                    self.emit(f"{v.name} {op}= {e.text}")
                    return
                e = r
            text = self.assign_to(v, e)
            if text is not None:
                if v.mode == "pyint_count":
                    self.n_counts += 1
                self.emit(text)
                return
        self.emit(f"{v.name} = {v.name}")

    def stmt_if(self, depth: int) -> None:
        c = self.condition(0)
        self.emit(f"if {c.text}:")
        with self.branch():
            self.stmts(depth + 1, self.d.int(1, 2))
        k = self.d.weighted([(0, 3), (1, 2), (2, 1)])
        for _ in range(k if self.d.chance(0.5) else 0):
            c = self.condition(0)
            self.emit(f"elif {c.text}:")
            with self.branch():
                self.stmts(depth + 1, self.d.int(1, 2))
        if self.d.chance(0.5):
            self.emit("else:")
            with self.branch():
                self.stmts(depth + 1, self.d.int(1, 2))

    def loop_header(self) -> Loop | None:
        """`for v in range(...)` over something the arrays give; None when there is nothing to loop over."""
        d = self.d
        arrs = list(self.arrays.values())
        if not arrs:
            return None
        a = d.choice(arrs)
        k = d.int(0, len(a.shape) - 1)
        n = a.shape[k]
        dim = self.dim_text(a, k)
        var = self.fresh(d.choice(("i", "j", "k", "m")))
        pints = [(nm, e) for nm, e in self.scalars.items() if e.kind == "int" and e.lo >= 0 and e.hi <= n]
        form = d.weighted([("n", 6), ("start", 2), ("rev", 2), ("step", 2), ("param", 3 if pints else 0)])
        if form == "n":
            hdr, lo, hi, trips = f"range({dim})", 0, n - 1, n
        elif form == "start":
            s = d.int(0, min(2, n))
            hdr, lo, hi, trips = f"range({s}, {dim})", s, n - 1, max(0, n - s)
        elif form == "rev":
            hdr, lo, hi, trips = f"range({dim} - 1, -1, -1)", 0, n - 1, n
        elif form == "step":
            st = d.choice((2, 3))
            s = d.int(0, 1)
            hdr, lo, hi, trips = f"range({s}, {dim}, {st})", s, n - 1, max(0, -(-(n - s) // st))
        else:
            pname, pe = d.choice(pints)
            hdr, lo, hi, trips = f"range({pname})", 0, max(0, pe.hi - 1), pe.hi
        if hi < lo:
            lo = hi = 0
        self.emit(f"for {var} in {hdr}:")
        return Loop(var, lo, hi, trips)

    def elements_header(self) -> Loop | None:
        """`for v in a:` over a 1-D array or list."""
        cands = [a for a in self.arrays.values() if len(a.shape) == 1 and a.kind != "rom"]
        if not cands:
            return None
        a = self.d.choice(cands)
        var = self.fresh("e")
        self.emit(f"for {var} in {a.name}:")
        elem = a.elem if a.is_list and a.elem is not None else npval(var, a.dt)
        self.features.add("for v in array")
        return Loop(var, 0, 0, a.shape[0], elem=Ex(var, elem.samples, elem.lo, elem.hi))

    def stmt_for(self, depth: int) -> None:
        lp = self.elements_header() if self.d.chance(0.15) else None
        if lp is None and self.records and self.d.chance(0.2):
            lp = self.record_header()
        lp = lp or self.loop_header()
        if lp is None:
            self.stmt_assign()
            return
        self.loops.append(lp)
        self.work += self.trips
        try:
            with self.block():
                n = self.d.int(1, 3)
                exit_at = self.d.int(0, n) if self.d.chance(0.25) and not lp.unrolled else -1
                for k in range(n):
                    if k == exit_at:
                        self.loop_exit()
                    self.stmt(depth + 1)
                if exit_at == n:
                    self.loop_exit()
                if depth == 0 and not self.cond_depth and not lp.unrolled:
                    self.maybe_early_return()
        finally:
            self.loops.pop()

    def loop_exit(self) -> None:
        c = self.condition(0)
        kw = self.d.choice(("break", "continue")) if not self.loops[-1].is_while else "break"
        self.features.add(kw)
        self.emit(f"if {c.text}:")
        with self.branch():
            if self.d.chance(0.3):
                self.stmt_assign()
            self.emit(kw)

    def stmt_while(self, depth: int) -> None:
        d = self.d
        arrs = list(self.arrays.values())
        if not arrs:
            self.stmt_assign()
            return
        a = d.choice(arrs)
        n = a.shape[0]
        w = self.fresh("w")
        step = d.choice((1, 1, 2))
        self.emit(f"{w} = 0")
        self.emit(f"while {w} < {self.dim_text(a, 0)}:")
        lp = Loop(w, 0, n - 1, -(-n // step), is_while=True)
        self.features.add("while")
        self.loops.append(lp)
        self.work += self.trips
        try:
            with self.block():
                for _ in range(d.int(1, 2)):
                    self.stmt(depth + 1)
                if d.chance(0.2):
                    self.loop_exit()
                self.emit(f"{w} += {step}")
        finally:
            self.loops.pop()

    def stmt_marked_while(self) -> None:
        """A data-dependent `while` with a max-iterations mark the loop provably respects."""
        d = self.d
        name = self.fresh("u")
        src = self.expr(1, "int")
        if src.kind != "np" or src.dt not in INT_DTS:
            return
        bits = np.iinfo(src.dt).bits
        self.emit(
            f"{name} = abs(int({src.text}))" if bits <= 32 else f"{name} = abs(int({src.text} % 1000000))"
        )
        n = self.fresh("z")
        self.emit(f"{n} = 0")
        self.emit(f"while {name} > 0:  # partition: max-iterations {bits + 2}")
        with self.block():
            self.emit(f"{name} = {name} // {d.choice((2, 3, 4))}")
            self.emit(f"{n} += 1")
        self.vars[n] = Var(n, pyint(n, 0, bits + 2), "pyint_ro")
        self.features.add("while-marked")

    def stmt(self, depth: int) -> None:
        d = self.d
        nest = sum(1 for _ in self.loops)
        opts = [("store", 6), ("assign", 5), ("if", 3 if depth < 4 else 0)]
        if nest < MAX_NEST and self.work < 1500:
            opts += [("for", 3), ("while", 1)]
        if not self.cond_depth and len(self.helper_names) < 2:
            opts += [("divmod", 1), ("inplace_helper", 1)]
        what = d.weighted(opts)
        if what == "divmod":
            self.stmt_tuple_helper()
        elif what == "inplace_helper":
            self.stmt_inplace_helper()
        elif what == "store":
            self.stmt_store()
        elif what == "assign":
            self.stmt_assign()
        elif what == "if":
            self.stmt_if(depth)
        elif what == "for":
            self.stmt_for(depth)
        else:
            self.stmt_while(depth)

    def stmts(self, depth: int, n: int) -> None:
        for _ in range(n):
            self.stmt(depth)
