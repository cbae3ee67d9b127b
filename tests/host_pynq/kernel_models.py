"""The test kernels of the runtime scenarios (scenarios.py): their spec in plain data, their
Python originals, and the records some of them take.

KERNELS describes the test kernels in plain data (pytest turns them into partition IR
kernels and writes their spec with partition.codegen.host.host_spec); FUNCTIONS are
their Python originals (what the fake device computes, and the CPU fallback); `runtime`
builds a runtime over the fake device that computes them.
"""

from __future__ import annotations

import io
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from fake_device import FakeBackend
from partition_runtime import Runtime

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
]


def _arr(name, dtype, shape, direction, origin, stream=False):
    d = {
        "name": name,
        "kind": "array",
        "dtype": dtype,
        "shape": list(shape),
        "direction": direction,
        "pytype": "ndarray",
        "origin": list(origin),
    }
    if stream:
        d["stream"] = True
    return d


def _list(name, dtype, shape, direction, origin, pytype="list"):
    d = _arr(name, dtype, shape, direction, origin)
    d["pytype"] = pytype
    return d


def _sc(name, dtype, pytype, pos):
    return {
        "name": name,
        "kind": "scalar",
        "dtype": dtype,
        "shape": [],
        "direction": "in",
        "pytype": pytype,
        "origin": ["arg", pos],
    }


def _field(name, dtype, pytype, pos, field):
    d = _sc(name, dtype, pytype, pos)
    d["field"] = field
    return d


def _k(py_params, params, returns=(), tuple_=False, ret=None, ret_pytype="", specialised=None, structs=None):
    return {
        "py_params": list(py_params),
        "params": params,
        "returns": [list(r) for r in returns],
        "return_tuple": tuple_,
        "ret": ret,
        "ret_pytype": ret_pytype,
        "specialised": specialised or {},
        "structs": structs or {},
    }


KERNELS: dict[str, dict[str, Any]] = {
    # an AXI-Stream chain of three: chain_a -> chain_b -> chain_c (CHAINS)
    "chain_a": _k(
        ["x", "k"],
        [
            _arr("x", "int32", (8,), "in", ("arg", 0)),
            _sc("k", "int32", "int", 1),
            _arr("out_r", "int32", (8,), "out", ("return", 0), stream=True),
        ],
        returns=[("param", "out_r")],
    ),
    "chain_b": _k(
        ["y", "k"],
        [
            _arr("y", "int32", (8,), "in", ("arg", 0), stream=True),
            _sc("k", "int32", "int", 1),
            _arr("out_r", "int32", (8,), "out", ("return", 0), stream=True),
        ],
        returns=[("param", "out_r")],
    ),
    "chain_c": _k(
        ["y"],
        [
            _arr("y", "int32", (8,), "in", ("arg", 0), stream=True),
            _arr("out_r", "int32", (8,), "out", ("return", 0)),
        ],
        returns=[("param", "out_r")],
    ),
    "scale_add": _k(
        ["x", "y"],
        [
            _arr("x", "int16", (16,), "in", ("arg", 0)),
            _arr("y", "int16", (16,), "in", ("arg", 1)),
            _arr("out_r", "int32", (16,), "out", ("return", 0)),
        ],
        returns=[("param", "out_r")],
    ),
    "mix": _k(
        ["a", "n", "f", "flag", "s"],
        [
            _arr("a", "float32", (3, 4), "inout", ("arg", 0)),
            _sc("n", "int16", "int", 1),
            _sc("f", "float64", "float", 2),
            _sc("flag", "bool", "bool", 3),
            _sc("s", "uint64", "npscalar", 4),
        ],
        returns=[("param", "a"), ("scalar", "int64")],
        tuple_=True,
        ret="int64",
        ret_pytype="int",
    ),
    "scale_k": _k(
        ["x", "k"],
        [_arr("x", "int32", (8,), "in", ("arg", 0)), _arr("out_r", "int32", (8,), "out", ("return", 0))],
        returns=[("param", "out_r")],
        specialised={"k": 3},
    ),
    "axpy": _k(
        ["y", "x", "a"],
        [
            _arr("y", "float64", (8,), "inout", ("arg", 0)),
            _arr("x", "float64", (8,), "in", ("arg", 1)),
            _sc("a", "float64", "float", 2),
        ],
    ),
    "fill": _k(["dst", "v"], [_arr("dst", "int32", (8,), "out", ("arg", 0)), _sc("v", "int32", "int", 1)]),
    "stats2": _k(
        ["m"],
        [
            _arr("m", "float64", (2, 3), "in", ("arg", 0)),
            _arr("lo", "float64", (3,), "out", ("return", 0)),
            _arr("hi", "float64", (3,), "out", ("return", 2)),
        ],
        returns=[("param", "lo"), ("scalar", "float64"), ("param", "hi")],
        tuple_=True,
        ret="float64",
        ret_pytype="float",
    ),
    "hist_list": _k(
        ["xs", "grid"],
        [
            _list("xs", "int16", (6,), "inout", ("arg", 0)),
            _list("grid", "int8", (2, 3), "in", ("arg", 1)),
            _list("counts", "int32", (4,), "out", ("return", 0)),
            _list("scaled", "int16", (6,), "out", ("return", 1), pytype="list_np"),
        ],
        returns=[("param", "counts"), ("param", "scaled")],
        tuple_=True,
    ),
    # record arguments: a dataclass (h compiled in, y not read), a namedtuple, a tuple, a list of tuples
    "rect_score": _k(
        ["r", "p", "size", "pts"],
        [
            _field("r_x", "int16", "int", 0, "x"),
            _field("r_w", "int8", "int", 0, "w"),
            _field("p_x", "float64", "float", 1, "x"),
            _field("p_y", "float64", "float", 1, "y"),
            _field("size_1", "uint8", "npscalar", 2, "1"),
            _list("pts", "int8", (3, 2), "in", ("arg", 3), pytype="list_tuple"),
        ],
        returns=[("scalar", "float64")],
        ret="float64",
        ret_pytype="float",
        structs={
            "r": {
                "kind": "dataclass",
                "pytype": "Rect",
                "fields": ["x", "y", "w", "h"],
                "constants": {"h": {"value": 4, "pytype": "int", "dtype": "int8"}},
            },
            "p": {"kind": "namedtuple", "pytype": "Point", "fields": ["x", "y"]},
            "size": {
                "kind": "tuple",
                "pytype": "tuple",
                "fields": ["0", "1"],
                "constants": {"0": {"value": 3, "pytype": "int", "dtype": "int8"}},
            },
        },
    ),
}
for _dt in DTYPES:
    KERNELS[f"ident_{_dt}"] = _k(
        ["v"], [_sc("v", _dt, "npscalar", 0)], returns=[("scalar", _dt)], ret=_dt, ret_pytype="npscalar"
    )
