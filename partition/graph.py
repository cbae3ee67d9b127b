"""The task graph: the profile's functions and data edges as a networkx `DiGraph` (DESIGN.md §1-2).

Nodes are task names plus `<main>` (the app's own top-level code, always on
the CPU). Node attributes: calls, total_s, self_s, file, line, qualname,
callers, ancestors, kind. Edge attributes: bytes, count, what. Nodes and
edges are inserted in sorted order, so the JSON and DOT forms are
byte-identical for the same profile.

`<main>`'s times: total_s is the app's run time (the plain run's when the
profile has one, since task times are corrected for the profiler's overhead),
self_s what is left of it outside the calls `<main>` makes to tasks (a task
called from both `<main>` and other tasks is apportioned by its call counts).
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from partition.errors import PartitionError
from partition.fmt import fmt_bytes, fmt_s
from partition.profile.model import MAIN, Profile
from partition.templating import render

FORMAT = "partition-graph/1"
NODE_ATTRS = ("calls", "total_s", "self_s", "file", "line", "qualname", "callers", "ancestors", "kind")
EDGE_ATTRS = ("bytes", "count", "what")


def _main_times(profile: Profile) -> tuple[float, float]:
    total = profile.plain_wall_s or profile.wall_s
    in_tasks = 0.0
    for f in profile.functions.values():
        n = f.callers.get(MAIN, 0)
        if n and f.calls:
            in_tasks += f.total_s * n / f.calls
    return total, max(0.0, total - in_tasks)


def build_graph(profile: Profile) -> nx.DiGraph:
    """The task graph of a profile."""
    g = nx.DiGraph(format=FORMAT, app=profile.app)
    names = set(profile.functions)
    for e in profile.edges:
        for end in (e.src, e.dst):
            if end != MAIN and end not in names:
                raise PartitionError(
                    f"profile of {profile.app}: data edge {e.src} -> {e.dst} names unknown task {end!r}; "
                    "re-run `partition profile`"
                )
    total, self_s = _main_times(profile)
    for name in sorted(names | {MAIN}):
        if name == MAIN:
            g.add_node(
                MAIN, calls=1, total_s=total, self_s=self_s, file=profile.app, line=0, qualname=MAIN,
                callers={}, ancestors=[], kind="main",
            )  # fmt: skip
            continue
        f = profile.functions[name]
        g.add_node(
            name, calls=f.calls, total_s=f.total_s, self_s=f.self_s, file=f.file, line=f.line,
            qualname=f.qualname, callers=dict(sorted(f.callers.items())), ancestors=sorted(f.ancestors),
            kind=f.kind,
        )  # fmt: skip
    for e in sorted(profile.edges, key=lambda e: (e.src, e.dst)):
        g.add_edge(e.src, e.dst, bytes=e.bytes, count=e.count, what=e.what)
    return g


def graph_to_json(g: nx.DiGraph) -> dict[str, Any]:
    """Node-link data with nodes sorted by name and edges by (source, target)."""
    data = nx.node_link_data(g, edges="edges")
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["edges"] = sorted(data["edges"], key=lambda e: (e["source"], e["target"]))
    return data


def graph_from_json(data: dict[str, Any], source: str = "graph") -> nx.DiGraph:
    """Inverse of `graph_to_json`."""
    if not isinstance(data, dict) or data.get("graph", {}).get("format") != FORMAT:
        raise PartitionError(f"{source}: not a partition task graph (expected format {FORMAT!r})")
    try:
        return nx.node_link_graph(data, directed=True, multigraph=False, edges="edges")
    except (KeyError, TypeError, nx.NetworkXError) as e:
        raise PartitionError(f"{source}: malformed task graph ({e})") from e


# ------------------------------------------------------------------ DOT


def _dot_escape(text: str) -> str:
    """Text for a double-quoted DOT string; newlines become DOT line breaks."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _calls(n: int) -> str:
    return f"{n:,} call" + ("" if n == 1 else "s")


def graph_to_dot(g: nx.DiGraph) -> str:
    """Graphviz text: tasks with calls and times, `<main>` as a box, edges with bytes moved."""
    heaviest = max((d["self_s"] for n, d in g.nodes(data=True) if n != MAIN), default=0.0) or 1.0
    nodes = []
    for name in sorted(g.nodes):
        d = g.nodes[name]
        if name == MAIN:
            label = f"{name}\n{fmt_s(d['total_s'])} (own code {fmt_s(d['self_s'])})"
            nodes.append(
                {"id": _dot_escape(name), "shape": "box", "fill": "#eeeeee", "label": _dot_escape(label)}
            )
            continue
        label = f"{name}\n{_calls(d['calls'])}\n{fmt_s(d['total_s'])} (self {fmt_s(d['self_s'])})"
        # warmer fill for more self time: where the time goes shows at a glance
        heat = min(1.0, d["self_s"] / heaviest)
        fill = "#ff{0:02x}{0:02x}".format(round(255 - 128 * heat))
        nodes.append({"id": _dot_escape(name), "shape": "ellipse", "fill": fill, "label": _dot_escape(label)})
    heaviest_edge = max((d["bytes"] for _, _, d in g.edges(data=True)), default=0) or 1
    edges = []
    for src, dst in sorted(g.edges):
        d = g.edges[src, dst]
        label = f"{fmt_bytes(d['bytes'])} ×{d['count']:,}"
        if d.get("what"):
            label += f"\n{d['what']}"
        width = f"{1.0 + 2.0 * d['bytes'] / heaviest_edge:.2f}"
        edges.append(
            {"src": _dot_escape(src), "dst": _dot_escape(dst), "label": _dot_escape(label), "width": width}
        )
    app = str(g.graph.get("app", "app"))
    return render(
        "report/graph.dot.j2",
        graph_name=_dot_escape(app),
        title=_dot_escape(f"{app}: task graph"),
        nodes=nodes,
        edges=edges,
    )
