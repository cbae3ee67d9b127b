"""The PuLP model every objective shares: choice variables, budgets, exclusive pairs, edge costs.

Variables and common constraints (reference/partitioners.md §4):

    z_iv in {0,1}    task i runs on the FPGA as variant v;  x_i = sum_v z_iv <= 1 (x_i = 1: FPGA)
    sum_i sum_v res_ivk z_iv <= budget_k       for every budgeted resource k
    x_a + x_b <= 1                             for every exclusive pair (a, b)
    x_i fixed by pins (a task pinned to the FPGA chooses among its variants: sum_v z_iv = 1)

Edge costs. cost_e(x_s, x_d) takes four values c00..c11; with y = x_s AND x_d
it is c00 + (c10 - c00) x_s + (c01 - c00) x_d + q y, q = c11 - c10 - c01 + c00.
Costs only ever push the minimum up (they are added to the objective, or to
a duration that bounds a later start or the period from below), so only one
side of the AND linearisation is needed, the side the sign of q pushes
against: q > 0 -> y >= x_s + x_d - 1; q < 0 -> y <= x_s, y <= x_d. y can be
continuous in [0, 1]: at any integral x its best value is exactly the AND.
Products over the same pair of tasks share one y. The makespan model also
needs "does this transfer exist" indicators and uses the exact AND there.

Also here: the AXI-Stream chain variables that the latency and throughput
models share (`chain_savings`). Each objective's own rows are in
`partition.solve.ilp.latency`, `.throughput` and `.makespan`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pulp

from partition.solve.ilp.fold import Fold
from partition.solve.model import FEAS_ABS, MAIN, Problem, Variant

Lin = dict  # variable -> coefficient; the key None holds the constant


def add(out: Lin, e: Lin, k: float = 1.0) -> Lin:
    """out += k * e, in place; returns out."""
    for v, c in e.items():
        out[v] = out.get(v, 0.0) + k * c
    return out


def constant(c: float) -> Lin:
    """The constant c as a linear expression."""
    return {None: c}


def value(e: Lin, values: dict) -> float:
    """e at a point (variable -> value; a variable left out is 0)."""
    return sum(c * (1.0 if v is None else values.get(v, 0.0)) for v, c in e.items())


@dataclass
class Lp:
    prob: pulp.LpProblem
    scale: float  # solver units per second
    z: dict[str, list[tuple[Variant, pulp.LpVariable]]]  # tasks with variant variables
    x: dict[str, Lin]  # every task
    objective: str
    extra: dict[str, Any] = field(default_factory=dict)  # objective-specific handles
    opts: dict[str, list[Variant]] = field(default_factory=dict)
    n_cuts: int = 0
    ands: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)


class Builder:
    """Builds the PuLP model for one objective over a folded problem."""

    def __init__(self, problem: Problem, fold: Fold, scale: float):
        self.p = problem
        self.f = fold
        self.u = scale
        self.prob = pulp.LpProblem("partition", pulp.LpMinimize)
        self.z: dict[str, list[tuple[Variant, pulp.LpVariable]]] = {}
        self.x: dict[str, Lin] = {}
        self.ands: dict[tuple[str, str], pulp.LpVariable] = {}
        self.and_sides: dict[tuple[str, str], set[str]] = {}
        self.order = {n: i for i, n in enumerate(fold.names)}
        self.n_rows = 0
        self.pending: list[tuple[Any, float]] = []
        self.chain_vars: dict[str, Any] = {}  # throughput: the stage variables of chains
        k = 0
        for i, t in enumerate(problem.tasks):
            n = t.name
            opts = fold.opts[n]
            if fold.fixed.get(n) == 0:
                self.x[n] = {}
            elif fold.fixed.get(n) == 1 and len(opts) == 1:
                self.x[n] = constant(1.0)
            else:  # free, or on the FPGA with a choice of variants (then x = 1: sum_v z_v = 1)
                zs = []
                for v in opts:
                    zs.append((v, self.prob.add_variable(f"z{i:06d}_{k:06d}", 0, 1, cat=pulp.LpBinary)))
                    k += 1
                self.z[n] = zs
                self.x[n] = constant(1.0) if fold.fixed.get(n) == 1 else {var: 1.0 for _, var in zs}
                lhs = pulp.LpAffineExpression([(var, 1) for _, var in zs])
                if fold.fixed.get(n) == 1:
                    self.row(lhs == 1, "pick")
                elif len(zs) > 1:
                    self.row(lhs <= 1, "one")
        for r, cap in fold.rows:
            terms = []
            for n in fold.names:
                for v, var in self.z.get(n, ()):
                    if v.resources.get(r, 0.0):
                        terms.append((var, v.resources[r]))
            const = sum(
                fold.opts[n][0].resources.get(r, 0.0) for n in fold.names if n not in self.z and self.x[n]
            )
            self.row(
                pulp.LpAffineExpression(terms) <= cap - const + FEAS_ABS,
                f"res_{re.sub(r'[^A-Za-z0-9]', '_', r)}",
            )
        for a, b in fold.pairs:
            self.row(self.expr(add(dict(self.x[a]), self.x[b])) <= 1, "excl")
        self.one = self.prob.add_variable("k", 1, 1)  # carries constants (see Numerics)

    # ---- helpers

    def row(self, constraint, prefix: str) -> None:
        self.prob.addConstraint(constraint, f"{prefix}{self.n_rows:07d}")
        self.n_rows += 1

    def expr(self, e: Lin, scale: float = 1.0) -> pulp.LpAffineExpression:
        terms = [(v, c * scale) for v, c in e.items() if v is not None and c != 0.0]
        return pulp.LpAffineExpression(terms, constant=e.get(None, 0.0) * scale)

    def side(self, name: str) -> Lin:
        return {} if name == MAIN else self.x[name]

    def fpga_time(self, n: str, attr: str = "fpga_s") -> Lin:
        """sum_v t_v z_v (constant for a task fixed to one variant)."""
        if n in self.z:
            return {var: v.fpga_s if attr == "fpga_s" else v.period_s for v, var in self.z[n]}
        if self.x[n]:
            v = self.f.opts[n][0]
            return constant(v.fpga_s if attr == "fpga_s" else v.period_s)
        return {}

    def product(self, a: str, b: str, side: str) -> Lin:
        """x_a x_b as a linear expression; `side` is "ge", "le" or "both" (see the module docstring)."""
        xa, xb = self.side(a), self.side(b)
        if not xa or not xb:
            return {}
        if set(xa) == {None}:
            return add({}, xb, xa[None])
        if set(xb) == {None}:
            return add({}, xa, xb[None])
        if a == b:
            return dict(xa)
        key = tuple(sorted((a, b), key=self.order.__getitem__))
        y = self.ands.get(key)
        if y is None:
            y = self.ands[key] = self.prob.add_variable(f"y{len(self.ands):06d}", 0, 1)
            self.and_sides[key] = set()
        self.and_sides[key] |= {"ge", "le"} if side == "both" else {side}
        return {y: 1.0}

    def edge_cost(self, e, side: str | None) -> Lin:
        """cost_e as a linear expression; side None: decided later from the summed product terms."""
        q = e.c11 - e.c10 - e.c01 + e.c00
        out = constant(e.c00)
        add(out, self.side(e.src), e.c10 - e.c00)
        add(out, self.side(e.dst), e.c01 - e.c00)
        if q != 0.0:
            if side is None:
                self.pending.append((e, q))
            else:
                add(out, self.product(e.src, e.dst, side), q)
        return out

    def settle_products(self, total: Lin) -> None:
        """Add the product terms left pending, each pair's side set by the sign of its summed q."""
        by_pair: dict[tuple[str, str], float] = {}
        first: dict[tuple[str, str], Any] = {}
        for e, q in self.pending:
            key = (e.src, e.dst) if e.src == e.dst else tuple(sorted((e.src, e.dst)))
            by_pair[key] = by_pair.get(key, 0.0) + q
            first.setdefault(key, e)
        for key, q in by_pair.items():
            if q != 0.0:
                e = first[key]
                add(total, self.product(e.src, e.dst, "ge" if q > 0 else "le"), q)
        self.pending = []

    def finish_ands(self) -> None:
        for k, ((a, b), y) in enumerate(self.ands.items()):
            xa, xb = self.expr(self.x[a]), self.expr(self.x[b])
            sides = self.and_sides[(a, b)]
            if "ge" in sides:
                self.prob.addConstraint(y - xa - xb >= -1, f"and{k:06d}")
            if "le" in sides:
                self.prob.addConstraint(y - xa <= 0, f"anda{k:06d}")
                self.prob.addConstraint(y - xb <= 0, f"andb{k:06d}")