KERNELS["ident_pyint"] = _k(
    ["v"], [_sc("v", "int64", "int", 0)], returns=[("scalar", "int64")], ret="int64", ret_pytype="int"
)
KERNELS["ident_pyfloat"] = _k(
    ["v"],
    [_sc("v", "float64", "float", 0)],
    returns=[("scalar", "float64")],
    ret="float64",
    ret_pytype="float",
)
KERNELS["ident_pybool"] = _k(
    ["v"], [_sc("v", "bool", "bool", 0)], returns=[("scalar", "bool")], ret="bool", ret_pytype="bool"
)


def scale_add(x, y):
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = np.int32(x[i]) * 3 + np.int32(y[i])
    return out


def mix(a, n, f, flag, s):
    a *= np.float32(2)
    a += np.float32(f)
    total = n * 3 + (1 if flag else 0) + int(s % np.uint64(1000))
    return a, total


def scale_k(x, k):
    return x * k


def chain_a(x, k):
    return x * k


def chain_b(y, k):
    return y + k


def chain_c(y):
    return y - 1


CHAINS = [
    {"src": "chain_a", "out": "out_r", "dst": "chain_b", "in": "y"},
    {"src": "chain_b", "out": "out_r", "dst": "chain_c", "in": "y"},
]


def axpy(y, x, a):
    y += a * x


def fill(dst, v):
    dst[:] = v


def stats2(m):
    lo = m.min(axis=0)
    hi = m.max(axis=0)
    return lo, float(m.sum()), hi


def ident(v):
    return v


Point = namedtuple("Point", ["x", "y"])
Vec = namedtuple("Vec", ["x", "y"])


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int


@dataclass
class Box:
    x: int
    y: int
    w: int
    h: int


def rect_score(r, p, size, pts):
    s = (r.x + r.w) * r.h * size[0] + int(size[1])
    for a, b in pts:
        s += int(a) * int(b)  # (the fake device passes the rows as an int8 array)
    return s * p.x - p.y


def hist_list(xs, grid):
    counts = [0] * 4
    scaled = [np.int16(0)] * len(xs)
    for i in range(len(xs)):
        counts[xs[i] % 4] += grid[i % 2][i % 3]
        scaled[i] = np.int16(xs[i] * 2)
        xs[i] = xs[i] + 1
    return counts, scaled


FUNCTIONS = {
    "chain_a": chain_a,
    "chain_b": chain_b,
    "chain_c": chain_c,
    "axpy": axpy,
    "scale_add": scale_add,
    "mix": mix,
    "scale_k": scale_k,
    "fill": fill,
    "stats2": stats2,
    "hist_list": hist_list,
    "rect_score": rect_score,
}
for _name in KERNELS:
    if _name.startswith("ident_"):
        FUNCTIONS[_name] = ident


def runtime(
    spec: Path, models: dict | None = None, latency: int = 3, **kw: Any
) -> tuple[Runtime, FakeBackend]:
    m = dict(FUNCTIONS)
    m.update(models or {})
    backend = FakeBackend(m, latency=latency)
    kw.setdefault("log", io.StringIO())
    rt = Runtime(backend, spec, functions=FUNCTIONS, **kw)
    return rt, backend
