"""The commands over a written build tree (sim, synth, lint, cosim): run the verification
jobs and print one line per kernel and step."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path


def cmd_verify(args: argparse.Namespace) -> int:
    """partition sim / synth / lint DIR: one step over the tree's RTL kernels."""
    from partition.report import regenerate
    from partition.sim import flow

    tree = Path(args.dir)
    tasks = flow.rtl_kernels(tree, args.kernel)
    jobs = []
    skipped = []
    for t in tasks:
        rtl = t.get("rtl", {})
        if rtl.get("status") != "built":
            skipped.append(f"{t['kernel']}: {rtl.get('reason', 'no built-in RTL')}")
            continue
        if args.command == "sim":
            jobs.append(
                (
                    flow.sim_kernel,
                    (tree, t["kernel"]),
                    {"simulator": args.simulator, "waves": args.waves, "timeout_cycles": args.timeout_cycles},
                ),
            )
        elif args.command == "synth":
            family = args.family or (
                "xcup" if json.loads((tree / "plan.json").read_text())["board"]["family"] == "xczu" else "xc7"
            )
            jobs.append((flow.synth_kernel, (tree, t["kernel"], family), {}))
        else:
            jobs.append((flow.lint_kernel, (tree, t["kernel"]), {}))
    for line in skipped:
        print(f"skipped {line}")
    results = flow.run_jobs(jobs, args.jobs or None)
    bad = 0
    for r in results:
        status = r["status"]
        bad += status != "pass"
        extra = ""
        if r["step"] == "rtl_sim" and r.get("cycles") is not None:
            of = f" of the {r['variant']} variant" if r.get("variant", "base") != "base" else ""
            extra = (
                f"  {r['vectors']} vectors, {r['cycles']:,} cycles (estimate{of} {r['estimate_cycles']:,})"
            )
        elif r["step"] == "yosys":
            extra = f"  {r['lut']:,} LUT  {r['ff']:,} FF  {r['dsp']} DSP  {r['bram18']} BRAM18"
        elif r["step"] == "lint" and r.get("detail"):
            extra = "\n    " + "\n    ".join(r["detail"])
        print(f"{r['step']} {r['kernel']}: {status.upper()}{extra}")
        if status != "pass" and r["step"] != "lint" and r.get("detail"):
            print("    " + str(r["detail"])[-3000:].replace("\n", "\n    "))
    if args.command == "sim" and (junit := flow.write_junit(tree)):
        print(f"JUnit: {junit}")
    if (tree / "report.html").exists():
        regenerate(tree, force=False)
    return 1 if bad else 0


def cmd_cosim(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.report import regenerate
    from partition.sim import flow
    from partition.sim.cosim import cosim

    tree = Path(args.dir)
    r = cosim(tree, args=app_args or None, waves=args.waves)
    line = f"cosim {', '.join(r['kernels'])}: {r['status'].upper()}"
    if r["on_cpu"]:
        why = r.get("on_cpu_why", {})
        line += (
            " (on the CPU: " + ", ".join(f"{t} ({why.get(t, 'no built-in RTL')})" for t in r["on_cpu"]) + ")"
        )
    print(line)
    calls = r["run_app"].get("tasks", {}) if isinstance(r["run_app"], dict) else {}
    for task, st in sorted(calls.items()):
        if isinstance(st, dict):
            print(f"  {task}: {st.get('calls', 0)} call(s) simulated, {st.get('fallbacks', 0)} on the CPU")
    print(f"  app output {'equals' if r['output_matches_cpu_run'] else 'DIFFERS FROM'} the plain CPU run")
    if r.get("detail"):
        print("  " + r["detail"].replace("\n", "\n  "))
    if junit := flow.write_junit(tree):
        print(f"JUnit: {junit}")
    if (tree / "report.html").exists():
        regenerate(tree, force=False)
    return 0 if r["status"] == "pass" else 1


def cmd_measure(args: argparse.Namespace) -> int:
    """partition measure DIR: every kernel variant through the tools, on Dask."""
    import sys

    from partition.errors import PartitionError
    from partition.measure import TOOLS, measure_tree

    tools = tuple(t.strip() for t in args.tools.split(",") if t.strip())
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        raise PartitionError(
            f"--tools {args.tools}: unknown tool {', '.join(unknown) or '(none given)'}; use any of "
            f"{', '.join(TOOLS)}, comma-separated"
        )
    if args.workers < 0:
        raise PartitionError(f"--workers {args.workers}: give a positive number of worker processes")
    m = measure_tree(
        Path(args.dir),
        variants=args.variants,
        tools=tools,
        kernels=tuple(args.kernel),
        scheduler=args.scheduler,
        workers=args.workers or None,
        cache=Path(args.cache) if args.cache else None,
        progress=sys.stderr,
    )
    for line in m.skipped:
        print(f"skipped {line}")
    for r in m.records:
        parts = []
        sim, syn = r.get("rtl_sim"), r.get("yosys")
        if sim is not None:
            parts.append(
                f"{max(sim['cycles_per_vector']):,} cycles"
                if sim.get("status") == "pass"
                else f"sim {sim['status']}"
            )
        if syn is not None:
            parts.append(
                f"{syn['lut']:,} LUT {syn['ff']:,} FF {syn['dsp']} DSP {syn['bram18']} BRAM18"
                if syn.get("status") == "pass"
                else f"synth {syn['status']}"
            )
        vit = r.get("vitis")
        if vit is not None:
            parts.append(
                f"csynth {vit['cycles'] if vit.get('cycles') is not None else '?'} cycles "
                f"{vit.get('lut', '?')} LUT {vit.get('dsp', '?')} DSP"
                if vit.get("status") == "pass"
                else f"csynth {vit['status']}"
            )
        if "error" in r:
            parts.append(f"error: {r['error']}")
        print(f"{r['kernel']} {r['variant']}: {'; '.join(parts)}")
        for step in (sim, syn, vit):
            if step is not None and step.get("status") != "pass" and step.get("detail"):
                print("    " + str(step["detail"])[-3000:].replace("\n", "\n    "))
    print(
        f"measured {len(m.records)} variant(s) ({m.hits} from the cache), {len(m.failed)} failed; results in "
        f"{Path(args.dir) / 'results'}; re-plan with --calibrate {shlex.quote(args.dir)}"
    )
    return 1 if m.failed else 0
