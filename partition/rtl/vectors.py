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
                  "return": file | null, "status": file (a kernel with a status)}, ...],
     "status": {"name": "fallback", "either": 255} (a kernel with a status: the register
               and the expected value that accepts 0 and 1)}

File names are relative to the vectors folder. The testbench (partition.sim.kernel_tb)
runs the vectors in order, back to back, and compares integers bit for bit.
"""

from __future__ import annotations

import dataclasses
import json

from partition import ir
from partition.regmap import STATUS
from partition.vectors import STATUS_EITHER, VectorSet, bin_files

FORMAT = "partition-rtl-vectors/1"


def vector_files(kernel: ir.Kernel, vectors: list[VectorSet]) -> dict[str, bytes]:
    """{relative path: bytes} of `vectors/` for `kernel` (deterministic)."""
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
