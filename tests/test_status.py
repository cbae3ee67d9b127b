"""The fallback status of a kernel (`ir.Kernel.status`): computed by ordinary IR statements, held
in the output scalar `fallback` of the register map, and checked by both backends' testbenches.

A kernel that adds Python ints in 64 bits raises it when a sum leaves int64; the host then runs
the call on the CPU. The interpreter, the C simulation of the HLS C++ and the RTL simulation
must agree on it exactly, and on the outputs whenever it is 0.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_hls_codegen import HAVE_GXX, TEST_FLAGS, arr, b, c, ld, loop, v, write_files

from partition import ir
from partition.boards import load_board
from partition.codegen import CSIM_BINARY, csim_command, generate_hls
from partition.dtypes import DTYPES as D
from partition.estimate import estimate_kernel
from partition.interp import execute
from partition.regmap import STATUS, register_map
from partition.resources import resource_dir
from partition.rtl import generate_rtl, vector_files
from partition.sim import verilator
from partition.vectors import STATUS_EITHER, VectorSet

N = 8
I64 = np.iinfo(np.int64)


def checked_sum() -> ir.Kernel:
    """s = sum(xs) over Python ints held in int64: every add checked, as the frontend emits it."""
    s, t, x = v("s", "int64"), v("t", "int64"), ld("xs", "int64", v("i", "int32"))
    overflow = ir.Cmp("lt", b("and", b("xor", s, t), b("xor", x, t)), c(0, "int64"))
    body = [
        ir.Assign("st", c(0, "uint8")),
        ir.Assign("s", c(0, "int64")),
        loop(
            "i",
            c(0, "int32"),
            c(N, "int32"),
            1,
            [
                ir.Assign("t", b("add", s, x)),
                ir.If(overflow, [ir.Assign("st", c(1, "uint8"))], []),
                ir.Assign("s", t),
            ],
            N,
            label="L1",
        ),
        ir.Return(s),
    ]
    scalars = {"s": D["int64"], "t": D["int64"], "i": D["int32"], "st": D["uint8"]}
    return ir.Kernel(
        "checked_sum", [arr("xs", "int64", (N,))], scalars, [], body, ret=D["int64"], status="st"
    )


def python_sum(xs: np.ndarray) -> int:
    return sum(int(x) for x in xs)


def vectors() -> list[VectorSet]:
    rng = np.random.default_rng(3)
    small = rng.integers(-1000, 1000, N)
    over = np.array([I64.max, 1, 0, 0, 0, 0, 0, 0])  # leaves int64 on the second add
    under = np.array([I64.min, -1, 5, 0, 0, 0, 0, 0])
    back = np.array([I64.max, 1, -1, 0, 0, 0, 0, 0])  # ends in range, but an intermediate did not
    out = []
    for label, xs, status in (
        ("small", small, 0),
        ("overflow", over, 1),
        ("underflow", under, 1),
        ("back in range", back, 1),
        ("either", small, STATUS_EITHER),
    ):
        total = python_sum(xs)
        ret = total if I64.min <= total <= I64.max else 0
        out.append(VectorSet({"xs": xs.astype(np.int64)}, {}, ret, label, None if status == 255 else status))
    return out


def test_the_interpreter_sets_the_status_exactly():
    k = checked_sum()
    for vs in vectors():
        run = execute(k, vs.inputs)
        total = python_sum(vs.inputs["xs"])
        if vs.status is not None:
            assert run.status == vs.status, vs.label
        if run.status == 0:
            assert run.ret == total


def test_the_register_map_ends_with_the_fallback_output():
    rm = register_map(checked_sum())
    last = rm.registers[-1]
    assert (last.name, last.kind, last.bits) == (STATUS, "status", 8)
    assert last.offset == rm.by_name("xs").offset + 12  # after the 64-bit pointer and its reserved word
    assert rm.argument_words == 2  # the host writes the pointer only


def test_the_estimate_counts_the_status_register():
    k = checked_sum()
    assert estimate_kernel(k, load_board("pynq-z2")).cycles > 0


def _csim(tmp_path: Path, vecs: list[VectorSet]) -> subprocess.CompletedProcess:
    k = checked_sum()
    files = generate_hls(k, vecs, part="xc7z020clg400-1", clock_mhz=100.0)
    (tmp_path / "include").mkdir(parents=True, exist_ok=True)
    shutil.copy(resource_dir("hls") / "partition_ops.h", tmp_path / "include" / "partition_ops.h")
    task = tmp_path / k.name
    write_files(task, files)
    src = files[f"{k.name}.cpp"].decode()
    assert f"*{STATUS} = st;" in src and f"port={STATUS} bundle=control" in src
    build = subprocess.run(
        csim_command(k.name, "../include", TEST_FLAGS), cwd=task, capture_output=True, text=True
    )
    assert build.returncode == 0, build.stderr
    return subprocess.run([f"./{CSIM_BINARY}"], cwd=task, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_c_simulation_checks_the_status(tmp_path):
    run = _csim(tmp_path / "good", vectors())
    assert run.returncode == 0, run.stdout
    assert "vector 1 (overflow): PASS (falls back to the CPU, as expected)" in run.stdout
    assert "vector 3 (back in range): PASS (falls back to the CPU, as expected)" in run.stdout
    assert "vector 0 (small): PASS" in run.stdout
    wrong = vectors()
    wrong[1].status = 0  # a kernel that must not fall back here would fail
    run = _csim(tmp_path / "bad", wrong)
    assert run.returncode == 1
    assert "vector 1 (overflow): FAIL fallback: got 1, want 0" in run.stdout


@pytest.mark.sim
def test_rtl_simulation_checks_the_status(verilator_env, tmp_path):
    k = checked_sum()
    rtl = generate_rtl(k, load_board("pynq-z2"))
    folder = tmp_path / "rtl"
    write_files(folder, {**rtl.files, **vector_files(k, vectors())})
    manifest = json.loads((folder / "vectors" / "manifest.json").read_text())
    assert manifest["status"] == {"name": STATUS, "either": STATUS_EITHER}
    results = folder / "results.jsonl"
    model = verilator.build([folder / s for s in rtl.sources], rtl.top, folder / "build")
    res = verilator.run_test(
        model,
        "partition.sim.kernel_tb",
        folder / "run",
        testcase=["test_vectors"],
        extra_env={"PARTITION_TB_DIR": str(folder), "PARTITION_RESULTS": str(results)},
    )
    assert not res.error and res.passed == ["test_vectors"], res.log_tail()
    runs = [json.loads(x) for x in results.read_text().splitlines()]
    assert [r["fallback"] for r in runs] == [0, 1, 1, 1, 0]
    assert all(not r["errors"] for r in runs)
