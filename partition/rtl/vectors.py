"""Test vectors of an RTL kernel, in the files the generic cocotb testbench reads.

Layout (under a task folder, next to `<task>_regmap.json`):

    vectors/manifest.json      what the files are (below)
    vectors/<k>_<name>.in.bin  input of an in/inout array or of a scalar, vector k
    vectors/<k>_<name>.out.bin expected final contents of an out/inout array
    vectors/<k>_return.bin     expected scalar return value
    vectors/<k>_fallback.out.bin  expected fallback register (a kernel with a status)

The .bin files are exactly those of the Vitis HLS C-simulation testbench
(partition.vectors.bin_files: raw elements, row-major, little-endian, no header, bool one byte),
so one profiled vector set feeds both backends. `manifest.json`:

    {"format": "partition-rtl-vectors/1", "kernel": "<task>",
     "params": [{"name", "kind": "array"|"scalar", "dtype", "shape", "direction",
                 "nbytes", "stream": true for an AXI-Stream port of a chain
                 (absent otherwise)}, ...]  # declaration order, as in the register map
     "ret": {"dtype", "nbytes"} | null,
     "vectors": [{"label", "inputs": {name: file}, "outputs": {name: file},
                  "return": file | null, "status": file (a kernel with a status),
                  "traffic": [beats read, beats written] (a kernel that moves a call's
                  own amount: run-time lengths, tiles through DDR; absent otherwise)}, ...],
     "status": {"name": "fallback", "either": 255} (a kernel with a status: the register
               and the expected value that accepts 0 and 1),
     "data": "<folder>" (where the .bin files are, relative to the vectors folder; absent:
             the vectors folder itself)}

File names are relative to the data folder. In a build tree the .bin files are stored once,
in hls/<task>/vectors/, and the RTL's manifest points there (`share_data`). The testbench
(partition.sim.kernel_tb) runs the vectors in order, back to back, and compares integers bit
for bit.
"""

from __future__ import annotations

import dataclasses
import json

from partition import ir
from partition.interp import StepLimit, execute
from partition.regmap import STATUS
from partition.vectors import STATUS_EITHER, VectorSet, bin_files

FORMAT = "partition-rtl-vectors/1"


def vector_files(
    kernel: ir.Kernel, vectors: list[VectorSet], built: ir.Kernel | None = None, bus_bits: int = 32
) -> dict[str, bytes]:
    """{relative path: bytes} of `vectors/` for `kernel` (deterministic). `built`: the IR the
    RTL was built from (a variant's, `RtlKernel.built`) with its m_axi `bus_bits`: a tiled one
    moves tiles, and each vector then states the beats it must read and write."""
    ret_dt = kernel.ret
    if ret_dt is None:
        vectors = [dataclasses.replace(v, ret=None) for v in vectors]
    files = bin_files(kernel, ret_dt, vectors)
    params = [
        {
            "name": p.name,
            "kind": p.kind,
            "dtype": p.dtype.name,
            "shape": list(p.shape),
            "direction": p.direction,
            "nbytes": p.nbytes if p.kind == "array" else p.dtype.nbytes,
            **({"stream": True} if p.stream else {}),
            **(
                {"dyn": p.dyn, "dyn_offset": p.dyn_offset, "row_bytes": p.nbytes // p.shape[0]}
                if p.dyn
                else {}
            ),
        }
        for p in kernel.params
    ]
    entries = []
    for k, vs in enumerate(vectors):
        inputs = {
            p.name: f"{k}_{p.name}.in.bin"
            for p in kernel.params
            if p.kind == "scalar" or p.direction in ("in", "inout")
        }
        outputs = {
            p.name: f"{k}_{p.name}.out.bin"
            for p in kernel.params
            if p.kind == "array" and p.direction in ("out", "inout")
        }
        entries.append(
            {
                "label": vs.label or f"vector {k}",
                "inputs": inputs,
                "outputs": outputs,
                "return": f"{k}_return.bin" if ret_dt is not None else None,
                **({"status": f"{k}_{STATUS}.out.bin"} if kernel.status is not None else {}),
                **({"traffic": traffic(built, vs, bus_bits)} if built is not None and tiled(built) else {}),
            }
        )
    manifest = {
        "format": FORMAT,
        "kernel": kernel.name,
        "params": params,
        "ret": {"dtype": ret_dt.name, "nbytes": ret_dt.nbytes} if ret_dt is not None else None,
        "vectors": entries,
    }
    if kernel.status is not None:
        manifest["status"] = {"name": STATUS, "either": STATUS_EITHER}
    files["vectors/manifest.json"] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    return dict(sorted(files.items()))


def share_data(rtl: dict[str, bytes], hls: dict[str, bytes], hls_vectors: str) -> dict[str, bytes]:
    """The RTL vector files `rtl` with their .bin files left to the HLS testbench's: when every
    one of them is there with the same bytes (the same profiled vectors, `bin_files`), only
    the manifest stays, pointing at `hls_vectors` (relative to the RTL's vectors folder), so
    each vector is stored once in a tree. Else (they differ) `rtl` unchanged."""
    data = {k: v for k, v in rtl.items() if k != "vectors/manifest.json"}
    if any(hls.get(k) != v for k, v in data.items()):
        return rtl
    manifest = json.loads(rtl["vectors/manifest.json"])
    manifest["data"] = hls_vectors
    return {"vectors/manifest.json": (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()}


def tiled(kernel: ir.Kernel) -> bool:
    return any(p.tiled for p in kernel.params)


def traffic(kernel: ir.Kernel, vs: VectorSet, bus_bits: int) -> list[int]:
    """[beats read, beats written] of one call of a tiled `kernel` on vector `vs`: each copy's
    rows in whole beats (it is a transfer of its own), and the arrays it moves whole.

    The copies' rows and counts follow the loop bounds and lengths only, so they come from
    running the kernel without the loops inside its tile loops (cheap for any size)."""
    beat = bus_bits // 8
    try:
        run = execute(_skeleton(kernel), vs.inputs, max_steps=10**7)
    except (KeyError, StepLimit):  # a scalar the skipped loops compute is read after them
        run = execute(kernel, vs.inputs, max_steps=10**8)
    moved = {"in": 0, "out": 0}
    for direction, nbytes in run.copies:
        moved[direction] += -(-nbytes // beat)
    for p in kernel.arrays:
        if p.tiled or p.stream:
            continue
        rows = ir.dyn_rows(p, int(vs.inputs[p.dyn])) if p.dyn else p.shape[0]
        beats = -(-(rows * (p.nbytes // p.shape[0])) // beat)
        moved["in"] += beats if p.direction in ("in", "inout") else 0
        moved["out"] += beats if p.direction in ("out", "inout") else 0
    return [moved["in"], moved["out"]]


def _skeleton(kernel: ir.Kernel) -> ir.Kernel:
    """`kernel` without the loops that hold no copy inside the loops that hold one (a tile
    loop, and the loop over rows of `a` whose body tiles `b` of a product)."""

    def copies(stmts: list[ir.Stmt]) -> bool:
        return any(isinstance(x, ir.Copy) for x in ir.walk_stmts(stmts))

    def walk(body: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in body:
            if isinstance(s, ir.For):
                inner = s.body
                if copies(inner):
                    inner = [x for x in inner if not isinstance(x, ir.For) or copies([x])]
                s = dataclasses.replace(s, body=walk(inner))
            elif isinstance(s, ir.If):
                s = dataclasses.replace(s, then=walk(s.then), orelse=walk(s.orelse))
            out.append(s)
        return out

    body = walk(kernel.body)
    if body and isinstance(body[-1], ir.Return):  # its value may be one the skipped loops compute
        body = body[:-1]
    return dataclasses.replace(kernel, body=body)
