"""The end-of-run table: measured time per task beside the plan's predictions."""

from __future__ import annotations

from collections.abc import Mapping

from .device import Backend
from .kernel import AcceleratedKernel


def fmt_s(s: float | None) -> str:
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def format_report(backend: Backend, kernels: Mapping[str, AcceleratedKernel]) -> str:
    """The table of a runtime's tasks (`Runtime.report`): its backend and its kernels by task."""
    lines = []
    head = f"backend {backend.name}"
    for key in ("overlay", "clock"):
        if key in backend.info:
            head += f"; {key}: {backend.info[key]}"
    lines.append(head)
    rows = [
        (
            "task",
            "calls",
            "CPU fallbacks",
            "measured/call",
            "plan FPGA/call",
            "plan CPU/call",
            "profiled/call",
        )
    ]
    for task, k in kernels.items():
        st = k.stats
        pred = k.spec.predicted
        measured = st.total_s / st.calls if st.calls else None
        rows.append(
            (
                task,
                str(st.calls),
                str(st.fallbacks),
                fmt_s(measured),
                fmt_s(pred.get("fpga_s")),
                fmt_s(pred.get("cpu_s")),
                fmt_s(pred.get("host_s")),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        lines.append(
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        )
    notes = []
    for task, k in kernels.items():
        st = k.stats
        if st.calls and not backend.executes_python:
            n = st.calls
            notes.append(
                f"{task}: per call guards {fmt_s(st.guard_s / n)}, copy-in {fmt_s(st.in_s / n)}, "
                f"registers {fmt_s(st.regs_s / n)}, "
                f"wait {fmt_s(st.wait_s / n)} ({st.polls / n:.1f} polls), copy-out {fmt_s(st.out_s / n)}"
            )
        if st.streamed and k.spec.stream_to is not None:
            notes.append(
                f"{task}: {st.streamed} call(s) streamed their result into {k.spec.stream_to[0]} (AXI-Stream chain)"
            )
        for reason, count in sorted(st.fallback_reasons.items()):
            notes.append(f"{task}: {count} call(s) on the CPU: {reason}")
        if st.checks:
            verdict = "all match" if not st.mismatches else f"{st.mismatches} MISMATCH(ES)"
            notes.append(f"{task}: checked {st.checks} call(s) against the CPU: {verdict}")
            for m in st.mismatch_messages:
                notes.append(f"{task}:   {m}")
        if st.timeouts:
            notes.append(f"{task}: {st.timeouts} call(s) timed out")
    lines.extend(notes)
    lines.append(
        "plan FPGA/call: compute + call overhead + copies, on the board; plan CPU/call: profiled time "
        "scaled to the board's CPU; profiled/call: as profiled"
    )
    return "\n".join(lines)
