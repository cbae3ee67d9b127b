"""The task graph of report.html: a deterministic layered layout and the nodes and edges to draw.

Data edges can form cycles, so the layout first finds the edges against the
flow (`layout_order`), then places the nodes in layers top to bottom
(`layout_graph`); `graph_view` gives the template every node's box, colour
and title and every edge's SVG path. Kept apart from the page because it is
the only geometry of the report besides the Gantt chart.
"""

from __future__ import annotations

import math
from typing import Any

import networkx as nx

from partition.fmt import fmt_bytes, fmt_s
from partition.graph import graph_from_json
from partition.report.figures import px

# graph drawing (SVG user units)
NODE_W, NODE_H = 150, 44
NODE_GAP, LAYER_GAP = 22, 48  # between nodes of a layer, between layers (top to bottom)
BACK_RISE = 18  # edges against the flow enter their target from above
MARGIN = 16


def task_graph(graph_json: dict[str, Any]) -> nx.DiGraph:
    """graph.json data as the networkx graph the layout works on."""
    return graph_from_json(graph_json, "graph.json")


def layout_order(g: nx.DiGraph) -> tuple[list[str], set[tuple[str, str]]]:
    """A deterministic node order in which (almost) every edge points forward, and the edges that don't.

    Data edges can form cycles (a caller hands an array to a callee and gets
    the result back). A depth-first search that starts from callers before
    callees, then from sources, then by name, and visits successors by name,
    finds back edges; without them the graph is a DAG, and its topological
    order (ties by that search's discovery order) places the nodes.
    """

    def start_key(n: str) -> tuple[int, int, str]:
        return (len(g.nodes[n].get("ancestors", [])), 0 if g.in_degree(n) == 0 else 1, n)

    seen: dict[str, int] = {}
    back: set[tuple[str, str]] = set()
    for root in sorted(g.nodes, key=start_key):
        if root in seen:
            continue
        seen[root] = len(seen)
        on_stack = {root}
        stack = [(root, iter(sorted(g.successors(root))))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_stack.discard(node)
                continue
            if nxt in on_stack:
                back.add((node, nxt))
            elif nxt not in seen:
                seen[nxt] = len(seen)
                on_stack.add(nxt)
                stack.append((nxt, iter(sorted(g.successors(nxt)))))
    dag = nx.DiGraph()
    dag.add_nodes_from(g.nodes)
    dag.add_edges_from((u, v) for u, v in g.edges if (u, v) not in back and u != v)
    order = list(nx.lexicographical_topological_sort(dag, key=lambda n: seen[n]))
    return order, back


def layout_graph(g: nx.DiGraph) -> tuple[dict[str, tuple[float, float]], set[tuple[str, str]], int, int]:
    """Node positions (top-left corners): layers top to bottom by longest path, order in a layer by barycentres."""
    order, back = layout_order(g)
    fwd = [(u, v) for u, v in g.edges if (u, v) not in back and u != v]
    layer: dict[str, int] = {}
    for n in order:
        layer[n] = max((layer[u] + 1 for u, v in fwd if v == n), default=0)
    n_layers = max(layer.values(), default=-1) + 1
    rows: list[list[str]] = [[n for n in order if layer[n] == k] for k in range(n_layers)]
    preds = {n: [u for u, v in fwd if v == n] for n in g.nodes}
    succs = {n: [v for u, v in fwd if u == n] for n in g.nodes}
    for _sweep in range(4):
        for k in list(range(1, n_layers)) + list(range(n_layers - 2, -1, -1)):
            downward = _sweep % 2 == 0
            ref = rows[k - 1] if downward and k > 0 else rows[k + 1] if k + 1 < n_layers else None
            if ref is None:
                continue
            pos = {n: i for i, n in enumerate(ref)}
            current = {n: i for i, n in enumerate(rows[k])}

            def key(n: str, pos=pos, current=current, downward=downward) -> tuple[float, int]:
                nbrs = [pos[m] for m in (preds[n] if downward else succs[n]) if m in pos]
                return (sum(nbrs) / len(nbrs) if nbrs else current[n], current[n])

            rows[k] = sorted(rows[k], key=key)
    widest = max((len(r) for r in rows), default=0)
    width = 2 * MARGIN + widest * NODE_W + max(0, widest - 1) * NODE_GAP
    height = 2 * MARGIN + n_layers * NODE_H + max(0, n_layers - 1) * LAYER_GAP
    pos: dict[str, tuple[float, float]] = {}
    for k, row in enumerate(rows):
        span = len(row) * NODE_W + (len(row) - 1) * NODE_GAP
        left = MARGIN + (width - 2 * MARGIN - span) / 2
        for i, n in enumerate(row):
            pos[n] = (left + i * (NODE_W + NODE_GAP), MARGIN + k * (NODE_H + LAYER_GAP))
    return pos, back, width, height


def _edge_path(src: tuple[float, float], dst: tuple[float, float], back: bool, right: float) -> str:
    """An edge from layer to layer, downwards; one against the flow swings round the right-hand side."""
    (xs, ys), (xd, yd) = src, dst
    if src == dst:  # a task feeding itself: a loop on its right-hand side
        x0, y0 = xs + NODE_W, ys + NODE_H * 0.3
        return (
            f"M{px(x0)},{px(y0)} C{px(x0 + 14)},{px(y0)} {px(x0 + 14)},{px(y0 + 16)} {px(x0)},{px(y0 + 16)}"
        )
    if not back:
        x0, y0 = xs + NODE_W / 2, ys + NODE_H
        x1, y1 = xd + NODE_W / 2, yd
        dy = (y1 - y0) / 2
        return f"M{px(x0)},{px(y0)} C{px(x0)},{px(y0 + dy)} {px(x1)},{px(y1 - dy)} {px(x1)},{px(y1)}"
    # rounded right angles: out to the right, up the right-hand side, along the top, down into the target
    x0, y0 = xs + NODE_W, ys + NODE_H / 2
    x1, y1 = xd + NODE_W * 0.8, yd
    top = y1 - BACK_RISE
    return (
        f"M{px(x0)},{px(y0)} L{px(right - 8)},{px(y0)} Q{px(right)},{px(y0)} {px(right)},{px(y0 - 8)} "
        f"L{px(right)},{px(top + 8)} Q{px(right)},{px(top)} {px(right - 8)},{px(top)} "
        f"L{px(x1 + 8)},{px(top)} Q{px(x1)},{px(top)} {px(x1)},{px(top + 8)} L{px(x1)},{px(y1)}"
    )


def graph_view(plan_data: dict[str, Any], graph_json: dict[str, Any]) -> dict[str, Any]:
    """The task graph ready to draw: nodes with positions, colours (by placement) and titles; edges."""
    g = task_graph(graph_json)
    main = plan_data.get("main", "<main>")
    tasks = {t["name"]: (i, t) for i, t in enumerate(plan_data["tasks"])}
    pos, back, width, height = layout_graph(g)
    n_back = sum(1 for u, v in back if u != v)
    if n_back:
        width += 16 + 6 * n_back
        height += BACK_RISE
        pos = {n: (x, y + BACK_RISE) for n, (x, y) in pos.items()}
    nodes = []
    for n in sorted(g.nodes):
        d = g.nodes[n]
        x, y = pos[n]
        if n == main:
            placement, sub = "main", f"own code {fmt_s(d['self_s'])}"
            title = [
                f"{n}: the app's own top-level code (always on the CPU)",
                f"run time {fmt_s(d['total_s'])}",
            ]
        elif n in tasks:
            i, t = tasks[n]
            placement = t["placement"]
            fpga = t.get("fpga")
            if placement == "fpga":
                sub = f"FPGA {fmt_s(fpga['total_s'])}"
            else:
                sub = f"CPU {fmt_s(t['cpu_s'])}"
            title = [
                f"{n} ({t['file']}:{t['line']}), {t['calls']:,} call(s)",
                f"placed on the {placement.upper()}: {t['reason']}",
                f"CPU (board): {fmt_s(t['cpu_s'])}",
            ]
            if fpga:
                title.append(
                    f"FPGA estimate: {fmt_s(fpga['total_s'])} (compute {fmt_s(fpga['compute_s'])}, "
                    f"overhead {fmt_s(fpga['overhead_s'])}, copy-out {fmt_s(fpga['copy_out_s'])})"
                )
        else:
            placement, sub, title = "unknown", "not in plan.json", [f"{n}: not a task of plan.json"]
        capable = n in tasks and bool(tasks[n][1].get("fpga"))
        label = n if len(n) <= 20 else n[:19] + "…"
        nodes.append(
            {
                "id": n,
                "x": px(x),
                "y": px(y),
                "cx": px(x + NODE_W / 2),
                "label": label,
                "sub": sub,
                "placement": placement,
                "capable": capable,
                "title": "\n".join(title),
                "index": tasks[n][0] if n in tasks else None,
            }
        )
    plan_edges: dict[tuple[str, str], list[tuple[int, dict]]] = {}
    for i, e in enumerate(plan_data.get("edges", [])):
        plan_edges.setdefault((e["src"], e["dst"]), []).append((i, e))
    heaviest = max((d["bytes"] for _, _, d in g.edges(data=True)), default=0)
    edges = []
    k_back = 0
    for u, v in sorted(g.edges):
        d = g.edges[u, v]
        right = width - MARGIN / 2 - 6 * k_back  # each edge against the flow has its own lane
        k_back += int((u, v) in back and u != v)
        pe = plan_edges.get((u, v), [])
        crossing = any(e["crossing"] for _, e in pe)
        cost = sum(e["cost_s"] for _, e in pe)
        width_px = 1.0 + 5.0 * (math.log1p(d["bytes"]) / math.log1p(heaviest) if heaviest else 0.0)
        title = f"{u} → {v}: {fmt_bytes(d['bytes'])} in {d['count']:,} transfer(s)"
        if d.get("what"):
            title += f" ({d['what']})"
        if crossing:
            title += f"; crosses CPU/FPGA, copy cost {fmt_s(cost)}"
        edges.append(
            {
                "src": u,
                "dst": v,
                "d": _edge_path(pos[u], pos[v], (u, v) in back, right),
                "width": f"{width_px:.2f}",
                "bytes": d["bytes"],
                "crossing": crossing,
                "title": title,
                "plan_edges": " ".join(str(i) for i, _ in pe),
            }
        )
    return {
        "nodes": nodes,
        "edges": edges,
        "width": width,
        "height": height,
        "node_w": NODE_W,
        "node_h": NODE_H,
    }
