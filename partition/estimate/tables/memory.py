"""Memory tables: RAM accesses, RAM blocks (BRAM18 or LUTRAM) and their depth muxes.

A RAM access is one cycle (synchronous read; `mem_cost`); an array of at most 1024 bits
is LUTRAM, a larger one cascaded RAMB18 blocks in the cheapest aspect ratio (`ram_cost`),
stacked in depth with a read mux and write decode per port (`bram_mux_luts`) and, for
LUTRAM, fabric registers on the read data (`ram_read_ff`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from partition.estimate.tables.device import OpCost, check_family, combinational, delay, mux_luts


def mem_cost(kind: str, family: str) -> OpCost:
    """Local RAM access (microarchitecture: synchronous read, 1 cycle, 2 ports).

    load: issued in a cycle with its address; data valid one cycle later after the
    RAM's clock-to-out and routing. store: address, data and write enable are
    captured by the RAM's input registers at the clock edge.
    """
    check_family(family)
    if kind == "load":
        ns, src = delay(family, "ram_read", 1)
        return OpCost(
            "load", 0, family, 0.0, 1, ns, 1, 0, 0, 0,
            f"microarchitecture: synchronous read, latency 1; data valid {ns} ns into the next cycle: {src}",
        )  # fmt: skip
    if kind == "store":
        return combinational(
            "store", 0, family, 0.0, 0,
            "microarchitecture: synchronous write; inputs are captured by the RAM's own input registers, "
            "the routing to them is covered by the clock-uncertainty margin",
        )  # fmt: skip
    raise ValueError(kind)


# (depth, width) aspect ratios of one RAMB18 (microarchitecture list; UG473/UG573)
BRAM18_SHAPES = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
BRAM18_SOURCE = (
    "UG473 (7-series) / UG573 (UltraScale) RAMB18 aspect ratios 16Kx1, 8Kx2, 4Kx4, 2Kx9, 1Kx18, 512x36 "
    "(512x36 only as simple dual port in the primitive; the microarchitecture lists it), cascaded: "
    "count = min over shapes of ceil(depth/d) x ceil(width/w)"
)
LUTRAM_MAX_BITS = 1024
LUTRAM_SOURCE = (
    "microarchitecture: arrays of at most 1024 bits map to LUTRAM, one LUT per 64 bits (UG474: a SLICEM "
    "LUT6 is a 64x1 RAM): ceil(depth/64) x width LUTs"
)


@dataclass(frozen=True)
class RamCost:
    impl: str  # "bram18" or "lutram"
    depth: int
    width: int
    bram18: int
    lut: int
    source: str
    depth_blocks: int = 1  # blocks stacked in depth (> 1: a read mux selects among them)


def ram_cost(depth: int, width: int) -> RamCost:
    bits = depth * width
    if bits <= LUTRAM_MAX_BITS:
        return RamCost("lutram", depth, width, 0, math.ceil(depth / 64) * width, LUTRAM_SOURCE)
    count, blocks = min(
        (math.ceil(depth / d) * math.ceil(width / w), math.ceil(depth / d)) for d, w in BRAM18_SHAPES
    )
    return RamCost("bram18", depth, width, count, 0, BRAM18_SOURCE, blocks)


BRAM_MUX_SOURCE = (
    "derived: a RAM deeper than its cheapest block shape is stacked in depth (of the shapes with the "
    "fewest blocks, the one with the fewest levels); each read port selects its word among the levels "
    "with a LUT6 4:1 mux tree (the MUXF7/F8 that yosys adds are not LUTs), each write port decodes one "
    "enable per level; checked against yosys synth_xilinx -family xc7 on the built-in RAM alone, both "
    "ports used: 9216x32 = 9 levels, 274 LUT (model 210); 9216x16 = 116 LUT (model 114); in a kernel "
    "synthesized flat, logic of an unused port goes and the model's lower figure fits better"
)


def ram_read_ff(cost: RamCost, read_ports: int) -> int:
    """Fabric FFs of a RAM's registered read data on the ports the compute datapath reads
    through: the microarchitecture reads synchronously (data one cycle after the address). A
    block RAM has that register inside; distributed RAM (UG474: asynchronous read) takes one
    FF per data bit and read port in the fabric (yosys on dense_int32 unroll4_wide64: its 64
    8-bit LUTRAM banks of w, one compute read port each, keep 512 such FFs). A ROM is not
    charged (the model passes 0 ports): its words are constants, which synthesis turns into
    logic (yosys on the ROM banks of bandpass_q15 and gaussian_blur3 keeps no data FFs)."""
    return cost.width * read_ports if cost.impl == "lutram" else 0


def bram_mux_luts(cost: RamCost, read_ports: int, write_ports: int) -> int:
    """LUTs that select among the depth levels of a block RAM stacked in depth."""
    n = cost.depth_blocks
    if cost.impl != "bram18" or n <= 1:
        return 0
    return read_ports * mux_luts(cost.width, n) + write_ports * n
