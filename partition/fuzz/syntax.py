"""Statements in the style algorithm collections write: tuple swaps, builtins over sequences,
loop variables read after their loop, `for ... else`, enumerate/zip/reversed/display loops,
comprehensions and rebound parameters.

They are drawn from a draw of their own (`extra`) and placed after the rest of the body,
before the return: a case whose extra draw adds none of them is exactly the case its seed
gave before these statements existed. They leave the generator's state as they found it
(their loop variables, lists and temporaries are gone afterwards), except that a rebound
parameter keeps its new interval for what follows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from partition.fuzz.draw import Draw
from partition.fuzz.parts import Arr, Loop
from partition.fuzz.stmts import StmtGen
from partition.fuzz.typed import (
    FLOAT_DTS,
    INT_DTS,
    PYINT_LIMIT,
    Ex,
    np_ctor,
    npval,
    pybool,
    pyfloat,
    pyint,
    quiet,
)


class SyntaxGen(StmtGen):
    """The statements above (part of `partition.fuzz.gen.Gen`)."""

    extra: Draw

    @contextmanager
    def drawing(self, draw: Draw) -> Iterator[None]:
        saved, self.d = self.d, draw
        try:
            yield
        finally:
            self.d = saved

    def syntax_tail(self) -> None:
        """Some of these statements at the end of the body, drawn from the extra draw."""
        with self.drawing(self.extra):
            if not self.d.chance(0.6):
                return
            for _ in range(self.d.int(1, 3)):
                self.stmt_syntax()

    def stmt_syntax(self) -> None:
        what = self.d.weighted([("swap", 3), ("reduce", 5), ("after", 2), ("forelse", 2), ("loop", 4),
                                ("listcomp", 2), ("rebind", 2)])  # fmt: skip
        {
            "swap": self.stmt_swap,
            "reduce": self.stmt_reduce,
            "after": self.stmt_after_loop,
            "forelse": self.stmt_for_else,
            "loop": self.stmt_seq_loop,
            "listcomp": self.stmt_listcomp,
            "rebind": self.stmt_rebind,
        }[what]()

    # ------------------------------------------------------------ using a value

    def sink(self, e: Ex) -> bool:
        """A statement storing `e` into a variable or an array element (converted as they need)."""
        names = [n for n, v in self.vars.items() if v.mode != "pyint_ro"]
        for _ in range(4):
            if names and self.d.chance(0.6):
                v = self.vars[self.d.choice(names)]
                text = self.assign_to(v, e)
                if text is not None and v.mode != "pyint_count":
                    self.emit(text)
                    return True
            cands = [a for a in self.arrays.values() if a.writable]
            if cands:
                a = self.d.choice(cands)
                value = self.store_value(a, e)
                if value is not None:
                    self.emit(f"{self.load(a).text} = {value.text}")
                    return True
        return False

    def element(self, a: Arr, var: str) -> Ex:
        elem = a.elem if a.is_list and a.elem is not None else npval(var, a.dt)
        return Ex(var, elem.samples, elem.lo, elem.hi)

    def one_d(self, writable_lists: bool = True) -> list[Arr]:
        return [
            a
            for a in self.arrays.values()
            if len(a.shape) == 1 and (writable_lists or not (a.is_list and a.writable))
        ]

    def source(self, var: str) -> tuple[str, Loop] | None:
        """A sequence to iterate and the loop variable's description: an array, list, slice,
        reversed() or range()."""
        d = self.d
        arrs = self.one_d(writable_lists=False)
        how = d.weighted([("arr", 5 if arrs else 0), ("slice", 2 if arrs else 0), ("rev", 1 if arrs else 0),
                          ("range", 2), ("display", 1)])  # fmt: skip
        if how == "range":
            n = d.choice((1, 3, 4, 7))
            start = d.int(0, 2)
            return f"range({start}, {start + n})", Loop(var, start, start + n - 1, n)
        if how == "display":
            vals = [d.choice((-3, -1, 0, 2, 5, 9, 100)) for _ in range(d.int(1, 4))]
            return f"({', '.join(map(str, vals))},)", Loop(
                var, min(vals), max(vals), len(vals), elem=pyint(var, min(vals), max(vals))
            )
        a = d.choice(arrs)
        n = a.shape[0]
        elem = self.element(a, var)
        if how == "slice" and n > 1:
            k = d.int(1, n - 1)
            text, trips = d.choice(
                ((f"{a.name}[{k}:]", n - k), (f"{a.name}[:{k}]", k), (f"{a.name}[::-2]", (n + 1) // 2))
            )
            return text, Loop(var, 0, 0, trips, elem=elem)
        if how == "rev":
            return f"reversed({a.name})", Loop(var, 0, 0, n, elem=elem)
        return a.name, Loop(var, 0, 0, n, elem=elem)

    def using(self, loops: tuple[Loop, ...], want: str = "") -> Ex:
        """An expression that reads one of the loop variables (most of the time)."""
        if want != "bool" and self.d.chance(0.8):
            lp = self.d.choice(loops)
            var = lp.elem if lp.elem is not None else pyint(lp.var, lp.lo, lp.hi)
            for _ in range(4):
                e = self.binop(self.d.choice(("+", "-", "*", "^", "//")), var, self.operand(1, want or "int"))
                if e is not None and not (want == "int" and e.is_float):
                    return e
            if not (want == "int" and var.is_float):
                return var
        if want == "bool" and self.d.chance(0.7):
            lp = self.d.choice(loops)
            var = lp.elem if lp.elem is not None else pyint(lp.var, lp.lo, lp.hi)
            c = self.cmp(
                self.d.choice(("<", ">", "==", "!=")), var, self.operand(1, "" if var.is_float else "int")
            )
            if c is not None:
                return c
        return self.expr(1, want)

    @contextmanager
    def bound(self, *loops: Loop) -> Iterator[None]:
        self.loops.extend(loops)
        try:
            yield
        finally:
            del self.loops[len(self.loops) - len(loops) :]

    # ------------------------------------------------------------ statements

    def stmt_swap(self) -> None:
        """`a[i], a[j] = a[j], a[i]`, `x, y = y, x` or `x, a[i] = a[j], x`."""
        d = self.d
        arrs = [a for a in self.arrays.values() if a.writable]
        pairs = [
            (u, v)
            for u in self.vars.values()
            for v in self.vars.values()
            if u.name < v.name and u.mode == v.mode == "np" and u.ex.key == v.ex.key
        ]
        if not arrs and not pairs:
            return
        how = d.weighted(
            [("elems", 4 if arrs else 0), ("vars", 2 if pairs else 0), ("mixed", 2 if arrs else 0)]
        )
        if how == "elems":
            a = d.choice(arrs)
            p, q = self.load(a).text, self.load(a).text
            self.emit(f"{p}, {q} = {q}, {p}")
        elif how == "vars":
            u, v = d.choice(pairs)
            self.emit(f"{u.name}, {v.name} = {v.name}, {u.name}")
        elif how == "mixed":
            a = d.choice(arrs)
            src, dst = self.load(a), self.load(a)
            cands = [v for v in self.vars.values() if v.mode == "np" and v.ex.key == src.key]
            if not cands or self.store_value(a, cands[0].ex) is None:
                return
            v = d.choice(cands)
            self.emit(f"{v.name}, {dst.text} = {src.text}, {v.name}")
        else:
            return
        self.features.add("tuple swap")

    def generator(self, want: str = "") -> tuple[str, Ex, int, bool] | None:
        """`E for v in SRC [if C]` (or over zip()): its text, E, the length and whether it is filtered."""
        d = self.d
        v = self.fresh("g_")
        arrs = self.one_d(writable_lists=False)
        if len(arrs) >= 2 and d.chance(0.25):
            a, b = d.choice(arrs), d.choice(arrs)
            w = self.fresh("g_")
            loops = (Loop(v, 0, 0, 1, elem=self.element(a, v)), Loop(w, 0, 0, 1, elem=self.element(b, w)))
            head, n = f"for {v}, {w} in zip({a.name}, {b.name})", min(a.shape[0], b.shape[0])
            self.features.add("zip()")
        else:
            src = self.source(v)
            if src is None:
                return None
            text, lp = src
            loops = (lp,)
            head, n = f"for {v} in {text}", lp.trips
        with self.bound(*loops):
            e = self.using(loops, want)
            cond = self.using(loops, "bool") if d.chance(0.3) else None
        filt = f" if {cond.text}" if cond is not None else ""
        return f"{e.text} {head}{filt}", e, n, cond is not None

    def stmt_reduce(self) -> None:
        """sum/min/max/any/all of an array, a list, a slice or a generator expression."""
        d = self.d
        kind = d.weighted([("sum", 4), ("min", 2), ("max", 2), ("any", 1), ("all", 1)])
        if kind in ("any", "all"):
            gen = self.generator("bool")
            if gen is None:
                return
            text, _e, _n, _f = gen
            self.features.add("any() / all()")
            self.sink(pybool(f"{kind}({text})"))
            return
        plain = self.one_d() if d.chance(0.35) else []
        if plain:
            a = d.choice(plain)
            text, e, n, filtered = a.name, self.element(a, a.name), a.shape[0], False
        else:
            gen = self.generator("int" if not self.floats else "")
            if gen is None:
                return
            text, e, n, filtered = gen
            text = f"({text})"
        if e.kind == "arr" or (kind != "sum" and filtered):
            return
        if kind != "sum":
            self.features.add("min() / max() of a sequence")
            self.sink(Ex(f"{kind}({text})", e.samples, e.lo, e.hi))
            return
        start = ""
        if e.kind in ("int", "bool"):
            lo, hi = min(0, n * e.lo), max(0, n * e.hi)
            if max(abs(lo), abs(hi)) > PYINT_LIMIT:
                return
            result = pyint(f"sum({text})", lo, hi)
        else:
            if filtered:  # an empty sum is the start: give it the sum's type
                if e.kind == "float":
                    start = ", 0.0"
                elif e.dt != "bool":
                    start = f", {np_ctor(e.dt)}(0)"
                else:
                    return
            r = quiet(lambda: 0 + e.s + e.s)
            if r is None:
                return
            result = Ex(f"sum({text}{start})", (r,))
        self.features.add("sum() of a sequence")
        self.sink(result)

    def counted_loop(self) -> tuple[str, int] | None:
        arrs = list(self.arrays.values())
        if not arrs:
            return None
        a = self.d.choice(arrs)
        return self.dim_text(a, 0), a.shape[0]

    def stmt_after_loop(self) -> None:
        """A loop left by `break` (or not), then its variable read after it."""
        head = self.counted_loop()
        if head is None:
            return
        dim, n = head
        i = self.fresh("i_")
        self.emit(f"for {i} in range({dim}):")
        with self.bound(Loop(i, 0, n - 1, n)), self.block():
            if self.d.chance(0.5):
                self.stmt(2)
            c = self.condition(1)
            self.emit(f"if {c.text}:")
            with self.block():
                self.emit("break")
        e = self.binop(self.d.choice(("+", "*", "-")), pyint(i, 0, n - 1), self.operand(1, "int"))
        self.features.add("loop variable after its loop")
        self.sink(e or pyint(i, 0, n - 1))

    def stmt_for_else(self) -> None:
        """`for v in seq: ... break ... else: ...`."""
        v = self.fresh("f_")
        src = self.source(v)
        if src is None:
            return
        text, lp = src
        self.emit(f"for {v} in {text}:")
        with self.bound(lp), self.block():
            c = self.condition(1)
            self.emit(f"if {c.text}:")
            with self.block():
                if self.d.chance(0.6):
                    self.stmt_assign()
                self.emit("break")
            if self.d.chance(0.5):
                self.stmt(2)
        self.emit("else:")
        with self.block():
            self.stmt(2)
        self.features.add("for ... else")

    def stmt_seq_loop(self) -> None:
        """for over enumerate(), zip(), reversed(), a slice, a display or a 2-D array's rows."""
        d = self.d
        arrs = self.one_d(writable_lists=False)
        rows = [a for a in self.arrays.values() if len(a.shape) == 2 and a.kind != "rom"]
        how = d.weighted([("enumerate", 3 if arrs else 0), ("zip", 2 if len(arrs) > 1 else 0), ("seq", 3),
                          ("rows", 1 if rows else 0), ("revrange", 1)])  # fmt: skip
        if how == "enumerate":
            a = d.choice(arrs)
            i, v = self.fresh("e_"), self.fresh("e_")
            s = d.choice((0, 0, 1, 3))
            n = a.shape[0]
            head = f"for {i}, {v} in enumerate({a.name}{f', {s}' if s else ''}):"
            loops = (Loop(i, s, s + n - 1, n), Loop(v, 0, 0, n, elem=self.element(a, v)))
            self.features.add("enumerate()")
        elif how == "zip":
            a, b = d.choice(arrs), d.choice(arrs)
            p, q = self.fresh("z_"), self.fresh("z_")
            n = min(a.shape[0], b.shape[0])
            head = f"for {p}, {q} in zip({a.name}, {b.name}):"
            loops = (Loop(p, 0, 0, n, elem=self.element(a, p)), Loop(q, 0, 0, n, elem=self.element(b, q)))
            self.features.add("zip()")
        elif how == "rows":
            m = d.choice(rows)
            r, c = self.fresh("row_"), d.int(0, m.shape[1] - 1)
            self.emit(f"for {r} in {m.name}:")
            with self.block():
                e = self.element(m, f"{r}[{c}]")
                agg = d.choice((e, pyint(f"len({r})", m.shape[1], m.shape[1])))
                if not self.sink(agg):
                    self.emit("pass")
            self.features.add("for row in a 2-D array")
            return
        elif how == "revrange":
            head_n = self.counted_loop()
            if head_n is None:
                return
            dim, n = head_n
            i = self.fresh("r_")
            head = f"for {i} in reversed(range({dim})):"
            loops = (Loop(i, 0, n - 1, n),)
            self.features.add("reversed()")
        else:
            v = self.fresh("s_")
            src = self.source(v)
            if src is None:
                return
            text, lp = src
            head, loops = f"for {v} in {text}:", (lp,)
            self.features.add("for over a slice, display or reversed()")
        self.emit(head)
        with self.bound(*loops), self.block():
            self.stmts(2, d.int(1, 2))
            if d.chance(0.2):
                self.loop_exit()

    def stmt_listcomp(self) -> None:
        """`t = [E for v in SRC]` (or a 2-D one), then elements of t used."""
        d = self.d
        name = self.fresh("lst_")
        two_d = d.chance(0.25)
        if two_d:
            n, m = d.int(1, 3), d.int(1, 4)
            i, j = self.fresh("c_"), self.fresh("c_")
            loops = (Loop(i, 0, n - 1, n), Loop(j, 0, m - 1, m))
            with self.bound(*loops):
                e = self.using(loops, "int" if not self.floats else "")
            text = f"[[{e.text} for {j} in range({m})] for {i} in range({n})]"
            shape: tuple[int, ...] = (n, m)
        else:
            v = self.fresh("c_")
            src = self.source(v)
            if src is None:
                return
            stext, lp = src
            with self.bound(lp):
                e = self.using((lp,), "int" if not self.floats else "")
            text, shape = f"[{e.text} for {v} in {stext}]", (lp.trips,)
        if e.kind == "arr" or shape[0] == 0:
            return
        if e.kind == "int":
            if max(abs(e.lo), abs(e.hi)) > PYINT_LIMIT:
                return
            arr = Arr(name, "int64", shape, "list", elem=pyint("_", e.lo, e.hi), lo=e.lo, hi=e.hi)
        elif e.kind == "float":
            arr = Arr(name, "float64", shape, "list", elem=pyfloat("_"))
        elif e.kind == "bool":
            arr = Arr(name, "bool", shape, "list", elem=pybool("_"))
        else:
            arr = Arr(name, e.dt, shape, "list", elem=Ex("_", e.samples))
        self.emit(f"{name} = {text}")
        self.arrays[name] = arr
        try:
            use = self.load(arr)
            if len(shape) == 1 and e.kind in ("int", "np") and e.dt not in FLOAT_DTS and d.chance(0.4):
                use = self.reduce_list(arr, e) or use
            self.sink(use)
        finally:
            del self.arrays[name]
        self.features.add("list comprehension")

    def reduce_list(self, arr: Arr, e: Ex) -> Ex | None:
        if e.kind == "int":
            n = arr.shape[0]
            return pyint(f"sum({arr.name})", min(0, n * e.lo), max(0, n * e.hi))
        r = quiet(lambda: 0 + e.s)
        return None if r is None else Ex(f"max({arr.name})", e.samples)

    def stmt_rebind(self) -> None:
        """`p = f(p)` for a scalar parameter, then a statement using it."""
        d = self.d
        cands = [n for n, e in self.scalars.items() if e.kind in ("int", "np", "float")]
        if not cands:
            return
        p = d.choice(cands)
        cur = self.scalars[p]
        if cur.kind == "int":
            op, c = d.choice((("+", 1), ("-", 3), ("//", 2), ("*", -1)))
            new = pyint(p, *sorted((_apply(op, cur.lo, c), _apply(op, cur.hi, c))))
            text = f"{p} = {p} {op} {c}" if d.chance(0.7) else f"{p} = abs({p})"
            if text.endswith("abs(" + p + ")"):
                new = pyint(
                    p,
                    0 if cur.lo <= 0 <= cur.hi else min(abs(cur.lo), abs(cur.hi)),
                    max(abs(cur.lo), abs(cur.hi)),
                )
        elif cur.kind == "np" and cur.dt in INT_DTS:
            text = f"{p} = {p} ^ {np_ctor(cur.dt)}(1)"
            new = npval(p, cur.dt)
        else:
            text = f"{p} = abs({p})" if cur.kind == "float" or cur.dt in FLOAT_DTS else ""
            new = Ex(p, cur.samples)
            if not text:
                return
        self.emit(text)
        self.scalars[p] = Ex(p, new.samples, new.lo, new.hi)
        self.features.add("rebound parameter")
        e = self.binop("+", self.scalars[p], self.operand(1, "int" if not self.floats else ""))
        self.sink(e or self.scalars[p])


def _apply(op: str, x: int, c: int) -> int:
    return {"+": x + c, "-": x - c, "//": x // c, "*": x * c}[op]
