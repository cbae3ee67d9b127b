"""The throughput objective's rows: the period of a loop over frames, with AXI-Stream chain stages.

throughput (F4)
    min  P
    P >= base + sum_i cpu_i (1 - x_i)                     one core, or with two:
    P >= base + sum_i cpu_i (1 - x_i - w_i),  P >= sum_i cpu_i w_i,  w_i <= 1 - x_i
         (w_i = 1: task i on core 1; when base = 0 core 0 is the busier one, by symmetry)
    P >= sum_v ii_iv z_iv                                  for every task (its own stage)
    P >= sum_e cost_e                                      the link
    AXI-Stream chains (period.py, Chains under throughput): s_c, g_c as for latency; a task at a
    possible chain keeps its own-stage row only while no used chain touches it
    (P >= ii_i - ii_i^max sum_{c at i} s_c), and the kernels joined by used chains are one
    stage of their summed FPGA times minus the savings, built up along the chains
    (`_chain_stage_rows`)


Also the warm start of this model's own variables (core split, chain stages, P).
"""

from __future__ import annotations

from typing import Any

import pulp

from partition.solve import heuristic
from partition.solve.evaluate import streamed
from partition.solve.ilp.builder import Builder, Lin, add, chain_savings, constant
from partition.solve.model import Variant, chosen


def build_throughput(b: Builder) -> dict:
    p = b.p
    period = b.prob.add_variable("P", 0, None)
    pe = pulp.LpAffineExpression([(period, 1.0)])
    b.prob.setObjective(pulp.LpAffineExpression([(period, 1.0)]))
    cpu_able = [t for t in p.tasks if b.x[t.name] != constant(1.0)]
    w: dict[str, pulp.LpVariable] = {}
    core0 = constant(p.base_s)
    for t in cpu_able:
        add(core0, constant(t.cpu_s))
        add(core0, b.x[t.name], -t.cpu_s)
    if p.cpu_cores == 2:
        core1: Lin = {}
        for k, t in enumerate(cpu_able):
            if t.cpu_s == 0.0:
                continue
            var = w[t.name] = b.prob.add_variable(f"w{k:06d}", 0, 1, cat=pulp.LpBinary)
            b.row(var + b.expr(b.x[t.name]) <= 1, "core")
            add(core0, {var: -t.cpu_s})
            add(core1, {var: t.cpu_s})
        b.row(pe - b.expr(core1, b.u) >= 0, "cpu1_")
        if p.base_s == 0.0 and w:
            b.row(b.expr(core0) - b.expr(core1) >= 0, "sym")
    b.row(pe - b.expr(core0, b.u) >= 0, "cpu0_")
    chains = chain_savings(b, b.u)  # in solver units, like P (the rows share their big-M values)
    chained = _chain_stage_rows(b, chains, pe)
    for t in p.tasks:
        stage = b.fpga_time(t.name, "ii")
        if any(c for c in stage.values()):
            at = chained.get(t.name)
            if at:  # a stage of its own only while no used chain touches it
                most = max(c for c in stage.values())
                terms = [(s, b.u * most) for s in at]
                b.row(pe - b.expr(stage, b.u) + pulp.LpAffineExpression(terms) >= 0, "stage")
            else:
                b.row(pe - b.expr(stage, b.u) >= 0, "stage")
    b.pending = []
    link: Lin = {}
    for e in p.edges:
        add(link, b.edge_cost(e, None))
    b.settle_products(link)
    if any(c for c in link.values()):
        b.row(pe - b.expr(link, b.u) >= 0, "link")
    return {"P": period, "w": w, "chains": chains}


def _chain_stage_rows(b: Builder, chains: list, pe: pulp.LpAffineExpression) -> dict[str, list]:
    """Throughput: the stages joined by used chains (period.chain_stages), exactly.

        L_i >= F_i + sum_{c into i} h_c,   L_i >= 0        i's part of its stage, F_i = sum_v fpga_iv z_iv
        h_c >= L_src - g_c - U_src (1 - s_c),  h_c >= -D_c s_c      h_c = L_src - g_c if used, else 0
        r_i >= s_c for every c into i                        r_i: a used chain ends in i
        P >= L_i - U_i (1 - r_i) - U_i s_out(i)              i ends a stage of two or more kernels

    g, h and L are in solver units, like P. U_i = max F_i + sum of U_src over the chains
    into i bounds L_i. D_c, the largest
    dst share, bounds L_src - g_c from below: every share is part of its end's time
    (check_problem), so L_src >= the src's share and g_c <= both shares. Chains form an
    in-forest (each task the src of at most one, no cycle), so the sums are finite.
    Returns task -> the s of every possible chain at it (its own stage's row is relaxed by them).
    """
    at: dict[str, list] = {}
    if not chains:
        return at
    u = b.u
    into: dict[str, list] = {}
    out_of: dict[str, Any] = {}
    for c, s, g in chains:
        into.setdefault(c.dst, []).append((c, s, g))
        out_of[c.src] = s
        at.setdefault(c.src, []).append(s)
        at.setdefault(c.dst, []).append(s)
    ends = [t.name for t in b.p.tasks if t.name in at]
    # sources first (Kahn's order over the chains)
    pending = {n: len(into.get(n, [])) for n in ends}
    dst_of = {c.src: c.dst for c, _, _ in chains}
    order = [n for n in ends if pending[n] == 0]
    for n in order:
        d = dst_of.get(n)
        if d is not None:
            pending[d] -= 1
            if pending[d] == 0:
                order.append(d)
    upper: dict[str, float] = {}
    L: dict[str, pulp.LpVariable] = {}
    for k, n in enumerate(order):
        f = b.fpga_time(n)
        upper[n] = max(f.values(), default=0.0) + sum(upper[c.src] for c, _, _ in into.get(n, []))
        L[n] = b.prob.add_variable(f"l{k:06d}", 0, None)
    hs = {}
    rs: dict[str, pulp.LpVariable] = {}
    for k, (c, s, g) in enumerate(chains):
        h = hs[c.src] = b.prob.add_variable(f"h{k:06d}", None, None)
        drop = max((c.dst_s.get(v.name, 0.0) for v in b.f.opts[c.dst]), default=0.0)
        b.row(h - L[c.src] + g + u * upper[c.src] * (1 - s) >= 0, "chh")
        b.row(h + u * drop * s >= 0, "chd")
    for k, n in enumerate(order):
        ins = into.get(n, [])
        b.row(L[n] - b.expr(b.fpga_time(n), u) - pulp.lpSum(hs[c.src] for c, _, _ in ins) >= 0, "chl")
        if not ins:
            continue
        r = rs[n] = b.prob.add_variable(f"r{k:06d}", 0, 1)
        for _, s, _ in ins:
            b.row(r - s >= 0, "chr")
        rhs = L[n] - u * upper[n] * (1 - r)
        if n in out_of:
            rhs = rhs - u * upper[n] * out_of[n]
        b.row(pe - rhs >= 0, "chp")
    b.chain_vars = {"L": L, "h": hs, "r": rs, "order": order}
    return at


def _warm_chain_stages(b: Builder, lp_extra: dict, start: heuristic.Choice, vals: dict) -> None:
    """Throughput: s, g, L, h, r of the chains as `period.chain_stages` uses them for the start."""
    if not lp_extra.get("chains"):
        return
    ch = chosen(b.p, start.assignment, start.variant)
    used = {id(c) for c in streamed(b.p, ch)}
    cv = b.chain_vars
    into: dict[str, list] = {}
    for c, s, g in lp_extra["chains"]:
        on = id(c) in used
        vals[s] = float(on)
        vals[g] = b.u * c.saving(ch[c.src].name, ch[c.dst].name) if on else 0.0
        into.setdefault(c.dst, []).append((c, s, g))
    load: dict[str, float] = {}
    for n in cv["order"]:
        v = ch[n]
        load[n] = b.u * v.fpga_s if isinstance(v, Variant) else 0.0
        for c, s, g in into.get(n, []):
            h = load[c.src] - vals[g] if vals[s] else 0.0
            vals[cv["h"][c.src]] = h
            load[n] += h
        vals[cv["L"][n]] = load[n]
    for n, r in cv["r"].items():
        vals[r] = max(vals[s] for _, s, _ in into[n])


def warm_throughput(b: Builder, lp_extra: dict, start: heuristic.Choice, vals: dict, xv: dict) -> None:
    """The throughput variables' start values from the heuristic choice (`xv`: each task's x)."""
    p = b.p
    _warm_chain_stages(b, lp_extra, start, vals)
    on1 = {n: float(start.cores.get(n, 0) == 1 and not xv[n]) for n in lp_extra["w"]}
    load = [p.base_s, 0.0]
    for t in p.tasks:
        if not xv[t.name]:
            load[int(on1.get(t.name, 0.0))] += t.cpu_s
    flip = p.base_s == 0.0 and load[1] > load[0]  # the model wants core 0 the busier
    for n, var in lp_extra["w"].items():
        vals[var] = (1.0 - on1[n]) * (1.0 - xv[n]) if flip else on1[n]
    vals[lp_extra["P"]] = start.objective_s * b.u
