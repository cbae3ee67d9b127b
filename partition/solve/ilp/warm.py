"""The warm start: the heuristic's choice as every variable's initial value.

Warm start. `partition.solve.heuristic.greedy` (hot functions first, then a
Kernighan–Lin pass) gives a full solution (for makespan with its list
schedule, for throughput with its core split); CBC receives it through
PuLP's warmStart, HiGHS through setSolution.

Separate from the objectives' rows: the choice variables and the chain
variables are common; each objective module sets its own (`warm_throughput`,
`warm_makespan`).
"""

from __future__ import annotations

from partition.solve import heuristic
from partition.solve.ilp.builder import Builder, value
from partition.solve.ilp.makespan import warm_makespan
from partition.solve.ilp.throughput import warm_throughput


def warm_values(b: Builder, lp_extra: dict, start: heuristic.Choice) -> None:
    """Set every variable's initial value from the heuristic choice."""
    p = b.p
    vals: dict = {}
    for n, zs in b.z.items():
        for v, var in zs:
            vals[var] = 1.0 if start.variant.get(n) == v.name else 0.0
    xv = {n: value(b.x[n], vals) for n in b.x}
    for (a, c), y in b.ands.items():
        vals[y] = xv[a] * xv[c]
    vals[b.one] = 1.0
    for c, s, g in lp_extra.get("chains", ()):
        vs, vd = start.variant.get(c.src), start.variant.get(c.dst)
        gain = c.saving(vs, vd) if vs is not None and vd is not None else 0.0
        vals[s], vals[g] = float(gain > 0.0), max(0.0, gain)
    if p.objective == "throughput":
        warm_throughput(b, lp_extra, start, vals, xv)
    elif p.objective == "makespan":
        warm_makespan(b, lp_extra, start, vals)
    for var, v in vals.items():  # within the bounds (rounding of the heuristic's sums)
        if var.lowBound is not None:
            v = max(v, var.lowBound)
        if var.upBound is not None:
            v = min(v, var.upBound)
        var.setInitialValue(v)
