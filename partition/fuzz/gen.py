"""Random well-typed numeric Python kernels, with inputs, for differential fuzzing.

A case is a small Python module: one kernel function (and sometimes helper functions and
module-level constants it uses) in the styles the frontend accepts — counted and `while`
loops, `if`/`elif`/`else`, `break`/`continue`, element reads and writes with computed and
negative indices, reductions, whole-array numpy, helper calls, tuples, lists, and (from a
draw of their own, at the end of the body: `partition.fuzz.syntax`) tuple swaps, builtins
over sequences, loop variables read after their loop, `for ... else`, enumerate/zip loops,
comprehensions and rebound parameters — over
numpy int8..uint64 scalars and arrays, Python ints, bools and (for the C-simulation path)
floats, and tuples, namedtuples and dataclasses of those as arguments, with array sizes that include 1 and odd lengths. Its inputs mix random values over
each dtype's whole range with the extremes (MIN, MAX, 0, -1, 1).

Every expression is typed while it is built: it carries sample values of its Python/numpy
type (for a Python int, the ends of its interval), and an operation is only generated when
numpy itself, applied to the samples, neither raises nor changes type unexpectedly — so the
kernel runs under Python without OverflowError, ZeroDivisionError or IndexError, Python
ints stay far inside 64 bits, and every variable keeps one type. Undefined behaviour in
numpy (float -> int casts out of range) and results that depend on summation order
(numpy's pairwise float sums, BLAS dot products) are not generated: the golden model must
be exact.
"""

from __future__ import annotations

import numpy as np

from partition.fuzz.builder import SHAPES_2D, SHAPES_3D, SIZES_1D
from partition.fuzz.draw import Draw, SeededDraw
from partition.fuzz.inputs import input_calls, unseen_calls
from partition.fuzz.parts import Arr, Case, Param
from partition.fuzz.records import RecordGen
from partition.fuzz.syntax import SyntaxGen
from partition.fuzz.typed import np_ctor, npval, pybool, pyfloat, pyint
from partition.fuzz.wholearray import ArrayGen


