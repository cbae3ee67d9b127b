"""What a generated kernel is made of (its arrays, parameters, local variables, loops) and the
generated case itself (`Case`); plain records the generator's parts pass around.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from partition.fuzz.typed import Ex, arr_sample, pyint


@dataclass
class Arr:
    """An array the kernel can read (and write, when `writable`)."""

    name: str
    dt: str  # numpy dtype name; for lists the element type below decides
    shape: tuple[int, ...]
    kind: str = "ndarray"  # ndarray | list | rom
    writable: bool = False
    elem: Ex | None = None  # lists: what reading an element gives
    lo: int = 0  # input value range (Python int lists)
    hi: int = 0

    @property
    def is_list(self) -> bool:
        return self.kind == "list"

    def sample(self) -> np.ndarray:
        return arr_sample(self.dt, self.shape)


@dataclass
class Param:
    name: str
    what: str  # array | list | npscalar | int | float | bool
    dt: str = ""
    shape: tuple[int, ...] = ()
    lo: int = 0
    hi: int = 0
    flo: float = 0.0
    fhi: float = 0.0
    mode: str = "full"  # input values: full (whole dtype range), small, bits (0..7)
    record: str = ""  # what "record": tuple | namedtuple | dataclass (dt: its class name)
    fields: list[Param] = field(default_factory=list)  # a record's fields (name: the field's)


@dataclass
class Var:
    """A local scalar: its type stays `ex`'s for the whole function."""

    name: str
    ex: Ex
    mode: str = "np"  # np | pyint_mod | pyint_count | pyfloat | bool
    modulus: int = 0


@dataclass
class Loop:
    var: str
    lo: int
    hi: int  # interval of the loop variable
    trips: int
    is_while: bool = False
    elem: Ex | None = None  # `for v in a:`: v is an element, not an index
    unrolled: bool = False  # over a record's items: no break, continue or return inside


@dataclass
class Rec:
    """A record parameter: its kind, class, and what reading each field gives (by field name)."""

    name: str
    kind: str  # tuple | namedtuple | dataclass
    cls: str
    fields: list[tuple[str, Ex]]

    def joined(self) -> Ex | None:
        """What any item is when all are Python ints (their intervals joined), else None."""
        exs = [e for _, e in self.fields]
        if self.kind == "dataclass" or not all(e.kind == "int" for e in exs):
            return None
        return pyint("_", min(e.lo for e in exs), max(e.hi for e in exs))


@dataclass
class Case:
    """One generated kernel: the module text, the function's name and its calls."""

    seed: int
    name: str
    source: str
    calls: list[tuple[Any, ...]]
    floats: bool
    helpers: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    unseen: list[tuple[Any, ...]] = field(default_factory=list)  # calls the profile does not see
