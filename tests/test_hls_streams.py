"""AXI-Stream ports of chained kernels in the Vitis HLS C++: C simulation against Python."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_hls_codegen import TEST_FLAGS, compile_and_run, k_arrays, needs_gxx, write_files

from partition import ir
from partition.codegen import CSIM_FLAGS, generate_hls
from partition.errors import PartitionError
from partition.regmap import register_map
from partition.resources import resource_dir

STREAMS = ["b", "flags", "out"]


def _tree(tmp_path: Path, streams: list[str]) -> tuple[Path, dict[str, bytes]]:
    (tmp_path / "include").mkdir(exist_ok=True)
    shutil.copy(resource_dir("hls") / "partition_ops.h", tmp_path / "include" / "partition_ops.h")
    kernel, vectors = k_arrays(np.random.default_rng(7))
    files = generate_hls(ir.with_streams(kernel, streams), vectors, part="xc7z020clg400-1", clock_mhz=100.0)
    write_files(tmp_path / kernel.name, files)
    return tmp_path / kernel.name, files


def test_streamed_ports_replace_the_m_axi_copies():
    kernel, vectors = k_arrays(np.random.default_rng(7))
    files = generate_hls(ir.with_streams(kernel, STREAMS), vectors, part="xc7z020clg400-1", clock_mhz=100.0)
    cpp, h = files["arrays.cpp"].decode(), files["arrays.h"].decode()
    for name in STREAMS:
        assert f"#pragma HLS INTERFACE mode=axis port={name}\n" in cpp
        assert f"port={name} offset=slave" not in cpp
        assert f"hls::stream<uint64_t>& {name}" in h
    assert "port=a offset=slave bundle=gmem" in cpp  # the inout array keeps its m_axi
    # flags: 6 bools = 6 bytes = 1 beat; b: 6 float64 = 6 beats; out: 6 uint16 = 12 bytes = 2 beats
    assert "i < 1; ++i) {  // AXI-Stream chain" in cpp
    assert "i < 6; ++i) {  // AXI-Stream chain" in cpp
    assert "out.write(pt::pack_beat<uint16_t>(out_buf, 6, i));" in cpp
    assert '#include "partition_ops.h"' in h
    plain = generate_hls(kernel, vectors, part="xc7z020clg400-1", clock_mhz=100.0)
    assert "hls::stream" not in plain["arrays.h"].decode() + plain["arrays.cpp"].decode()


@pytest.mark.parametrize("names, why", [(["a"], "'a'"), (["i"], "'i'"), (["nope"], "nope")])
def test_only_pure_in_or_out_arrays_stream(names, why):
    kernel, _ = k_arrays(np.random.default_rng(7))
    with pytest.raises(PartitionError, match=f"cannot stream .*{why}"):
        ir.with_streams(kernel, names)


def test_a_streamed_array_has_no_register():
    kernel, _ = k_arrays(np.random.default_rng(7))
    before = {r.name for r in register_map(kernel).registers}
    after = {r.name for r in register_map(ir.with_streams(kernel, STREAMS)).registers}
    assert before - after == set(STREAMS)


@needs_gxx
def test_streamed_kernel_passes_csim_and_a_wrong_result_fails(tmp_path: Path):
    task_dir, _ = _tree(tmp_path, STREAMS)
    build, run = compile_and_run(task_dir, "arrays")
    assert build.returncode == 0, build.stderr[-3000:]
    assert run is not None and run.returncode == 0, run.stdout + run.stderr
    assert "arrays csim: PASS (2 of 2 vectors)" in run.stdout
    want = task_dir / "vectors" / "0_out.out.bin"
    data = bytearray(want.read_bytes())
    data[-1] ^= 1  # the last element, in the second (partial) beat
    want.write_bytes(bytes(data))
    again = subprocess.run(["./csim"], cwd=task_dir, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "vector 0 (random 0): FAIL" in again.stdout


@needs_gxx
def test_a_kernel_that_streams_too_few_beats_fails(tmp_path: Path):
    task_dir, files = _tree(tmp_path, STREAMS)
    cpp = files["arrays.cpp"].decode().replace("i < 2; ++i) {  // AXI-Stream chain", "i < 1; ++i) {  //")
    (task_dir / "arrays.cpp").write_text(cpp)
    build, run = compile_and_run(task_dir, "arrays")
    assert build.returncode == 0, build.stderr[-3000:]
    assert run is not None and run.returncode == 1
    assert "the kernel streamed 1 beats, the array takes 2" in run.stdout


LAYOUT = r"""
#include "partition_ops.h"
#include <stdio.h>
#include <string.h>

template <class T> int check(const T* a, int n) {
  unsigned char bytes[64] = {0};
  memcpy(bytes, a, n * pt::beat_layout<T>::bytes);
  const int beats = (n * pt::beat_layout<T>::bytes + 7) / 8;
  T back[16];
  for (int b = 0; b < beats; ++b) {
    uint64_t want = 0;
    for (int k = 7; k >= 0; --k) want = (want << 8) | bytes[8 * b + k];
    const uint64_t got = pt::pack_beat<T>(a, n, b);
    if (got != want) { printf("beat %d: %016llx != %016llx\n", b, (unsigned long long)got, (unsigned long long)want); return 1; }
    pt::unpack_beat<T>(got, back, n, b);
  }
  return memcmp(back, a, n * sizeof(T)) != 0;
}

int main() {
  const int8_t i8[5] = {-1, 2, -128, 127, 5};
  const int16_t i16[3] = {-2, 300, -32768};
  const float f32[3] = {1.5f, -0.0f, 3.25e-3f};
  const double f64[2] = {-2.5, 1e300};
  const uint64_t u64[2] = {0x0123456789abcdefull, 1};
  const bool b[9] = {true, false, true, true, false, false, false, true, true};
  int bad = check(i8, 5) + check(i16, 3) + check(f32, 3) + check(f64, 2) + check(u64, 2) + check(b, 9);
  printf(bad ? "FAIL\n" : "OK\n");
  return bad;
}
"""


@needs_gxx
def test_a_beat_carries_the_array_bytes_as_they_lie_in_ddr(tmp_path: Path):
    """The stream is interchangeable with the buffer: beat k = bytes 8k..8k+7 of the array."""
    shutil.copy(resource_dir("hls") / "partition_ops.h", tmp_path / "partition_ops.h")
    (tmp_path / "layout.cpp").write_text(LAYOUT)
    cmd = ["g++", *CSIM_FLAGS, *TEST_FLAGS, "-I.", "layout.cpp", "-o", "layout"]
    build = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run(["./layout"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout
