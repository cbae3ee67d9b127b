"""The build tree of a plan (DESIGN.md §6), assembled in memory as path -> bytes.

`build_tree` only produces bytes; `partition.fsutil.write_tree` writes them
atomically. Everything here is a pure function of the plan, the profile and
the board, so the same inputs give byte-identical trees.
"""

from __future__ import annotations

import shlex
from pathlib import Path, PurePosixPath

from partition import ir_json
from partition.boards import Board
from partition.codegen.hls import CSIM_BINARY, HLS_PROJECT, csim_command, generate_hls
from partition.codegen.hls.analysis import uses_math
from partition.codegen.host import executables, generate_host
from partition.codegen.vivado import VivadoKernel, generate_vivado
from partition.graph import build_graph, graph_to_dot, graph_to_json
from partition.plan import Plan
from partition.profile.model import Profile, dump_json
from partition.regmap import register_map
from partition.report import markdown, render_html
from partition.resources import resource_dir
from partition.rtl import render_cosim_top
from partition.rtl import vector_files as rtl_vector_files
from partition.rtl.vectors import share_data
from partition.templating import render
from partition.vectors import kernel_vectors

INCLUDE = "hls/include"
# the generic cocotb testbench, copied (not imported: planning needs no cocotb)
KERNEL_TB = Path(__file__).resolve().parents[1] / "sim" / "kernel_tb.py"
AXI_MONITOR = KERNEL_TB.with_name("axi_monitor.py")  # kernel_tb imports it from beside itself
COSIM_TB = Path(__file__).resolve().parents[1] / "sim" / "cosim_tb.py"


def kernel_chains(plan: Plan) -> list[tuple[str, str, str, str]]:
    """The plan's AXI-Stream chains by kernel name: (producer, its out port, consumer, its in port).

    The co-simulation top (partition.rtl.system) and the Vivado block design wire the same nets.
    """
    return [
        (plan.kernels[c["src"]].name, c["out"], plan.kernels[c["dst"]].name, c["in"])
        for c in plan.data.get("chains", [])
    ]


def build_tree(
    plan: Plan,
    profile: Profile,
    board: Board,
    app_source: bytes,
    modules: dict[str, bytes] | None = None,
) -> tuple[dict[str, bytes], set[str]]:
    """Files of the build tree (relative path -> content) and which of them are executable.

    `app_source` is the app's own file and `modules` the app's local modules that hold tasks
    (path relative to the app's folder -> content, `local_modules`): the host folder carries
    copies, so the app runs unmodified on the board with its tasks swapped for kernels.
    """
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    graph = build_graph(profile)
    files["plan.json"] = dump_json(plan.data).encode()
    files["profile.json"] = dump_json(profile.to_json()).encode()
    files["graph.json"] = dump_json(graph_to_json(graph)).encode()
    files["graph.dot"] = graph_to_dot(graph).encode()
    files["report.md"] = markdown(plan.data).encode()
    files["report.html"] = render_html(plan.data, graph_to_json(graph)).encode()
    for _task, k in sorted(plan.kernels.items()):
        files[f"kernels/{k.name}.json"] = dump_json(ir_json.to_json(k)).encode()
    fpga = plan.fpga_tasks
    kernels = []
    if fpga:
        files[f"{INCLUDE}/partition_ops.h"] = (resource_dir("hls") / "partition_ops.h").read_bytes()
    if any(uses_math(plan.kernels[name]) for name in fpga):
        files[f"{INCLUDE}/partition_math.h"] = (resource_dir("hls") / "partition_math.h").read_bytes()
    for name in fpga:
        k = plan.kernels[name]
        checked = plan.prepared.vectors if plan.prepared is not None else {}
        vectors = checked[name] if name in checked else kernel_vectors(k, profile.functions[name])
        chosen = plan.directives(name)
        hls_files = generate_hls(
            k,
            vectors,
            part=board.part,
            clock_mhz=float(board.clocks["pl_mhz"]),
            include_rel="../include",
            directives=chosen,
            bus_bits=plan.bus_bits(name, board),
        )
        for rel, data in hls_files.items():
            files[f"hls/{k.name}/{rel}"] = data
        rtl = plan.rtl.get(name)
        if rtl is not None:  # its vectors are the HLS testbench's: stored once, in hls/
            rtl_vectors = share_data(
                rtl_vector_files(k, vectors, rtl.built, rtl.data_bits),
                hls_files,
                f"../../../hls/{k.name}/vectors",
            )
            for rel, data in {**rtl.files, **rtl_vectors}.items():
                files[f"rtl/{k.name}/{rel}"] = data
        kernels.append(
            {
                "task": name,
                "name": k.name,
                "csim": shlex.join(csim_command(k.name, "../include")),
                "vectors": len(vectors),
                "rtl": rtl is not None,
            }
        )
    chains = kernel_chains(plan)
    if plan.rtl:
        files["tests/kernel_tb.py"] = KERNEL_TB.read_bytes()
        files["tests/axi_monitor.py"] = AXI_MONITOR.read_bytes()
        files["tests/cosim_tb.py"] = COSIM_TB.read_bytes()
        files["rtl/cosim_top.v"] = render_cosim_top(
            plan.data["app"],
            [plan.rtl[t] for t in fpga if t in plan.rtl],
            chains,
        ).encode()
    if fpga:
        fpga_kernels = [plan.kernels[t] for t in fpga]
        host_files = generate_host(
            PurePosixPath(plan.data["app"]).name, app_source, fpga_kernels, plan.data, board, profile=profile
        )
        for rel, data in sorted((modules or {}).items()):
            host_files[f"host/{rel}"] = data
        files.update(host_files)
        executable |= executables(host_files)
        files.update(
            generate_vivado(
                plan.data["app"],
                [
                    VivadoKernel(
                        k.name,
                        register_map(k),
                        [f"rtl/{k.name}/{src}" for src in plan.rtl[t].sources] if t in plan.rtl else [],
                        streams={p.name: p.direction for p in k.arrays if p.stream},
                        gmem=any(not p.stream for p in k.arrays),
                    )
                    for t, k in zip(fpga, fpga_kernels)
                ],
                board,
                chains=chains,
            )
        )
    files["Makefile"] = render(
        "make/Makefile.j2",
        app=plan.data["app"],
        board=board.name,
        kernels=kernels,
        csim_binary=CSIM_BINARY,
        hls_project=HLS_PROJECT,
    ).encode()
    return dict(sorted(files.items())), executable


def local_modules(profile: Profile, app: Path) -> dict[str, bytes]:
    """The app's local modules that hold profiled functions (the files beside or below the app
    the profile names), which the host copy of the app imports."""
    out: dict[str, bytes] = {}
    for fp in profile.functions.values():
        rel = PurePosixPath(fp.file)
        if fp.file in out or (rel.name == app.name and len(rel.parts) == 1):
            continue
        if rel.is_absolute() or ".." in rel.parts:
            continue
        path = app.parent / rel
        if path.is_file():
            out[fp.file] = path.read_bytes()
    return out
