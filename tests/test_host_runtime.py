"""The host runtime (host/partition_runtime) and the host code partition generates.

* runtime scenarios over a fake in-memory board (tests/host_pynq/scenarios.py), with
  specs of the kernels in tests/host_pynq/kernel_models.py written by
  partition.codegen.host.host_spec;
* the same scenarios under the board's interpreter (Python 3.10, numpy < 2) when the
  board-like venv can be made (see test_host_pynq.py);
* a generated build tree: run_app.py --backend cpu reproduces the app, --check passes,
  a wrong kernel makes it fail; the calibration script; `partition plan --board-overrides`;
* the Python 3.10 lint (vermin) over host/.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from partition import ir, ir_json
from partition.boards import load_board
from partition.codegen import executables, generate_host, host_spec
from partition.dtypes import dtype
from partition.errors import PartitionError
from partition.profile.model import dump_json

ROOT = Path(__file__).resolve().parent.parent
HOST = ROOT / "host"
HELPERS = Path(__file__).resolve().parent / "host_pynq"
for p in (str(HOST), str(HELPERS)):
    if p not in sys.path:
        sys.path.insert(0, p)

import kernel_models  # noqa: E402
import scenarios  # noqa: E402
from board_venv import board_python_or_skip  # noqa: E402


@pytest.fixture(scope="session")
def board_python() -> Path:
    """python of the board-like venv (.venv-pynq: pynq 3.1.2, numpy < 2; Python 3.10 when available)."""
    return board_python_or_skip()


def _ir_kernel(name: str, d: dict) -> ir.Kernel:
    params = [
        ir.Param(
            p["name"],
            p["kind"],
            dtype(p["dtype"]),
            tuple(p["shape"]),
            p["direction"],
            p["pytype"],
            tuple(p["origin"]),
            p.get("stream", False),
            p.get("field"),
        )
        for p in d["params"]
    ]
    return ir.Kernel(
        name=name,
        params=params,
        scalars={},
        locals=[],
        body=[],
        ret=dtype(d["ret"]) if d["ret"] else None,
        ret_pytype=d["ret_pytype"],
        returns=[tuple(r) for r in d["returns"]],
        return_tuple=d["return_tuple"],
        source_file="t.py",
        source_line=1,
        py_params=list(d["py_params"]),
        specialised=dict(d["specialised"]),
        structs={
            name: ir.StructArg(r["kind"], r["pytype"], r["fields"], r.get("constants", {}))
            for name, r in d.get("structs", {}).items()
        },
    )


def _plan_data(names: list[str]) -> dict:
    tasks = []
    for n in names:
        tasks.append(
            {
                "name": n,
                "kernel": n,
                "placement": "fpga",
                "calls": 2,
                "cpu_s": 2e-3,
                "host_s": 1e-4,
                "fpga": {"total_s": 4e-4, "compute_s": 1e-4, "overhead_s": 2e-4, "copy_out_s": 1e-4},
            }
        )
    edges = [{"src": "<main>", "dst": "scale_add", "cost_s": 2e-4}]
    return {"app": "t.py", "tasks": tasks, "edges": edges, "chains": kernel_models.CHAINS}


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory) -> Path:
    kernels = [_ir_kernel(n, d) for n, d in kernel_models.KERNELS.items()]
    spec = host_spec(kernels, _plan_data(list(kernel_models.KERNELS)), load_board("pynq-z2"))
    path = tmp_path_factory.mktemp("spec") / "t_kernels.json"
    path.write_text(dump_json(spec))
    return path


@pytest.mark.parametrize("name", sorted(scenarios.SCENARIOS))
def test_runtime_scenario(name, spec_path):
    scenarios.SCENARIOS[name](spec_path)


def test_spec_content(spec_path):
    data = json.loads(spec_path.read_text())
    assert data["format"] == "partition-host/1"
    k = next(k for k in data["kernels"] if k["task"] == "scale_add")
    assert k["vlnv"] == "xilinx.com:hls:scale_add:1.0"
    assert [(r["name"], r["offset"], r["words"]) for r in k["regmap"]["registers"]] == [
        ("x", 0x10, 2),
        ("y", 0x1C, 2),
        ("out_r", 0x28, 2),
    ]
    assert k["predicted"]["calls"] == 2
    assert k["predicted"]["fpga_s"] == pytest.approx((4e-4 + 2e-4) / 2)
    assert data["float_tolerance"]["float32"] == {"rtol": 1e-5, "atol": 1e-6}
    sk = next(k for k in data["kernels"] if k["task"] == "scale_k")
    assert sk["specialised"] == {"k": {"value": 3, "pytype": "int"}}
    rs = next(k for k in data["kernels"] if k["task"] == "rect_score")
    assert rs["structs"]["r"] == {
        "kind": "dataclass",
        "class": "Rect",
        "fields": ["x", "y", "w", "h"],
        "constants": {"h": {"value": 4, "pytype": "int", "dtype": "int8"}},
    }
    assert [(p["name"], p.get("field")) for p in rs["params"]][:3] == [
        ("r_x", "x"),
        ("r_w", "w"),
        ("p_x", "x"),
    ]
    assert "structs" not in sk and all("field" not in p for p in sk["params"])  # absent when unused


def test_host_spec_rejects_unknown_python_types():
    d = kernel_models.KERNELS["scale_add"]
    k = _ir_kernel("scale_add", d)
    k.params[0].pytype = "dict"
    with pytest.raises(PartitionError, match="parameter x is a Python dict"):
        host_spec([k], _plan_data(["scale_add"]), load_board("pynq-z2"))


def test_runtime_under_board_python(spec_path, board_python):
    """The same scenarios with the board's Python (3.10 when available) and numpy < 2."""
    r = subprocess.run(
        [str(board_python), str(HELPERS / "selftest.py"), str(spec_path), str(HOST)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(scenarios.SCENARIOS)} passed, 0 failed" in r.stdout
    assert "numpy 1." in r.stdout


# ============================================================ generated host code

SMALL_APP = ROOT / "tests" / "cli_apps" / "small_app.py"


def _partition(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "partition", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def host_tree(tmp_path_factory) -> Path:
    """small_app planned on pynq-z2 with partition's CLI, plus the generated host side."""
    work = tmp_path_factory.mktemp("hosttree")
    app = work / SMALL_APP.name
    app.write_bytes(SMALL_APP.read_bytes())
    r = _partition("profile", app.name, "--out", "small.profile.json", "--no-baseline", cwd=work)
    assert r.returncode == 0, r.stderr
    r = _partition(
        "plan", app.name, "--board", "pynq-z2", "--profile", "small.profile.json", "--out", "b", cwd=work
    )
    assert r.returncode == 0, r.stderr
    tree = work / "b"
    plan = json.loads((tree / "plan.json").read_text())
    fpga = [t for t in plan["tasks"] if t["placement"] == "fpga"]
    assert [t["name"] for t in fpga] == ["scale_add"]
    kernels = [
        ir_json.from_json(json.loads((tree / "kernels" / f"{t['kernel']}.json").read_text())) for t in fpga
    ]
    from partition.profile.model import load_profile

    prof = load_profile(work / "small.profile.json")
    files = generate_host(app.name, app.read_bytes(), kernels, plan, load_board("pynq-z2"), profile=prof)
    again = generate_host(app.name, app.read_bytes(), kernels, plan, load_board("pynq-z2"), profile=prof)
    assert files == again  # deterministic
    for rel, data in files.items():  # beside the plan's own files (build_tree does not write host/ yet)
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    assert executables(files) == {"host/run_app.py", "boards/pynq-z2.calibrate.py"}
    return tree


def _run(args: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def test_host_tree_files(host_tree):
    host = host_tree / "host"
    for rel in (
        "run_app.py",
        "small_app_accel.py",
        "small_app_kernels.json",
        "small_app.py",
        "overlay/README",
        "README.md",
        "partition_runtime/core.py",
    ):
        assert (host / rel).is_file(), rel
    assert (host / "small_app.py").read_bytes() == SMALL_APP.read_bytes()
    assert (host / "partition_runtime" / "core.py").read_bytes() == (
        HOST / "partition_runtime" / "core.py"
    ).read_bytes()
    assert "small_app.bit" in (host / "overlay" / "README").read_text()
    assert (host_tree / "boards" / "pynq-z2.calibrate.py").is_file()
    from partition.profile import bench

    assert (host_tree / "boards" / "partition_bench.py").read_bytes() == Path(bench.__file__).read_bytes()
    spec = json.loads((host / "small_app_kernels.json").read_text())
    k = spec["kernels"][0]
    assert (k["task"], k["function"], k["source"]) == (
        "scale_add",
        "scale_add",
        {"file": "small_app.py", "line": 8},
    )


def test_run_app_cpu_matches_plain_run(host_tree):
    host = host_tree / "host"
    plain = _run([sys.executable, str(host / "small_app.py"), "300"], cwd=host_tree)
    assert plain.returncode == 0, plain.stderr
    for n in ("300", "2000"):
        plain = _run([sys.executable, str(host / "small_app.py"), n], cwd=host_tree)
        r = _run(
            [sys.executable, str(host / "run_app.py"), "--backend", "cpu", "--stats", "s.json", "--", n],
            cwd=host_tree,
        )
        assert r.returncode == 0, r.stderr
        assert r.stdout == plain.stdout
        stats = json.loads((host_tree / "s.json").read_text())
        st = stats["tasks"]["scale_add"]
        assert stats["swapped"] == ["scale_add"]
        if n == "2000":  # the profiled size: accelerated (here: the same function on the CPU path)
            assert (st["calls"], st["fallbacks"]) == (3, 0)
            assert "plan FPGA/call" in r.stderr and "scale_add" in r.stderr
        else:  # another shape than the kernel was built for: the CPU, reported once
            assert (st["calls"], st["fallbacks"]) == (0, 3)
            assert r.stderr.count("running on the CPU") == 1


def test_run_app_check(host_tree):
    host = host_tree / "host"
    r = _run([sys.executable, str(host / "run_app.py"), "--backend", "cpu", "--check"], cwd=host_tree)
    assert r.returncode == 0, r.stderr
    assert "checked 3 call(s) against the CPU: all match" in r.stderr


def test_run_app_check_catches_a_wrong_kernel(host_tree):
    host = host_tree / "host"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import run_app\n"
        "from partition_runtime.cpu_backend import CpuBackend\n"
        "def wrong(x, y):\n"
        "    import numpy as np\n"
        "    out = (x.astype(np.int32) * 3 + y).astype(np.int32)\n"
        "    out[-1] ^= 1\n"
        "    return out\n"
        "sys.exit(run_app.run(['--check'], backend=CpuBackend({'scale_add': wrong})))\n"
    )
    r = _run([sys.executable, "-c", code, str(host)], cwd=host_tree)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "CHECK MISMATCH" in r.stderr and "first at (1999,)" in r.stderr
    assert "--check FAILED: 3 accelerated call(s)" in r.stderr
    plain = _run([sys.executable, str(host / "small_app.py")], cwd=host_tree)
    assert r.stdout == plain.stdout  # the app went on with the CPU's results


def test_run_app_pynq_backend_errors_clearly(host_tree):
    host = host_tree / "host"
    r = _run([sys.executable, str(host / "run_app.py")], cwd=host_tree)
    assert r.returncode == 2
    # pynq is not installed in the tool's environment; on a board the overlay files would be named
    assert "run_app: error:" in r.stderr and ("pynq" in r.stderr or "small_app.bit" in r.stderr)
    assert "Traceback" not in r.stderr


def test_accel_module(host_tree):
    host = host_tree / "host"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.argv = ['x']\n"
        "import numpy as np, small_app, small_app_accel as accel\n"
        "rt = accel.load('cpu')\n"
        "fast = accel.accelerated(rt, small_app)\n"
        "x = np.arange(2000, dtype=np.int16); y = x[::-1].copy()\n"
        "assert np.array_equal(fast['scale_add'](x, y), small_app.scale_add(x, y))\n"
        "assert rt.kernel('scale_add').stats.calls == 1\n"
        "print(sorted(accel.TASKS))\n"
    )
    r = _run([sys.executable, "-c", code, str(host)], cwd=host_tree)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['scale_add']"


def test_vector_call_from_build_tree(host_tree):
    from partition_runtime import load_spec
    from partition_runtime.vectors import check_result, vector_call

    spec = load_spec(host_tree / "host" / "small_app_kernels.json")
    k = spec.kernel("scale_add")
    args, expected = vector_call(k, host_tree / "hls" / "scale_add" / "vectors", 0)
    assert [a.dtype.name for a in args] == ["int16", "int16"]
    result = kernel_models.scale_add(*args)
    assert check_result(k, args, result, expected, spec.float_tolerance) == []
    result[5] += 1
    assert "first at (5,)" in check_result(k, args, result, expected, spec.float_tolerance)[0]


def test_calibration_without_pynq_then_plan_with_overrides(host_tree):
    """Off the board (no pynq) the calibration measures bench_ns only; plan accepts the file."""
    out = host_tree / "measured.toml"
    r = _run(
        [sys.executable, str(host_tree / "boards" / "pynq-z2.calibrate.py"), "--out", str(out)], cwd=host_tree
    )
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "[cpu]" in text and "bench_ns = " in text and "[interface]" not in text
    work = host_tree.parent
    r = _partition(
        "plan",
        "small_app.py",
        "--board",
        "pynq-z2",
        "--profile",
        "small.profile.json",
        "--board-overrides",
        str(out),
        "--out",
        "b_measured",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    plan = json.loads((work / "b_measured" / "plan.json").read_text())
    bench_ns = float(text.split("bench_ns = ")[1].split()[0])
    assert plan["scaling"]["board_bench_ns"] == pytest.approx(bench_ns)


def test_plan_board_overrides(host_tree, tmp_path):
    work = host_tree.parent
    slow = tmp_path / "slow.toml"
    slow.write_text("[interface]\nmmio_write_us = 5000.0\ncall_overhead_us = 100.0\n")
    r = _partition(
        "plan",
        "small_app.py",
        "--board",
        "pynq-z2",
        "--profile",
        "small.profile.json",
        "--board-overrides",
        str(slow),
        "--out",
        "b_slow",
        "--quiet",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    base = json.loads((host_tree / "plan.json").read_text())
    plan = json.loads((work / "b_slow" / "plan.json").read_text())

    def overhead(p):
        t = next(t for t in p["tasks"] if t["name"] == "scale_add")
        return t["fpga"]["per_call"]["overhead_s"]

    task = next(t for t in plan["tasks"] if t["name"] == "scale_add")
    per_call = task["fpga"]["per_call"]
    # writes a call makes on average: the first writes every argument, later ones what changes
    writes = (
        per_call["mmio_writes"] + (per_call["mmio_writes_first"] - per_call["mmio_writes"]) / task["calls"]
    )
    itf = load_board("pynq-z2").interface
    extra_us = (100.0 - itf["call_overhead_us"]) + writes * (5000.0 - itf["mmio_write_us"])
    assert overhead(plan) == pytest.approx(overhead(base) + extra_us * 1e-6)
    bad = tmp_path / "bad.toml"
    bad.write_text("[interface]\nmmio_write_us = -1\n")
    r = _partition(
        "plan",
        "small_app.py",
        "--board",
        "pynq-z2",
        "--profile",
        "small.profile.json",
        "--board-overrides",
        str(bad),
        "--out",
        "b_bad",
        cwd=work,
    )
    assert r.returncode != 0 and "mmio_write_us must be a positive number" in r.stderr
    r = _partition("plan", "--help", cwd=work)
    assert "--board-overrides" in r.stdout


# ================================================================ Python 3.10 lint


def test_host_code_is_python_3_10_compatible(host_tree, tmp_path):
    """vermin: no syntax, module or function newer than Python 3.10 in the runtime or generated code."""
    pytest.importorskip("vermin", reason="vermin (dev extra) is not installed")
    targets = [
        str(HOST),
        str(host_tree / "host"),
        str(host_tree / "boards"),
        str(HELPERS / "fake_device.py"),
        str(HELPERS / "scenarios.py"),
        str(HELPERS / "selftest.py"),
        str(HELPERS / "mock_pynq.py"),
        str(HELPERS / "pynq_checks.py"),
    ]
    assert _vermin(targets).returncode == 0
    newer = tmp_path / "newer.py"
    newer.write_text("import tomllib\n")
    bad = _vermin([str(newer)])
    assert bad.returncode != 0 and "tomllib" in bad.stdout  # the lint does catch 3.11-only code


def _vermin(targets: list[str]) -> subprocess.CompletedProcess:
    code = "import sys; from vermin.main import main; sys.argv[0] = 'vermin'; sys.exit(main())"
    r = subprocess.run(
        [sys.executable, "-c", code, "-t=3.10-", "--no-tips", "--violations", *targets],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    return r
