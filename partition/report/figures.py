"""The figures of report.html: each number with its text and the place of its raw value.

Every figure is traceable
-------------------------
Each number on the page sits in an element with `data-path`, the place of its
raw value in the inputs ("plan.tasks.3.cpu_s", "verification.fir.rtl_sim.cycles"),
and `data-value`, that raw value as JSON (floats in Python's shortest
round-trip form, so `parseFloat` in a browser gives the identical double).
Figures the page derives (a task's speedup, a timeline segment's start) carry
`data-derived` instead of `data-path`, with the paths they come from in
`data-from`. The page only formats; it never rounds a value it stores.

Every view of the page (task graph, tables, bars, timeline, verification)
builds its numbers from `Fig`, so this rule lives in one place.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from partition.fmt import fmt_s


def raw(value: Any) -> str:
    """A value as JSON text: floats in shortest round-trip form, so a browser parses the same double."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value))
    return json.dumps(value, sort_keys=True)


@dataclass
class Fig:
    """One figure on the page: its text and where its raw value comes from."""

    text: str
    value: Any
    path: str = ""  # place of the raw value in the inputs ("plan.…" or "verification.…")
    derived_from: list[str] = field(default_factory=list)  # for derived figures

    @property
    def attrs(self) -> dict[str, str]:
        a = {"data-value": raw(self.value)}
        if self.path:
            a["data-path"] = self.path
        else:
            a["data-derived"] = "true"
            a["data-from"] = " ".join(self.derived_from)
        return a


def seconds_fig(value: float | None, path: str) -> Fig:
    """A time from the inputs, in seconds."""
    return Fig(fmt_s(value), value, path)


def count_fig(value: float, path: str) -> Fig:
    """A count from the inputs (calls, cycles, resources), with thousands separators."""
    return Fig(f"{value:,.0f}", value, path)


def speedup_fig(num: float, den: float, frm: list[str]) -> Fig | None:
    """The speedup num / den derived from two figures (None when den is not positive)."""
    if den <= 0:
        return None
    s = num / den
    return Fig(f"{s:,.1f}×", s, derived_from=frm)


def ratio_fig(value: float | None, path: str) -> Fig | None:
    """A speedup as the inputs state it (None when absent or zero)."""
    return Fig(f"{value:,.2f}×", value, path) if value else None


def px(x: float) -> str:
    """An SVG coordinate: one decimal at most, no trailing zeros."""
    return f"{x:.1f}".rstrip("0").rstrip(".")
