"""How figures are written for people: times, byte counts and the names of the resource kinds.

The terminal summary, report.md, report.html and graph.dot all show the same
figures; they write them through these few functions so that a time or a size
reads the same everywhere. Kept apart from the report package because the
task graph's DOT labels (partition.graph) use them too, and the report reads
the graph.
"""

from __future__ import annotations

# How reports name each of boards.RESOURCES.
RESOURCE_NAMES = {"lut": "LUT", "ff": "FF", "dsp": "DSP", "bram18": "BRAM18"}


def fmt_s(s: float | None) -> str:
    """A duration in seconds, with the unit that keeps it readable ("—" for None)."""
    if s is None:
        return "—"
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_bytes(n: float) -> str:
    """A byte count in B, KiB, MiB or GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} B"
