"""The generator's state and plumbing: the kernel's source lines and indentation, fresh names,
what is in scope (arrays, variables, scalar parameters, enclosing loops), and the dtype draws.

The generator is split by what it generates (expressions, statements, whole-array numpy,
the function); each part is a class over this one, so they share one state and one `Draw`,
and every random decision happens in the same order as in a single class.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from partition.fuzz.draw import Draw
from partition.fuzz.parts import Arr, Loop, Param, Rec, Var
from partition.fuzz.typed import FLOAT_DTS, INT_DTS, Ex

MAX_DEPTH = 3  # expression nesting
MAX_NEST = 3  # loop nesting
SIZES_1D = (1, 2, 3, 4, 5, 7, 8, 9, 13, 16)
SHAPES_2D = ((1, 1), (1, 4), (3, 1), (2, 3), (3, 3), (3, 4), (4, 4), (2, 5))
SHAPES_3D = ((2, 3, 4), (3, 2, 2), (1, 4, 3), (2, 2, 5))


class KernelBuilder:
    """State shared by the generator's parts (see `partition.fuzz.gen.Gen`)."""

    def __init__(self, draw: Draw, name: str, floats: bool):
        self.d = draw
        self.name = name
        self.floats = floats
        self.lines: list[str] = []
        self.ind = 1
        self.arrays: dict[str, Arr] = {}
        self.vars: dict[str, Var] = {}
        self.params: list[Param] = []
        self.scalars: dict[str, Ex] = {}  # scalar parameters
        self.records: dict[str, Rec] = {}  # record parameters (tuples, namedtuples, dataclasses)
        self.loops: list[Loop] = []
        self.globals_src: list[str] = []
        self.lut_dt = "int16"  # the dtype of the lookup table gathers read (LUT8)
        self.helpers_src: list[str] = []
        self.helper_names: list[str] = []
        self.features: set[str] = set()
        self.counter = 0
        self.n_counts = 0
        self.work = 0  # rough count of loop iterations, to keep kernels small
        self.cond_depth = 0  # inside if/elif/else: a helper called there might never run
        self.early_return = False
        self.uses_math = False  # the source needs `import math`
        self.math_outputs: list[str] = []  # arrays of numpy's approximate math: returned, never read

    # ------------------------------------------------------------ plumbing

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    @contextmanager
    def block(self) -> Iterator[None]:
        self.ind += 1
        mark = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == mark:
                self.emit("pass")
            self.ind -= 1

    def int_dt(self) -> str:
        return self.d.weighted([(t, 3 if t in ("int8", "int16", "int32", "uint8") else 2) for t in INT_DTS])

    def any_dt(self) -> str:
        if self.floats and self.d.chance(0.4):
            return self.d.choice(FLOAT_DTS)
        if self.d.chance(0.06):
            return "bool"
        return self.int_dt()

    @property
    def trips(self) -> int:
        n = 1
        for lp in self.loops:
            n *= max(1, lp.trips)
        return n

    @contextmanager
    def branch(self) -> Iterator[None]:
        self.cond_depth += 1
        try:
            with self.block():
                yield
        finally:
            self.cond_depth -= 1
