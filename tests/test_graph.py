"""The task graph: nodes and edges from a profile, node-link JSON, DOT."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from partition.errors import PartitionError
from partition.graph import build_graph, graph_from_json, graph_to_dot, graph_to_json
from partition.profile.model import MAIN, Edge, FunctionProfile, Profile


def fp(
    name: str, calls: int, total: float, self_s: float, callers: dict[str, int], line: int
) -> FunctionProfile:
    ancestors = sorted(c for c in callers if c != MAIN)
    kind = "method" if "." in name else "function"
    return FunctionProfile(
        name=name, qualname=name, file="app.py", line=line, calls=calls, total_s=total, self_s=self_s,
        callers=callers, ancestors=ancestors, kind=kind,
    )  # fmt: skip


def profile(plain: float | None = 1.0) -> Profile:
    functions = {
        "filter": fp("filter", 10, 0.5, 0.3, {MAIN: 10}, 3),
        "tap": fp("tap", 40, 0.2, 0.2, {"filter": 40}, 9),
        "load": fp("load", 1, 0.1, 0.1, {MAIN: 1}, 20),
        "Sink.write": fp("Sink.write", 5, 0.05, 0.05, {MAIN: 2, "filter": 3}, 30),
    }
    edges = [  # deliberately unsorted
        Edge(src="filter", dst=MAIN, bytes=4096 * 10, count=10, what="return"),
        Edge(src="load", dst="filter", bytes=8192, count=10, what="x"),
        Edge(src=MAIN, dst="filter", bytes=80, count=10, what="gain"),
        Edge(src="filter", dst="tap", bytes=3 * 1024 * 1024, count=40, what='v "quoted"'),
    ]
    return Profile(
        app="app.py", argv=[], host={}, wall_s=2.0, plain_wall_s=plain, functions=functions, edges=edges
    )


def test_nodes_edges_and_attributes() -> None:
    g = build_graph(profile())
    assert list(g.nodes) == sorted([MAIN, "filter", "tap", "load", "Sink.write"])
    assert list(g.edges) == [(MAIN, "filter"), ("filter", MAIN), ("filter", "tap"), ("load", "filter")]
    t = g.nodes["tap"]
    assert t == {"calls": 40, "total_s": 0.2, "self_s": 0.2, "file": "app.py", "line": 9, "qualname": "tap",
                 "callers": {"filter": 40}, "ancestors": ["filter"], "kind": "function"}  # fmt: skip
    assert g.edges["filter", "tap"] == {"bytes": 3 * 1024 * 1024, "count": 40, "what": 'v "quoted"'}
    m = g.nodes[MAIN]
    assert m["kind"] == "main" and m["calls"] == 1 and m["file"] == "app.py"
    # <main> runs for the plain run's time; its own code is what the tasks it calls leave:
    # filter 0.5 + load 0.1 + 2 of Sink.write's 5 calls (0.02)
    assert m["total_s"] == 1.0
    assert m["self_s"] == pytest.approx(1.0 - 0.5 - 0.1 - 0.02)


def test_main_time_without_plain_run() -> None:
    g = build_graph(profile(plain=None))
    assert g.nodes[MAIN]["total_s"] == 2.0


def test_unknown_edge_end_is_an_error() -> None:
    p = profile()
    p.edges.append(Edge(src="ghost", dst="filter", bytes=1, count=1))
    with pytest.raises(PartitionError, match="unknown task 'ghost'"):
        build_graph(p)


def test_json_round_trip_and_determinism() -> None:
    g = build_graph(profile())
    data = graph_to_json(g)
    assert [n["id"] for n in data["nodes"]] == sorted(g.nodes)
    assert [(e["source"], e["target"]) for e in data["edges"]] == sorted(g.edges)
    text = json.dumps(data, sort_keys=True)
    g2 = graph_from_json(json.loads(text))
    assert json.dumps(graph_to_json(g2), sort_keys=True) == text
    assert nx.utils.graphs_equal(g, g2)
    assert dict(g2.nodes(data=True)) == dict(g.nodes(data=True))
    # a profile whose functions come in another order gives the same bytes
    p = profile()
    p.functions = dict(reversed(list(p.functions.items())))
    p.edges.reverse()
    assert json.dumps(graph_to_json(build_graph(p)), sort_keys=True) == text


def test_from_json_rejects_other_data() -> None:
    with pytest.raises(PartitionError, match="not a partition task graph"):
        graph_from_json({"nodes": [], "edges": []}, source="g.json")


def test_dot_text() -> None:
    dot = graph_to_dot(build_graph(profile()))
    assert dot.startswith('digraph "app.py" {') and dot.endswith("}\n")
    assert '"<main>" [shape=box' in dot
    assert '"tap" [shape=ellipse' in dot and "tap\\n40 calls\\n200.00 ms (self 200.00 ms)" in dot
    assert "load\\n1 call\\n" in dot
    assert '"filter" -> "tap" [label="3.0 MiB ×40\\nv \\"quoted\\""' in dot
    assert '"<main>" -> "filter" [label="80 B ×10\\ngain"' in dot
    assert dot == graph_to_dot(build_graph(profile()))  # deterministic
    # the node with the most self time is the warmest
    assert '"filter" [shape=ellipse, fillcolor="#ff7f7f"' in dot
