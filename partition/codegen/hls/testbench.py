"""What the C-simulation testbench needs besides the kernel: float tolerances, its own names, vector labels.

The testbench (templates/hls/tb.cpp.j2) compares every output with the
expected one from the vectors; floats within FLOAT_TOLERANCE. The host
runtime and the fuzzer compare with the same tolerances, so they are kept
here, apart from the kernel printer, for all of them.
"""

from __future__ import annotations

from typing import Any

from partition import ir
from partition.codegen.cexpr import c_string
from partition.dtypes import DType
from partition.names import printable
from partition.vectors import VectorSet

# Float outputs match when |got - want| <= atol + rtol * max|want| over the array (NaN matches
# NaN): sums run in index order where numpy's run pairwise or in BLAS order, which after
# cancellation moves a small result by a few ulp of the array's magnitude, not of its own.
# C simulation of IEEE basic operations is bit-exact (the testbench reports the
# largest ulp distance); the margin covers the synthesised operators, which flush
# subnormals to zero (Floating-Point Operator, PG060), in co-simulation.
FLOAT_TOLERANCE: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-15),
}


def tolerance(dt: DType) -> dict[str, str]:
    """rtol/atol of a float dtype as C++ literals (0 for exact types)."""
    rtol, atol = FLOAT_TOLERANCE.get(dt.name, (0, 0))
    return {"rtol": repr(rtol), "atol": repr(atol)}


def testbench_names(k: ir.Kernel) -> set[str]:
    """The identifiers the testbench declares next to the kernel's top function."""
    tb_names = {"tb_probe", "tb_passed", "tb_k", "tb_errors", "tb_got_return", "tb_want_return"}
    tb_names |= {"tb_verdict", "tb_vectors", "tb_labels", "tb_want_fallback", "tb_got_fallback"}
    tb_names |= {f"{prefix}_{p.name}" for p in k.params for prefix in ("arg", "want", "strm")}
    return tb_names


def testbench_context(vectors: list[VectorSet]) -> dict[str, Any]:
    """The testbench's and the vectors README's part of the template context."""
    return {
        "labels": [c_string(v.label or f"vector {k}") for k, v in enumerate(vectors)],
        "readme_labels": [printable(v.label or f"vector {k}") for k, v in enumerate(vectors)],
        "nvectors": len(vectors),
        "tolerance": [
            {"dtype": name, "rtol": repr(rt), "atol": repr(at)} for name, (rt, at) in FLOAT_TOLERANCE.items()
        ],
    }