def _end_time(b: Builder, n: str, times: dict[str, float]) -> Lin:
    """sum_v times[v] z_v over task n's variants (constant for a task fixed to one variant)."""
    if n in b.z:
        return {var: times.get(v.name, 0.0) for v, var in b.z[n] if times.get(v.name, 0.0)}
    return constant(times.get(b.f.opts[n][0].name, 0.0)) if b.x[n] else {}


def chain_savings(b: Builder, unit: float = 1.0) -> list[tuple[Any, pulp.LpVariable, pulp.LpVariable]]:
    """Per chain that can save time: s (used) and g (the saving, in `unit` per second), g <= saving
    if s, else 0.

        g <= M s,   g <= src_end + dst_end - stream_s s,   s <= x_src,  s <= x_dst

    With s = 0 the second row is slack (both ends are >= 0); the objective
    subtracts g, so at the optimum g is the saving exactly when it is positive.
    """
    out = []
    for c in b.p.chains:
        if not b.x[c.src] or not b.x[c.dst]:
            continue
        most = max((c.src_s.get(v.name, 0.0) for v in b.f.opts[c.src]), default=0.0) + max(
            (c.dst_s.get(v.name, 0.0) for v in b.f.opts[c.dst]), default=0.0
        )
        if most - c.stream_s <= 0.0:
            continue
        k = len(out)
        s = b.prob.add_variable(f"s{k:06d}", 0, 1, cat=pulp.LpBinary)
        g = b.prob.add_variable(f"g{k:06d}", 0, None)
        b.row(g - unit * (most - c.stream_s) * s <= 0, "chm")
        ends = add(_end_time(b, c.src, c.src_s), _end_time(b, c.dst, c.dst_s))
        b.row(g - b.expr(ends, unit) + unit * c.stream_s * s <= 0, "chs")
        for n in (c.src, c.dst):
            if set(b.x[n]) != {None}:
                b.row(s - b.expr(b.x[n]) <= 0, "chx")
        out.append((c, s, g))
    return out
