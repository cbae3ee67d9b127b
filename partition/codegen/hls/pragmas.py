"""The chosen implementation variant's directives as HLS pragmas.

A variant (partition.estimate.variants.Directives.to_json) turns pipelining
off for some innermost loops ("sequential"), unrolls others ("unroll" {label:
factor}) and partitions arrays into cyclic banks ("partition" {array:
factor}); None is the base variant. Every loop also gets a LOOP_TRIPCOUNT
where Vitis HLS cannot see its trip count. Kept apart from the statement
printer: these are the only lines of the kernel a variant changes.
"""

from __future__ import annotations

from typing import Any

from partition import ir
from partition.estimate.schedule import has_jumps


def _has_loop(body: list[ir.Stmt], whole: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """A loop inside `body` other than those unrolled whole (`whole`: their labels)."""
    return any(isinstance(s, ir.For) and s.label not in whole for s in ir.walk_stmts(body))


def _trip(s: ir.For) -> int | None:
    if not (isinstance(s.start, ir.Const) and isinstance(s.stop, ir.Const)):
        return None
    return len(range(int(s.start.value), int(s.stop.value), s.step))


class Pragmas:
    """The directives of one variant, and the pragmas they give each loop and array."""

    def __init__(self, directives: dict[str, Any] | None = None):
        d = directives or {}
        self.sequential = set(d.get("sequential", ()))
        self.unroll = {str(k): int(v) for k, v in d.get("unroll", {}).items()}
        self.partition = {str(k): int(v) for k, v in d.get("partition", {}).items()}
        self.whole: set[str] = set()  # loops unrolled whole (their factor is their trip count)

    def know(self, body: list[ir.Stmt]) -> None:
        """Which unrolled loops of the kernel `body` are unrolled whole."""
        for s in ir.walk_stmts(body):
            if isinstance(s, ir.For) and s.label in self.unroll and self.unroll[s.label] == _trip(s):
                self.whole.add(s.label)

    def loop(self, s: ir.For) -> list[str]:
        """Innermost loops are pipelined (or not, or unrolled, per the variant); a trip count where
        bounds vary or a break can leave early."""
        pragmas = []
        if s.label in self.whole:  # unrolled whole: the loop around it pipelines over the copies
            pragmas.append("UNROLL")
        elif not _has_loop(s.body, self.whole):
            pragmas.append("PIPELINE off" if s.label in self.sequential else "PIPELINE")
            if s.label in self.unroll:
                pragmas.append(f"UNROLL factor={self.unroll[s.label]}")
        if not (isinstance(s.start, ir.Const) and isinstance(s.stop, ir.Const)) or has_jumps(
            s.body, (ir.Break,)
        ):
            pragmas.append(f"LOOP_TRIPCOUNT min=0 max={int(s.trip_max)}")
        return pragmas

    def partitions(self, buffers: dict[str, str], local_names: set[str]) -> list[dict[str, Any]]:
        """ARRAY_PARTITION of the variant: an array parameter's local buffer, or a declared local array."""
        return [
            {"variable": buffers.get(a, a), "factor": f}
            for a, f in sorted(self.partition.items())
            if a in buffers or a in local_names
        ]
