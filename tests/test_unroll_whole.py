"""Small loop nests unrolled whole (`unrollall`): the loop around them pipelines over the copies.

A 32-tap filter's taps and a 3 x 3 window become one pipelined iteration per output, the
arrays partitioned so one iteration's reads fall on few banks, integer accumulations added as
balanced trees (exact: integer addition wraps) and the copies' fallback checks or-ed together.
The unrolled IR must compute exactly what the kernel does (the interpreter on every vector), the
built-in RTL of the variant must pass every vector through its AXI interfaces, and the HLS
C++ with its pragmas must pass C simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_util import case_kernel, hls_headers, variant_csim

from partition.boards import load_board
from partition.estimate.variants import candidate_directives, estimate_variant, unroll_kernel
from partition.fuzz import rtlsim
from partition.interp import execute

APP_DIR = Path(__file__).parent
rng = np.random.default_rng(25)


def fir16(x, h):
    y = np.zeros(len(x), dtype=np.int32)
    for n in range(15, len(x)):
        acc = 0
        for k in range(16):
            acc += int(x[n - k]) * int(h[k])
        y[n] = acc
    return y


def conv3x3(img, w):
    h, wd = img.shape
    out = np.zeros((h, wd), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, wd - 1):
            s = 0
            for dy in range(3):
                for dx in range(3):
                    s += int(img[y + dy - 1, x + dx - 1]) * int(w[dy, dx])
            out[y, x] = s
    return out


def q15_fir8(x, h):
    """Wrapping int32 accumulation (numpy scalars): no checks, a balanced adder tree."""
    y = np.zeros(len(x), dtype=np.int32)
    for n in range(7, len(x)):
        acc = np.int32(0)
        for k in range(8):
            acc += np.int32(x[n - k]) * np.int32(h[k])
        y[n] = acc >> 15
    return y


CASES = {
    "fir16": (
        fir16,
        lambda: (
            rng.integers(-32768, 32767, 256).astype(np.int16),
            rng.integers(-4096, 4096, 16).astype(np.int16),
        ),
    ),
    "conv3x3": (
        conv3x3,
        lambda: (
            rng.integers(0, 256, (16, 20)).astype(np.uint8),
            rng.integers(-128, 127, (3, 3)).astype(np.int8),
        ),
    ),
    "q15_fir8": (
        q15_fir8,
        lambda: (
            rng.integers(-32768, 32767, 128).astype(np.int16),
            rng.integers(-32768, 32767, 8).astype(np.int16),
        ),
    ),
}


def kernel_of(name):
    return case_kernel(CASES, name, APP_DIR)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unrolled_whole_computes_what_the_kernel_does(name):
    k, vectors = kernel_of(name)
    board = load_board("pynq-z2")
    d = next(d for d in candidate_directives(k, board) if d.name == "unrollall")
    u = unroll_kernel(k, dict(d.unroll))
    for vs in vectors:
        a, b = execute(k, vs.inputs, max_steps=10**7), execute(u, vs.inputs, max_steps=10**7)
        assert a.status == b.status and a.ret == b.ret
        for p in k.arrays:
            assert np.array_equal(a.arrays[p.name], b.arrays[p.name]), (name, p.name)
    base = estimate_variant(k, board, candidate_directives(k, board)[0])
    whole = estimate_variant(k, board, d)
    assert whole.cycles * 3 < base.cycles, (whole.cycles, base.cycles)  # the point of it


@pytest.mark.skipif(not rtlsim.available(), reason="needs Icarus Verilog")
def test_rtl_of_the_variant_passes_every_vector(tmp_path):
    board = load_board("pynq-z2")
    items = []
    for seed, name in enumerate(sorted(CASES)):
        k, vectors = kernel_of(name)
        items.append(rtlsim.prepare(k, vectors, board, tmp_path / name, seed, variant="unrollall"))
    assert all(it.variant == "unrollall" and not it.fallback for it in items), [
        (it.variant, it.fallback) for it in items
    ]
    got = rtlsim.run_batch(items, tmp_path)
    assert all(r.status == "pass" for r in got.values()), got


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_csim_of_the_variant(tmp_path):
    hls_headers(tmp_path)
    board = load_board("pynq-z2")
    for name in sorted(CASES):
        k, vectors = kernel_of(name)
        d = next(d for d in candidate_directives(k, board) if d.name == "unrollall")
        text = variant_csim(tmp_path, k, vectors, d, board)
        assert "#pragma HLS UNROLL\n" in text and "ARRAY_PARTITION" in text
