"""Implementation variants of a kernel: the HLS directives the ILP may choose between.

A variant is one set of directives for the kernel's innermost loops (the loops
the base microarchitecture pipelines) and the arrays they access:

* ``base``: what `estimate_kernel` costs and the built-in RTL builds — every
  innermost loop pipelined at the II its recurrences and memory ports allow,
  no unrolling, arrays in one dual-port RAM each;
* ``seq``: the innermost loops not pipelined (``PIPELINE off``): one FSM
  iteration after another, no pipeline valid bits, longer;
* ``unrollU`` (U = 2, 4): every innermost loop with constant bounds and at
  least U iterations is unrolled by U and stays pipelined (when U does not
  divide the trip count, copies past the end are guarded by an exit check,
  as Vitis HLS does); each array it
  reaches is cyclic-partitioned so the U copies of an access land in U
  different banks, which gives the loop 2U ports on it. Operators are
  replicated (LUT/FF/DSP grow), each bank is its own RAM (BRAM/LUTRAM
  grow), and the loop runs ceil(trip / U) iterations;
* ``unrollall``: each outermost nest of constant loops inside another loop with at
  most 32 copies of its body (a filter's taps, a 3 x 3 window) unrolled whole, so
  the loop around it is the one pipelined; arrays partitioned so one iteration's
  accesses fall on the fewest banks;
* ``wideW`` and ``unrollU_wideW``: base or unrollU (or unrollall) with the kernel's m_axi
  ports W bits wide instead of the board's 32, W the width of the PS port
  the kernels reach DDR through (`hp_axi_bits`: 64 on Zynq-7000, 128 on
  Zynq UltraScale+). Each load and store beat carries W/8 bytes, so the
  transfer phases take about 32/W of their cycles; the buffers are packed
  into W-bit words (the RAM geometry follows the bus) and the AXI adapter
  grows with the data width (strobes, data registers). Only kernels with
  array arguments get one.
* ``permuted`` and ``permuted_unrollU``: the reduction loop of a matrix product (`for j: acc
  = 0; for k: acc += a[i, k] * b[k, j]`) moved outside the element loop
  (`partition.estimate.interchange`): each element keeps its own accumulator in a row of
  registers/RAM and sees its terms in Python's order (exact for floats too), and the
  innermost loop runs along a row of `b` with no chain from one iteration to the next, so it
  pipelines at II 1 where the reduction's add latency held it (a float add: 4-5 cycles);
  with U, that loop unrolled by U as for ``unrollU``. Offered only where the interchange
  applies;
* ``tiled`` and ``tiled_wideW``: the arrays a top-level loop passes over by rows are not
  buffered whole but moved through DDR a tile of rows at a time
  (`partition.estimate.tiling`): on-chip RAM no longer grows with the data, at the cost
  of a copy's setup and burst latency per tile. The only variant for arrays larger than
  the board's RAM.

How a variant is estimated. Unrolling is done on the IR
(`partition.estimate.unrolling.unroll_kernel`: the
body repeated U times with the loop variable offset, the step multiplied by
U — the same iterations in the same order, checked against the reference
interpreter in the tests), and the result goes through the same static
schedule and tables as the base estimate (`partition.estimate.schedule`),
told the partitioned arrays' banks (two ports each; accesses share a cycle
only where the schedule can tell they reach different banks) and the loops
left sequential. The model costs the RAMs of a partitioned array as its F
banks (`schedule.bank_geometry`, what the built-in RTL builds; `tables.ram_cost`
and the depth-level muxes per bank). Nothing else changes: the interface, the
load/store phases and the register map are the base variant's.

When an array's accesses in a loop are not all affine in the loop variable
with one non-zero stride, partitioning cannot separate the copies and the
array keeps its two ports: the schedule then raises the loop's II, and the
variant shows it. A variant that is no faster than another and needs no less
of any resource (LUT, FF, DSP, BRAM18) is dropped (`pareto`), so the ILP
only sees real trade-offs; ``base`` is always kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.estimate.interchange import interchange_reductions
from partition.estimate.lengths import typical_loops
from partition.estimate.model import Estimate, estimate_kernel
from partition.estimate.schedule import KernelSchedule
from partition.estimate.tiling import TILE_BYTES, tile_kernel
from partition.estimate.unrolling import (  # noqa: F401 (innermost_loops, unrollable: the package's API)
    innermost_loops,
    unroll_kernel,
    unroll_plan,
    unrollable,
)

BASE = "base"
UNROLL_FACTORS = (2, 4)


@dataclass(frozen=True)
class Directives:
    """The HLS directives of one variant (what the generated C++ carries as pragmas)."""

    name: str
    sequential: tuple[str, ...] = ()  # innermost loops with PIPELINE off
    unroll: tuple[tuple[str, int], ...] = ()  # (loop label, factor)
    partition: tuple[tuple[str, int], ...] = ()  # (array, cyclic factor on the flat array)
    bus_bits: int = 0  # m_axi data width; 0: the board's kernel_axi_bits
    tile: int = 0  # bytes of rows per tile of the tiled arrays (`tile_kernel`); 0: arrays whole
    permute: bool = False  # reduction loops moved outward (`interchange_reductions`) first

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sequential": list(self.sequential),
            "unroll": {label: f for label, f in self.unroll},
            "partition": {a: f for a, f in self.partition},
            "bus_bits": self.bus_bits,
            **({"tile": self.tile} if self.tile else {}),
            **({"permute": True} if self.permute else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Directives:
        return cls(
            name=str(data["name"]),
            sequential=tuple(data.get("sequential", ())),
            unroll=tuple(sorted((str(k), int(v)) for k, v in data.get("unroll", {}).items())),
            partition=tuple(sorted((str(k), int(v)) for k, v in data.get("partition", {}).items())),
            bus_bits=int(data.get("bus_bits", 0)),
            tile=int(data.get("tile", 0)),
            permute=bool(data.get("permute", False)),
        )

    def bus(self, board: Board) -> int:
        """The kernel's m_axi data width on `board` with these directives."""
        return self.bus_bits or int(board.interface["kernel_axi_bits"])

    def describe(self) -> str:
        """One line for reports: 'L2 unrolled ×2; x, h cyclic ×2'."""
        parts = []
        if self.permute:
            parts.append("reduction loops moved outward")
        if self.sequential:
            parts.append(f"{', '.join(self.sequential)} not pipelined")
        if self.unroll:
            parts.append(", ".join(f"{label} unrolled ×{f}" for label, f in self.unroll))
        if self.partition:
            parts.append(", ".join(f"{a} cyclic ×{f}" for a, f in self.partition))
        if self.bus_bits:
            parts.append(f"{self.bus_bits}-bit m_axi")
        if self.tile:
            parts.append(f"arrays tiled through DDR, {self.tile:,} bytes of rows a tile")
        return "; ".join(parts) or "innermost loops pipelined"


@dataclass
class KernelVariant:
    directives: Directives
    estimate: Estimate
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.directives.name


# ----------------------------------------------------------------------------- estimates


def estimate_variant(
    kernel: ir.Kernel, board: Board, d: Directives, schedule: KernelSchedule | None = None
) -> Estimate:
    """The model estimate of one call of `kernel` built with directives `d`.

    `schedule`: the variant's schedule (of `kernel` unrolled as `d` says, on `board`) when
    the caller has made it already; it is then not made again."""
    if d.name == BASE and not (d.sequential or d.unroll or d.partition or d.bus_bits or d.tile or d.permute):
        est = estimate_kernel(kernel, board, schedule=schedule)
    else:
        k = build_kernel(kernel, board, d)
        est = estimate_kernel(
            k,
            board,
            array_banks=dict(d.partition),
            sequential=frozenset(d.sequential),
            bus_bits=d.bus(board),
            schedule=schedule,
            typical=build_kernel(typical_loops(kernel), board, d) if d.tile and kernel.lengths else None,
        )
        est.notes.append(f"variant {d.name}: {d.describe()}")
    est.variant = d.name
    return est


def build_kernel(kernel: ir.Kernel, board: Board, d: Directives) -> ir.Kernel:
    """The IR both backends build for variant `d`: permuted (`interchange_reductions`), tiled
    (`tile_kernel`), then unrolled.

    The end of an AXI-Stream chain keeps its streamed array's buffer (`ir.with_streams`);
    when that array was the only one a tiled variant tiles, the variant builds it whole."""
    k = interchange_reductions(kernel) if d.permute else kernel
    if d.tile:
        tiled = tile_kernel(k, d.bus(board), d.tile)
        if isinstance(tiled, str) and not any(p.stream for p in k.params):
            raise ValueError(f"kernel {kernel.name}: variant {d.name} cannot tile it: {tiled}")
        k = k if isinstance(tiled, str) else tiled
    return unroll_kernel(k, dict(d.unroll)) if d.unroll else k