class Gen(SyntaxGen, ArrayGen, RecordGen):
    """A kernel function: its parameters, a ROM, the body's statements and its returns."""

    # ------------------------------------------------------------ parameters

    def make_params(self) -> None:
        n_arr = self.d.weighted([(1, 3), (2, 4), (3, 3), (4, 1)])
        for _ in range(n_arr):
            name = self.fresh(self.d.choice(("x", "a", "b", "w", "data", "v")))
            if self.d.chance(0.12):
                self.add_list_param(name)
                continue
            dt = self.any_dt()
            shape = (self.d.choice(SIZES_1D),) if self.d.chance(0.7) else self.d.choice(SHAPES_2D)
            if self.d.chance(0.1):
                shape = self.d.choice(SHAPES_3D)
                self.features.add("array3d")
            mode = self.d.weighted([("full", 6), ("small", 3), ("bits", 1)])
            self.params.append(Param(name, "array", dt, shape, mode=mode))
            self.arrays[name] = Arr(name, dt, shape, writable=self.d.chance(0.3))
        for _ in range(self.d.weighted([(0, 2), (1, 4), (2, 3), (3, 1)])):
            self.add_scalar_param()
        if self.d.chance(0.15):
            self.add_record_param()

    def add_list_param(self, name: str) -> None:
        shape = (self.d.choice(SIZES_1D),) if self.d.chance(0.8) else self.d.choice(SHAPES_2D)
        if self.floats and self.d.chance(0.3):
            self.params.append(Param(name, "list", "float64", shape, flo=-100.0, fhi=100.0))
            self.arrays[name] = Arr(name, "float64", shape, "list", elem=pyfloat("_"))
            return
        if self.d.chance(0.1):
            self.params.append(Param(name, "list", "bool", shape))
            self.arrays[name] = Arr(name, "bool", shape, "list", elem=pybool("_"))
            return
        lo, hi = self.d.choice(((-100, 100), (0, 255), (-30000, 30000), (-(10**9), 10**9), (0, 15)))
        self.params.append(Param(name, "list", "int64", shape, lo=lo, hi=hi))
        self.arrays[name] = Arr(name, "int64", shape, "list", writable=self.d.chance(0.3),
                                elem=pyint("_", lo, hi), lo=lo, hi=hi)  # fmt: skip

    def add_scalar_param(self) -> None:
        what = self.d.weighted([("npscalar", 4), ("int", 4), ("float", 2 if self.floats else 0), ("bool", 1)])
        name = self.fresh(self.d.choice(("s", "k", "n", "t", "c")))
        if what == "npscalar":
            dt = self.any_dt()
            self.params.append(Param(name, what, dt, mode=self.d.choice(("full", "small", "bits"))))
            self.scalars[name] = npval(name, dt)
        elif what == "int":
            lo, hi = self.d.choice(((0, 16), (-8, 8), (0, 7), (-1000, 1000), (1, 5), (0, 1 << 20)))
            self.params.append(Param(name, what, lo=lo, hi=hi))
            self.scalars[name] = pyint(name, lo, hi)
        elif what == "float":
            self.params.append(Param(name, what, flo=-4.0, fhi=4.0))
            self.scalars[name] = pyfloat(name)
        else:
            self.params.append(Param(name, what))
            self.scalars[name] = pybool(name)

    # ------------------------------------------------------------ the function

    def rom(self) -> None:
        """A module-level constant table (a ROM in the kernel)."""
        d = self.d
        name = f"TAB{self.fresh('_')}".upper()
        dt = self.int_dt()
        n = d.choice((3, 4, 5, 8))
        info = np.iinfo(dt)
        vals = [int(np.clip(d.int(-300, 300), info.min, info.max)) for _ in range(n)]
        self.globals_src.append(f"{name} = np.array({vals}, dtype={np_ctor(dt)})")
        self.arrays[name] = Arr(name, dt, (n,), "rom")
        self.features.add("rom")

    def returns(self, out: Arr | None) -> None:
        d = self.d
        items: list[str] = list(self.math_outputs)
        if out is not None:
            items.append(out.name)
        scal = [v for v in self.vars.values() if v.mode != "pyint_ro"]
        if scal and (out is None or d.chance(0.6)):
            items.append(d.choice(scal).name)
        extra = [a for a in self.arrays.values() if a.kind == "ndarray" and a.name.startswith(("t", "mm"))]
        if extra and d.chance(0.3):
            items.append(d.choice(extra).name)
        if not items:
            if any(a.writable for a in self.arrays.values()):
                self.lines = [ln.replace("return @RETURN@", "return") for ln in self.lines]
                return  # the kernel works in place
            items.append(self.expr(0).text)
        if len(items) > 1:
            self.features.add("tuple")
        text = f"return {', '.join(items)}"
        self.emit(text)
        early = text
        if any(x in self.arrays or x in self.math_outputs for x in items):
            early = "pass"  # the frontend returns an array from one place only
            self.features.discard("early-return")
        self.lines = [ln.replace("return @RETURN@", early) for ln in self.lines]

    def function(self) -> str:
        d = self.d
        self.make_params()
        if d.chance(0.2):
            self.rom()
        self.declare_vars()
        out = self.declare_out()
        for _ in range(d.int(1, 3)):
            for _attempt in range(5):  # some choices find nothing to do: try another
                mark = len(self.lines)
                r = d.weighted(
                    [("loop", 8), ("numpy", 6), ("time", 2), ("while", 1), ("marked", 1), ("straight", 2)]
                )
                if r == "loop":
                    self.stmt_for(0)
                elif r == "numpy":
                    self.stmt_numpy()
                    if len(self.lines) > mark:
                        self.features.add("numpy")
                elif r == "time":
                    self.stmt_time_loop()
                elif r == "while":
                    self.stmt_while(0)
                elif r == "marked":
                    self.stmt_marked_while()
                else:
                    self.stmts(0, 2)
                if len(self.lines) > mark:
                    break
        self.syntax_tail()
        self.returns(out)
        args = ", ".join(p.name for p in self.params)
        head = [f"def {self.name}({args}):"]
        return "\n".join(head + self.lines)


UNSEEN_CALLS = 2  # calls per case beyond the profile (partition.fuzz.inputs.unseen_calls)


def generate(seed: int, *, float_fraction: float = 0.25, draw: Draw | None = None, calls: int = 4) -> Case:
    """The case of `seed` (a pure function of it, or of `draw` when given)."""
    d = draw or SeededDraw(seed)
    floats = d.chance(float_fraction)
    name = f"fz{seed}"
    g = Gen(d, name, floats)
    # the statements of partition.fuzz.syntax draw from a draw of their own, so that every
    # other decision, and a case they add nothing to, stays what the seed gave before them
    g.extra = draw if draw is not None else SeededDraw(seed + 0x5EED0000)
    fn = g.function()
    imports = ["import math", ""] if g.uses_math else []
    parts = [f'"""Generated by partition.fuzz (seed {seed})."""', "", *imports, "import numpy as np", ""]
    if g.globals_src:
        parts += [*g.globals_src, ""]
    for h in g.helpers_src:
        parts += ["", h, ""]
    parts += ["", fn, ""]
    source = "\n".join(parts)
    return Case(
        seed,
        name,
        source,
        input_calls(g.params, seed, calls),
        floats,
        list(g.helper_names),
        sorted(g.features),
        unseen_calls(g.params, seed, UNSEEN_CALLS),
    )
