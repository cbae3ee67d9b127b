"""A plan never fails because of one function: whatever goes wrong for a function keeps it on
the CPU with a one-line reason, and the rest of the app is planned as usual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from partition.boards import load_board
from partition.errors import PartitionError
from partition.plan import Options, make_plan
from partition.profile import run_profile

APP = """
import numpy as np


def scale(x):
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = np.int32(x[i]) * 3
    return out


def offset(x):
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = x[i] + 7
    return out


def main():
    x = np.arange(256, dtype=np.int16)
    for _ in range(2):
        offset(scale(x))
    return str(len(x))  # main stays on the CPU (no str in a kernel): the two functions are the tasks


if __name__ == "__main__":
    main()
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("soundness")
    path = folder / "two_kernels.py"
    path.write_text(APP)
    return path, run_profile(path, [], samples=2, baseline=False)


def _plan(app, **opts):
    path, profile = app
    return make_plan(profile, path.parent, load_board("pynq-z2"), Options(**opts))


def _task(plan, name: str) -> dict:
    return next(t for t in plan.data["tasks"] if t["name"] == name)


def test_both_functions_are_kernels_when_nothing_goes_wrong(app):
    plan = _plan(app)
    assert {_task(plan, n)["placement"] for n in ("scale", "offset")} == {"fpga"}
    assert plan.data["warnings"] == []


def test_a_frontend_failure_keeps_only_that_function_on_the_cpu(app, monkeypatch):
    import partition.plan.preparation as prepare

    real = prepare.translate

    def broken(fp, *a, **kw):
        if fp.name == "scale":
            raise TypeError("unexpected node")
        return real(fp, *a, **kw)

    monkeypatch.setattr(prepare, "translate", broken)
    monkeypatch.delenv("PARTITION_DEBUG", raising=False)
    plan = _plan(app)
    t = _task(plan, "scale")
    assert t["placement"] == "cpu"
    assert "partition failed while translating it (TypeError: unexpected node)" in t["reason"]
    assert "bug in partition" in t["reason"]
    assert _task(plan, "offset")["placement"] == "fpga"
    monkeypatch.setenv("PARTITION_DEBUG", "1")  # with the debug switch the traceback comes out
    with pytest.raises(TypeError):
        _plan(app)


def test_recorded_calls_that_do_not_fit_the_kernel_keep_it_on_the_cpu(app, monkeypatch):
    import partition.plan.preparation as prepare

    real = prepare.kernel_vectors

    def disagreeing(kernel, fp):
        if kernel.name == "offset":
            raise PartitionError("kernel offset vector 0 (profiled 0) return value: 828 is outside int8")
        return real(kernel, fp)

    monkeypatch.setattr(prepare, "kernel_vectors", disagreeing)
    plan = _plan(app)
    t = _task(plan, "offset")
    assert t["placement"] == "cpu"
    assert t["reason"] == (
        "not translatable: two_kernels.py:12: its recorded calls do not fit the kernel's types: "
        "kernel offset vector 0 (profiled 0) return value: 828 is outside int8"
    )
    assert _task(plan, "scale")["placement"] == "fpga"


def test_an_estimator_failure_keeps_only_that_function_on_the_cpu(app, monkeypatch):
    import partition.plan.preparation as prepare

    real = prepare.kernel_variants

    def broken(kernel, *a, **kw):
        if kernel.name == "offset":
            raise ZeroDivisionError("division by zero")
        return real(kernel, *a, **kw)

    monkeypatch.setattr(prepare, "kernel_variants", broken)
    monkeypatch.delenv("PARTITION_DEBUG", raising=False)
    plan = _plan(app)
    assert "while estimating its kernel (ZeroDivisionError" in _task(plan, "offset")["reason"]
    assert _task(plan, "scale")["placement"] == "fpga"


def test_an_rtl_backend_failure_leaves_the_kernel_on_the_hls_path(app, monkeypatch):
    import partition.plan.make as make

    def broken(*a, **kw):
        raise IndexError("list index out of range")

    monkeypatch.setattr(make, "generate_rtl", broken)
    monkeypatch.delenv("PARTITION_DEBUG", raising=False)
    plan = _plan(app)
    t = _task(plan, "scale")
    assert t["placement"] == "fpga"
    assert t["rtl"]["status"] == "unsupported"
    assert "while building its RTL (IndexError" in t["rtl"]["reason"]


def test_fpga_pins_that_cannot_be_honoured_are_dropped_with_a_warning(app):
    plan = _plan(app, pin_fpga=["main", "scale"])
    assert _task(plan, "main")["placement"] == "cpu"
    assert _task(plan, "scale")["placement"] == "fpga"
    (w,) = plan.data["warnings"]
    assert w.startswith("--pin-fpga main: it cannot become a kernel, so it stays on the CPU: two_kernels.py:")
    plan = _plan(app, pin_fpga=["scale"], max_util=0.012)
    assert _task(plan, "scale")["placement"] == "cpu"
    assert any(
        w.startswith("--pin-fpga scale: no variant fits the budget on its own") for w in plan.data["warnings"]
    )
    json.dumps(plan.data)  # still a plain JSON document
