"""The host side of the build tree: the runtime, its kernel spec, run_app.py, the calibration script.

    host/partition_runtime/      the runtime package (copied from the installation's host/)
    host/<app>_kernels.json      what the runtime needs per FPGA task (format: partition_runtime.spec)
    host/<app>_accel.py          builds the runtime and hands out the accelerated functions by task name
    host/run_app.py              runs the unmodified app with the tasks swapped in (pynq or cpu backend)
    host/<app>.py                a copy of the app the plan was made for
    host/overlay/README          where <app>.bit/.hwh go (`make bitstream` copies them there)
    boards/<board>.calibrate.py  on-board measurement of the board file's [interface] figures and bench_ns
    boards/partition_bench.py    partition's CPU micro-benchmark (the same source as partition.profile.bench)

The runtime runs on the board's Python 3.10 with numpy < 2 and imports nothing from
partition: every number it needs (register offsets, tolerances, predictions) is
copied into the spec here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import Any

from partition import ir
from partition.boards import Board
from partition.codegen.hls import FLOAT_TOLERANCE
from partition.codegen.vivado import builtin_vlnv, hls_vlnv
from partition.errors import PartitionError
from partition.profile import bench
from partition.profile.model import Profile, dump_json
from partition.regmap import register_map
from partition.resources import resource_dir
from partition.templating import render

SPEC_FORMAT = "partition-host/1"
RUNTIME_PACKAGE = "partition_runtime"
# Relative deviation of the PL clock from the design clock that the runtime corrects.
CLOCK_TOLERANCE = 0.01
# The PS clock output the block design feeds the kernels from (FCLK0 / pl_clk0).
PL_CLOCK_INDEX = 0
SCALAR_PYTYPES = ("int", "float", "bool", "npscalar")
# arrays the host passes; "scalar_*" box a returned scalar beyond the first (host spec.BOXED_PYTYPES)
ARRAY_PYTYPES = (
    "ndarray",
    "list",
    "list_np",
    "list_tuple",
    "scalar_int",
    "scalar_float",
    "scalar_bool",
    "scalar_npscalar",
)


def function_name(task: str) -> str:
    """The `def` name of a task: its qualified name's last part (task names may carry '@line')."""
    return task.split("@", 1)[0].rsplit(".", 1)[-1]


def _task_entries(plan_data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["kernel"]: t for t in plan_data["tasks"] if t.get("placement") == "fpga" and "kernel" in t}


def _predicted(task: dict[str, Any], plan_data: dict[str, Any]) -> dict[str, Any]:
    calls = max(1, int(task["calls"]))
    fpga = task["fpga"]
    copy_in = sum(float(e["cost_s"]) for e in plan_data.get("edges", []) if e["dst"] == task["name"])
    return {
        "calls": int(task["calls"]),
        "cpu_s": float(task["cpu_s"]) / calls,
        "host_s": float(task["host_s"]) / calls,
        "fpga_s": (float(fpga["total_s"]) + copy_in) / calls,
        "compute_s": float(fpga["compute_s"]) / calls,
        "overhead_s": float(fpga["overhead_s"]) / calls,
        "copy_in_s": copy_in / calls,
        "copy_out_s": float(fpga["copy_out_s"]) / calls,
    }


def _specialised(k: ir.Kernel, profile: Profile | None, task: str) -> dict[str, Any]:
    """Each compiled-in constant with the Python type the app passed it as."""
    out: dict[str, Any] = {}
    fp = profile.functions.get(task) if profile is not None else None
    for name, value in sorted(k.specialised.items()):
        entry: dict[str, Any] = {"value": value}
        sig: dict[str, Any] = {}
        if fp is not None and name in fp.params:
            pos = fp.params.index(name)
            if pos < len(fp.arg_sigs):
                sig = fp.arg_sigs[pos]
        if sig.get("type") == "npscalar":
            entry["pytype"] = "npscalar"
            entry["dtype"] = str(sig["dtype"])
        elif isinstance(value, bool):
            entry["pytype"] = "bool"
        elif isinstance(value, int):
            entry["pytype"] = "int"
        elif isinstance(value, float):
            entry["pytype"] = "float"
        else:
            raise PartitionError(
                f"kernel {k.name}: specialised parameter {name} = {value!r} has no host conversion"
            )
        out[name] = entry
    return out


def _structs(k: ir.Kernel) -> dict[str, Any]:
    """How the runtime takes each record argument apart: its kind, class and fields, and which
    fields are compiled in (the others it reads go to the scalar parameters whose `field` names them)."""
    out = {}
    for name, st in sorted(k.structs.items()):
        for f, c in st.constants.items():
            if c.get("pytype") not in SCALAR_PYTYPES:
                raise PartitionError(f"kernel {k.name}: field {f} of {name} has no host conversion")
        out[name] = {
            "kind": st.kind,
            "class": st.pytype,
            "fields": list(st.fields),
            "constants": {f: dict(c) for f, c in sorted(st.constants.items())},
        }
    return out


