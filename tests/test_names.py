"""Any valid Python identifier becomes a valid, unique C++ and Verilog name: leading, trailing
and double underscores, C++ and Verilog reserved words, names that meet after mangling. A
kernel made of such names compiles, and computes what Python does, in C simulation and in
RTL simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from partition.boards import load_board
from partition.codegen.cexpr import check_identifier
from partition.fuzz import Case, rtlsim, run
from partition.names import RESERVED, c_name

NAMES = ["_fict_", "__init__", "a__b", "a_b", "_1", "x_", "in", "reg", "_X", "lambda_", "_", "___",
         "résumé", "class_", "Fallback", "ap_start", "m_axi_x", "__tmp__", "wire"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_every_identifier_maps_to_a_safe_name(name):
    safe = c_name(name)
    assert check_identifier(safe, "name") == safe
    assert safe not in RESERVED and safe.lower() not in RESERVED
    assert not safe.startswith("_") and safe not in ("ap_start", "m_axi_x")


SOURCE = '''
import numpy as np


def awkward(_fict_, a__b, a_b, reg, _1=3):
    """Parameters and locals whose names are not C++ or Verilog names as they stand."""
    __acc__ = 0
    wire = 0
    for in_ in range(_fict_.shape[0]):
        __acc__ += int(_fict_[in_]) * a__b + a_b
        wire = max(wire, int(_fict_[in_]) - reg)
    _fict_[0] = _1
    return __acc__ + wire
'''


@pytest.mark.sim
def test_a_kernel_of_awkward_names_agrees_with_python(tmp_path: Path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    rng = np.random.default_rng(5)
    calls = [(rng.integers(-100, 100, 12).astype(np.int16), int(rng.integers(-9, 9)), int(rng.integers(-9, 9)),
              int(rng.integers(-50, 50)), 3) for _ in range(4)]  # fmt: skip
    case = Case(1, "awkward", SOURCE, calls, False, [])
    work = tmp_path
    (work / "app").mkdir()
    (work / "csim").mkdir()
    rtl_dir = work / "rtl" if rtlsim.available() else None
    p = run.prepare_case(case, work / "app", work / "csim", rtl_dir, load_board("pynq-z2"))
    assert p.result.status == "accepted", (p.result.reason, p.result.details)
    run.backends([p], work / "csim", work / "rtl")
    assert p.result.stages["csim"] == "pass", p.result.details
    if rtl_dir is not None:
        assert p.result.stages["rtl"] == "pass", p.result.details
    params = [q.name for q in p.kernel.params]
    assert len(params) == len(set(params)) and "a_b" in params and "fict_r" in params
