"""The latency objective's rows: one run of the app, blocking calls (the default objective).

latency (F1 with FPGA time, blocking calls)
    min  base + sum_i [cpu_i (1 - x_i) + sum_v fpga_iv z_iv] + sum_e cost_e - sum_c g_c
    AXI-Stream chain c = (a, b) (model.py, Chains): s_c in {0,1}, g_c >= 0 the seconds it saves,
    g_c <= M_c s_c,  g_c <= sum_v src_av z_av + sum_w dst_bw z_bw - stream_c s_c,  s_c <= x_a, x_b
    (M_c: the largest saving; chains that can never save are left out)

"""

from __future__ import annotations

import pulp

from partition.solve.ilp.builder import Builder, Lin, add, chain_savings, constant


def build_latency(b: Builder) -> dict:
    p = b.p
    b.pending = []
    total = constant(p.base_s)
    for t in p.tasks:
        add(total, constant(t.cpu_s))
        add(total, b.x[t.name], -t.cpu_s)
        add(total, b.fpga_time(t.name))
    for e in p.edges:
        add(total, b.edge_cost(e, None))
    b.settle_products(total)
    chains = chain_savings(b)
    for _, _, g in chains:
        add(total, {g: -1.0})
    b.prob.setObjective(_objective(b, total))
    return {"chains": chains}


def _objective(b: Builder, total: Lin) -> pulp.LpAffineExpression:
    terms = [(v, c * b.u) for v, c in total.items() if v is not None and c != 0.0]
    return pulp.LpAffineExpression([(b.one, total.get(None, 0.0) * b.u), *terms])
