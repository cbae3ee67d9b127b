"""The runtime's pynq backend with the real pynq package (3.1.2, numpy < 2), off the board.

A separate venv (.venv-pynq, made once: pynq pins numpy < 2, the tool needs numpy >= 2)
runs tests/host_pynq/pynq_checks.py: pynq.Overlay loads PYNQ's own resizer design
(resizer.hwh from the pynqmetadata wheel: the HLS IP xilinx.com:hls:resize_accel:1.0 of
PYNQ's resizer overlay, Pynq-Z1/Z2, Vivado 2019.2) on a mock Device, binds the runtime's
driver by VLNV, and the checks assert where every register write, poll and cache
operation goes. The generated calibration script runs there too, and its output feeds
`partition plan --board-overrides`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from partition import ir
from partition.boards import load_board
from partition.codegen import generate_host, host_spec
from partition.dtypes import dtype
from partition.profile.model import dump_json

ROOT = Path(__file__).resolve().parent.parent
HOST = ROOT / "host"
HELPERS = Path(__file__).resolve().parent / "host_pynq"
sys.path.insert(0, str(HELPERS))

from board_venv import board_python_or_skip  # noqa: E402


@pytest.fixture(scope="session")
def board_python() -> Path:
    return board_python_or_skip()


def _scalar(name: str, pos: int, dt: str = "int32") -> ir.Param:
    return ir.Param(name, "scalar", dtype(dt), (), "in", "int", ("arg", pos))


def _kernel(name: str, params: list[ir.Param], py_params: list[str], **kw) -> ir.Kernel:
    return ir.Kernel(
        name=name,
        params=params,
        scalars={},
        locals=[],
        body=[],
        source_file="resizer.py",
        source_line=1,
        py_params=py_params,
        **kw,
    )


def _plan(task: str, kernel: str) -> dict:
    return {
        "app": "resizer.py",
        "tasks": [
            {
                "name": task,
                "kernel": kernel,
                "placement": "fpga",
                "calls": 1,
                "cpu_s": 1e-3,
                "host_s": 1e-5,
                "fpga": {"total_s": 1e-4, "compute_s": 5e-5, "overhead_s": 5e-5, "copy_out_s": 0.0},
            }
        ],
        "edges": [],
    }


RESIZE_ARGS = ["src_rows", "src_cols", "dst_rows", "dst_cols"]


def _resize_kernel(order: list[str]) -> ir.Kernel:
    return _kernel("resize_accel", [_scalar(n, RESIZE_ARGS.index(n)) for n in order], RESIZE_ARGS)


def _vmix_kernel() -> ir.Kernel:
    params = [
        ir.Param("src", "array", dtype("int16"), (64,), "in", "ndarray", ("arg", 0)),
        ir.Param("acc", "array", dtype("float32"), (4, 4), "inout", "ndarray", ("arg", 1)),
        ir.Param("out_r", "array", dtype("int32"), (64,), "out", "ndarray", ("return", 0)),
        _scalar("n", 2),
    ]
    return _kernel(
        "resize_accel",
        params,
        ["src", "acc", "n"],
        ret=dtype("int64"),
        ret_pytype="int",
        returns=[("param", "out_r"), ("scalar", "int64")],
        return_tuple=True,
    )


def _resizer_hwh(python: Path) -> Path:
    code = "import pathlib, pynqmetadata; print(pathlib.Path(pynqmetadata.__file__).parent / 'tests/hwhs/resizer.hwh')"
    r = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    path = Path(r.stdout.strip())
    assert path.is_file(), path
    return path


def _overlay(folder: Path, hwh: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "resizer.hwh").write_bytes(hwh.read_bytes())
    (folder / "resizer.bit").write_bytes(b"stand-in bitstream: the mock device does not program a PL\n")


@pytest.fixture(scope="module")
def pynq_work(tmp_path_factory, board_python) -> Path:
    work = tmp_path_factory.mktemp("pynq")
    _overlay(work / "overlay", _resizer_hwh(board_python))
    board = load_board("pynq-z2")
    specs = {
        "scalar_kernels.json": host_spec(
            [_resize_kernel(RESIZE_ARGS)], _plan("resize", "resize_accel"), board
        ),
        "swapped_kernels.json": host_spec(
            [_resize_kernel(["src_cols", "src_rows", "dst_rows", "dst_cols"])],
            _plan("resize", "resize_accel"),
            board,
        ),
        "buffer_kernels.json": host_spec([_vmix_kernel()], _plan("vmix", "resize_accel"), board),
    }
    for name, spec in specs.items():
        (work / name).write_text(dump_json(spec))
    return work


def test_pynq_backend_with_real_pynq(pynq_work, board_python):
    r = subprocess.run(
        [str(board_python), str(HELPERS / "pynq_checks.py"), str(pynq_work), str(HOST)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pynq 3.1.2, numpy 1." in r.stdout
    for name in (
        "overlay_binding_and_scalar_registers",
        "buffers_and_cache_maintenance",
        "timeout_names_kernel",
        "register_mismatch_refused",
        "missing_overlay_files",
        "no_download_keeps_clock_alone",
    ):
        assert f"ok {name}" in r.stdout, r.stdout


def test_calibration_on_mock_board_feeds_plan(pynq_work, board_python, tmp_path):
    """The generated calibration script, with pynq and an overlay: every figure, then `plan` uses them."""
    board = load_board("pynq-z2")
    kernel = _resize_kernel(RESIZE_ARGS)
    files = generate_host(
        "resizer.py", b"def resize(a, b, c, d):\n    pass\n", [kernel], _plan("resize", "resize_accel"), board
    )
    tree = tmp_path / "build"
    for rel, data in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    _overlay(tree / "host" / "overlay", pynq_work / "overlay" / "resizer.hwh")
    vectors = tree / "hls" / "resize_accel" / "vectors"
    vectors.mkdir(parents=True)
    for name, value in zip(RESIZE_ARGS, (480, 640, 240, 320)):
        (vectors / f"0_{name}.in.bin").write_bytes(value.to_bytes(4, "little", signed=True))
    out = tmp_path / "pynq-z2.measured.toml"
    r = subprocess.run(
        [
            str(board_python),
            str(HELPERS / "run_with_mock.py"),
            str(tree / "boards" / "pynq-z2.calibrate.py"),
            "--repeats",
            "3",
            "--calls",
            "5",
            "--mmio",
            "50",
            "--max-size",
            str(64 << 10),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel resize_accel reproduced vector 0" in r.stdout, r.stdout
    import tomllib

    data = tomllib.loads(out.read_text())
    assert set(data["interface"]) == {
        "mmio_write_us",
        "mmio_read_us",
        "call_overhead_us",
        "copy_to_cma_MBps",
        "copy_from_cma_MBps",
        "sync_us",
    }
    assert all(v > 0 for v in data["interface"].values()) and data["cpu"]["bench_ns"] > 0
    measured = load_board("pynq-z2", overrides=out)
    assert measured.interface["mmio_write_us"] == data["interface"]["mmio_write_us"]
    assert measured.source("interface", "sync_us") == f"measured: {out.name}"
    app = ROOT / "tests" / "cli_apps" / "small_app.py"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "partition",
            "plan",
            str(app),
            "--board",
            "pynq-z2",
            "--board-overrides",
            str(out),
            "--out",
            str(tmp_path / "plan"),
            "--quiet",
            "--",
            "300",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    plan = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert plan["scaling"]["board_bench_ns"] == pytest.approx(data["cpu"]["bench_ns"])
