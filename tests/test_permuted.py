"""Reduction loops moved outward (`permuted` variants): exact, faster, and built by both backends.

A matrix product or a filter written as `for j: acc = 0; for k: acc += ...; out[j] = acc` keeps
a chain from one k to the next: its loop runs at the add's latency per iteration (4-5 cycles
for a float add). The `permuted` variants run k outside j with one accumulator per j, so the
innermost loop has no chain. Every element still sums its terms in Python's order, so the
variant must compute exactly what the kernel does, floats included: the IR interpreter on
every vector, the built-in RTL through its AXI interfaces, and the HLS C++ in C simulation.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_util import case_kernel, hls_headers, profile_calls, variant_csim

from partition.boards import load_board
from partition.estimate.variants import build_kernel, candidate_directives, estimate_variant
from partition.frontend import Rejected, translate
from partition.fuzz import rtlsim
from partition.interp import execute

APP_DIR = Path(__file__).parent
rng = np.random.default_rng(41)


def matmul_f32(a, b):
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s
    return c


def matmul_i32(a, b):
    """Wrapping int32 sums of int16 products, as NumPy computes them."""
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.int32)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = np.int32(0)
            for k in range(a.shape[1]):
                s += np.int32(a[i, k]) * np.int32(b[k, j])
            c[i, j] = s
    return c


def fir_q15(x, h):
    y = np.zeros(len(x), dtype=np.int32)
    for n in range(len(h) - 1, len(x)):
        acc = np.int32(0)
        for k in range(len(h)):
            acc += np.int32(x[n - k]) * np.int32(h[k])
        y[n] = acc >> 15
    return y


CASES = {
    "matmul_f32": (
        matmul_f32,
        lambda: (
            rng.standard_normal((6, 20)).astype(np.float32),
            rng.standard_normal((20, 12)).astype(np.float32),
        ),
    ),
    "matmul_i32": (
        matmul_i32,  # full-range int16: the int32 sums wrap
        lambda: (
            rng.integers(-32768, 32768, (5, 24)).astype(np.int16),
            rng.integers(-32768, 32768, (24, 9)).astype(np.int16),
        ),
    ),
    "fir_q15": (
        fir_q15,
        lambda: (
            rng.integers(-32768, 32768, 200).astype(np.int16),
            rng.integers(-32768, 32768, 12).astype(np.int16),
        ),
    ),
}


def kernel_of(name):
    return case_kernel(CASES, name, APP_DIR)


def permuted(k, board):
    return [d for d in candidate_directives(k, board) if d.permute]


@pytest.mark.parametrize("name", sorted(CASES))
def test_permuted_variants_compute_what_the_kernel_does(name):
    k, vectors = kernel_of(name)
    board = load_board("pynq-z2")
    ds = permuted(k, board)
    assert {d.name for d in ds} >= {"permuted", "permuted_unroll2"}, [d.name for d in ds]
    for d in ds:
        built = build_kernel(k, board, d)
        for vs in vectors:
            a, b = execute(k, vs.inputs, max_steps=10**7), execute(built, vs.inputs, max_steps=10**7)
            assert a.status == b.status and a.ret == b.ret
            for p in k.arrays:  # bit for bit, floats included: each sum keeps its order
                assert a.arrays[p.name].tobytes() == b.arrays[p.name].tobytes(), (name, d.name, p.name)


def test_the_float_product_gains_what_the_add_latency_cost():
    k, _ = kernel_of("matmul_f32")
    board = load_board("pynq-z2")
    base = estimate_variant(k, board, candidate_directives(k, board)[0])
    perm = estimate_variant(k, board, permuted(k, board)[0])
    assert perm.cycles * 2 < base.cycles, (perm.cycles, base.cycles)
    assert "reduction loops moved outward" in " ".join(perm.notes)


def test_a_running_sum_is_not_permuted():
    def prefix_rows(a):
        out = np.zeros(a.shape, dtype=np.int32)
        for i in range(a.shape[0]):
            s = np.int32(0)
            for j in range(a.shape[1]):
                s += a[i, j]
                out[i, j] = s
        return out

    fp = profile_calls(prefix_rows, [(rng.integers(-9, 9, (4, 7)).astype(np.int32),)], APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    assert permuted(k, load_board("pynq-z2")) == []


@pytest.mark.skipif(not rtlsim.available(), reason="needs Icarus Verilog")
def test_rtl_of_the_permuted_variants_passes_every_vector(tmp_path):
    board = load_board("pynq-z2")
    items = []
    for seed, name in enumerate(["fir_q15", "matmul_i32"]):
        k, vectors = kernel_of(name)
        for variant in ("permuted", "permuted_unroll2"):  # one simulation: a module name each
            kv = dataclasses.replace(k, name=f"{name}_{variant}")
            items.append(rtlsim.prepare(kv, vectors, board, tmp_path / kv.name, seed, variant=variant))
    assert all(it.variant.startswith("permuted") and not it.fallback for it in items), [
        (it.variant, it.fallback) for it in items
    ]
    got = rtlsim.run_batch(items, tmp_path)
    assert all(r.status == "pass" for r in got.values()), got


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_csim_of_the_permuted_variants(tmp_path):
    hls_headers(tmp_path)
    board = load_board("pynq-z2")
    for name in sorted(CASES):
        k, vectors = kernel_of(name)
        variant_csim(
            tmp_path, k, vectors, next(d for d in permuted(k, board) if d.name == "permuted_unroll2"), board
        )
