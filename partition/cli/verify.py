"""The commands over a written build tree (sim, synth, lint, cosim): run the verification
jobs and print one line per kernel and step."""

from __future__ import annotations

import argparse
import json
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