def _kernel_entry(
    k: ir.Kernel, task: dict[str, Any], plan_data: dict[str, Any], profile: Profile | None
) -> dict[str, Any]:
    params = []
    for p in k.params:
        allowed = ARRAY_PYTYPES if p.kind == "array" else (*SCALAR_PYTYPES, "dim")
        if p.pytype not in allowed:
            raise PartitionError(
                f"kernel {k.name}: parameter {p.name} is a Python {p.pytype}; the host runtime passes "
                f"{' or '.join(allowed)} {'arrays' if p.kind == 'array' else 'scalars'} only"
            )
        params.append(
            {
                "name": p.name,
                "kind": p.kind,
                "dtype": p.dtype.name,
                "shape": list(p.shape),
                "direction": p.direction,
                "pytype": p.pytype,
                "origin": list(p.origin),
                **({"stream": True} if p.stream else {}),
                **({"field": p.field} if p.field is not None else {}),
                **({"dyn": p.dyn} if p.dyn else {}),
                **({"dyn_offset": p.dyn_offset} if p.dyn_offset else {}),
            }
        )
    name = task["name"]
    return {
        "name": k.name,
        "task": name,
        "function": function_name(name),
        # the overlay holds the Vitis HLS export, or the built-in RTL packaged as IP (RTL=builtin)
        "vlnv": hls_vlnv(k.name),
        "vlnvs": [hls_vlnv(k.name), builtin_vlnv(k.name)],
        "source": {"file": k.source_file, "line": k.source_line},
        "py_params": list(k.py_params),
        "params": params,
        "specialised": _specialised(k, profile, name),
        **({"structs": _structs(k)} if k.structs else {}),
        "returns": [list(r) for r in k.returns],
        **({"method": dict(k.method)} if k.method else {}),
        "return_tuple": k.return_tuple,
        "ret": {"dtype": k.ret.name, "pytype": k.ret_pytype} if k.ret is not None else None,
        "regmap": register_map(k).to_json(),
        "predicted": _predicted(task, plan_data),
    }


def host_spec(
    kernels: list[ir.Kernel],
    plan_data: dict[str, Any],
    board: Board,
    profile: Profile | None = None,
    app_source: bytes | None = None,
) -> dict[str, Any]:
    """The runtime's kernel spec (host/<app>_kernels.json) for the plan's FPGA kernels.

    `profile` (optional) gives specialised constants their exact Python type
    (a numpy scalar vs a Python number); without it the constant's own type is used.
    """
    entries = _task_entries(plan_data)
    stem = PurePosixPath(plan_data["app"]).stem
    out_kernels = []
    for k in kernels:
        task = entries.get(k.name)
        if task is None:
            raise PartitionError(f"kernel {k.name} is not an FPGA task of this plan")
        out_kernels.append(_kernel_entry(k, task, plan_data, profile))
    app: dict[str, Any] = {"file": PurePosixPath(plan_data["app"]).name}
    if app_source is not None:
        app["sha256"] = hashlib.sha256(app_source).hexdigest()
    pl_mhz = float(board.clocks["pl_mhz"])
    chains = [
        {"producer": c["src"], "out": c["out"], "consumer": c["dst"], "in": c["in"]}
        for c in plan_data.get("chains", [])
    ]
    return {
        "format": SPEC_FORMAT,
        **({"chains": chains} if chains else {}),
        "app": app,
        "board": {"name": board.name, "part": board.part, "family": board.family, "pl_mhz": pl_mhz},
        "clock": {"pl_mhz": pl_mhz, "fclk": PL_CLOCK_INDEX, "tolerance": CLOCK_TOLERANCE},
        "overlay": {"bit": f"overlay/{stem}.bit", "hwh": f"overlay/{stem}.hwh"},
        "float_tolerance": {n: {"rtol": rt, "atol": at} for n, (rt, at) in sorted(FLOAT_TOLERANCE.items())},
        "kernels": out_kernels,
    }


def runtime_files() -> dict[str, bytes]:
    """The runtime package's sources, relative to host/."""
    root = resource_dir("host") / RUNTIME_PACKAGE
    files = {}
    for path in sorted(root.glob("*.py")):
        files[f"{RUNTIME_PACKAGE}/{path.name}"] = path.read_bytes()
    if not files:
        raise PartitionError(f"partition installation is missing host/{RUNTIME_PACKAGE}/")
    return files


def generate_host(
    app_name: str,
    app_source: bytes,
    kernels: list[ir.Kernel],
    plan_data: dict[str, Any],
    board: Board,
    profile: Profile | None = None,
) -> dict[str, bytes]:
    """Files of host/ and boards/ (paths relative to the build tree)."""
    app_file = PurePosixPath(app_name).name
    stem = PurePosixPath(app_file).stem
    spec = host_spec(kernels, plan_data, board, profile=profile, app_source=app_source)
    spec_name = f"{stem}_kernels.json"
    ctx = {
        "app_file": app_file,
        "app_stem": stem,
        "spec_name": spec_name,
        "accel_module": f"{stem}_accel",
        "tasks": [k["task"] for k in spec["kernels"]],
        "kernels": spec["kernels"],
        "chains": spec.get("chains", []),
        "board": board.name,
        "pl_mhz": f"{float(board.clocks['pl_mhz']):g}",
        "bench_source": "partition/profile/bench.py",
    }
    files: dict[str, bytes] = {}
    for rel, data in runtime_files().items():
        files[f"host/{rel}"] = data
    files[f"host/{spec_name}"] = dump_json(spec).encode()
    files[f"host/{stem}_accel.py"] = render("host/accel.py.j2", **ctx).encode()
    files["host/run_app.py"] = render("host/run_app.py.j2", **ctx).encode()
    files["host/README.md"] = render("host/README.md.j2", **ctx).encode()
    files["host/overlay/README"] = render("host/overlay_README.j2", **ctx).encode()
    files[f"host/{app_file}"] = app_source
    files[f"boards/{board.name}.calibrate.py"] = render("host/calibrate.py.j2", **ctx).encode()
    files["boards/partition_bench.py"] = Path(bench.__file__).read_bytes()
    return dict(sorted(files.items()))


def executables(files: dict[str, bytes]) -> set[str]:
    """The generated scripts meant to be run directly (run_app.py and the calibration)."""
    return {
        rel
        for rel in files
        if rel == "host/run_app.py" or (rel.startswith("boards/") and rel.endswith(".calibrate.py"))
    }