def _unrolled(
    kernel: ir.Kernel, factors: tuple[int | None, ...], prefix: str, **extra: Any
) -> list[Directives]:
    """`prefix`unrollU (U None: unrollall) for each factor that applies to `kernel`'s loops,
    with the cyclic partitions it needs (`unroll_plan`; `kernel`: the IR the labels are of)."""
    out = []
    for u in factors:
        plan = unroll_plan(kernel, u)
        if plan is not None:
            loops, parts = plan
            name = f"{prefix}unroll{u}" if u else f"{prefix}unrollall"
            out.append(
                Directives(
                    name, unroll=tuple(sorted(loops.items())), partition=tuple(sorted(parts.items())), **extra
                )
            )
    return out


def candidate_directives(kernel: ir.Kernel, board: Board | None = None) -> list[Directives]:
    """Every variant worth estimating for `kernel`, base first; with `board`, the burst-width
    variants its PS port allows."""
    out = [Directives(BASE)]
    inner = innermost_loops(kernel)
    if inner:
        out.append(Directives("seq", sequential=tuple(sorted(s.label for s in inner))))
    if inner:
        out += _unrolled(kernel, (*UNROLL_FACTORS, None), "")
    permuted = interchange_reductions(kernel)
    if permuted is not kernel:
        out.append(Directives("permuted", permute=True))
        out += _unrolled(permuted, UNROLL_FACTORS, "permuted_", permute=True)
    if board is not None and not isinstance(tile_kernel(kernel, out[0].bus(board)), str):
        out.append(Directives("tiled", tile=TILE_BYTES))
    wide = 0 if board is None else int(board.interface["hp_axi_bits"])
    if board is not None and kernel.arrays and wide > int(board.interface["kernel_axi_bits"]):
        for d in [d for d in out if not d.sequential]:
            name = f"wide{wide}" if d.name == BASE else f"{d.name}_wide{wide}"
            out.append(replace(d, name=name, bus_bits=wide))
    return out


def pareto(variants: list[KernelVariant]) -> list[KernelVariant]:
    """Drop every variant another one dominates (no slower, no larger anywhere); base stays."""

    def key(v: KernelVariant) -> tuple:
        return (v.estimate.cycles, *(getattr(v.estimate, r) for r in RESOURCES))

    kept = []
    for v in variants:
        kv = key(v)
        dominated = any(
            w is not v
            and all(a <= b for a, b in zip(key(w), kv))
            and (key(w) != kv or variants.index(w) < variants.index(v))
            for w in variants
        )
        if v.name == BASE or not dominated:
            kept.append(v)
    return kept


def kernel_variants(
    kernel: ir.Kernel,
    board: Board,
    *,
    base_only: bool = False,
    adjust: Callable[[KernelVariant], None] | None = None,
) -> list[KernelVariant]:
    """The variants of `kernel` the ILP chooses between (base first, dominated ones dropped).

    `adjust` sees every estimated variant before dominated ones are dropped (calibration puts
    measured figures in there, so a measured variant competes with its real figures)."""
    ds = [Directives(BASE)] if base_only else candidate_directives(kernel, board)
    out = [KernelVariant(d, estimate_variant(kernel, board, d)) for d in ds]
    if adjust is not None:
        for v in out:
            adjust(v)
    return pareto(out)
