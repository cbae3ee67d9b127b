"""Where the schedule keeps an array: the RAM (or bank RAMs) and its ports.

Scalars are registers; arrays are RAMs with a synchronous read (1 cycle) and two ports.
Array parameters get a local buffer (`<name>_buf`) whose elements narrower than the AXI bus
are packed into bus words (`ram_geometry`); an array a variant cyclic-partitions into F
banks is F RAMs of `bank_geometry`. The schedule reserves these ports, the estimator costs
these RAMs and the RTL backend instantiates them, so their shape is stated once, here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from partition.dtypes import DType
from partition.estimate import tables

RAM_PORTS = 2  # every RAM is true dual-port (a cyclic-partitioned array: 2 per bank)
OPAQUE = "opaque"  # bank frame of an access whose bank nothing bounds (it may hit any bank)


@dataclass
class RamInfo:
    name: str  # the RAM's name in the design (<param>_buf for array parameters)
    array: str  # IR array name
    kind: str  # buffer, local, rom
    elem_bits: int
    elems: int
    depth: int
    width: int
    per_word: int  # elements per RAM word (> 1 when packed)
    cost: tables.RamCost
    sites: int = 0  # access operations in the compute schedule
    banks: int = 1  # cyclic partitioning factor F: bank b holds the elements i with i mod F == b


def _elem_bits(dt: DType, in_memory: bool) -> int:
    """Bits of one array element: host layout for buffers (bool is a byte), else the type."""
    if dt.is_bool:
        return 8 if in_memory else 1
    return dt.bits


def ram_geometry(name: str, dt: DType, elems: int, kind: str, bus_bits: int) -> RamInfo:
    """Shape of the RAM holding an array: buffers pack narrow elements into bus words."""
    eb = _elem_bits(dt, kind == "buffer")
    if kind == "buffer" and eb < bus_bits:
        per_word = bus_bits // eb
        width, depth = bus_bits, max(1, math.ceil(elems / per_word))
    else:
        per_word, width, depth = 1, eb, max(1, elems)
    ram_name = f"{name}_buf" if kind == "buffer" else name
    return RamInfo(ram_name, name, kind, eb, elems, depth, width, per_word, tables.ram_cost(depth, width))


@dataclass(frozen=True)
class BankGeometry:
    """One bank of a cyclic-partitioned array (F banks): bank b holds the elements i with
    i mod F == b, Q of them a word (buffers packed like the bus words, so one bus beat is a
    word of each bank; else one element a word): element i is lane (i / F) mod Q of word
    i / (F Q) of bank i mod F."""

    f: int
    q: int
    elem_bits: int
    width: int
    depth: int
    aw: int
    nb: int  # write lanes (bytes of a buffer word; 1 for a local array)

    @property
    def lbf(self) -> int:
        return self.f.bit_length() - 1

    @property
    def lbq(self) -> int:
        return self.q.bit_length() - 1


def bank_geometry(ram: RamInfo, bus_bits: int) -> BankGeometry:
    """The banks of `ram` (its `banks` set) with a `bus_bits` m_axi: what the built-in RTL
    builds and the variants' resource estimate costs."""
    f, eb = ram.banks, ram.elem_bits
    q = max(1, bus_bits // eb // f) if ram.kind == "buffer" else 1
    width = q * eb
    depth = max(1, math.ceil(ram.elems / (f * q)))
    nb = width // 8 if ram.kind == "buffer" else 1
    return BankGeometry(f, q, eb, width, depth, max(1, (depth - 1).bit_length()), nb)
