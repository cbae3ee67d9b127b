"""Per-task statistics of the accelerated calls (`KernelStats`): written by the call path,
read by the end-of-run report and `Runtime.stats()`."""

from __future__ import annotations

from typing import Any


class KernelStats:
    """What happened to one task's calls."""

    def __init__(self) -> None:
        self.calls = 0  # accelerated calls completed
        self.total_s = 0.0  # time callers spent in those calls
        self.guard_s = 0.0  # argument binding and guards
        self.in_s = 0.0  # copies into buffers and flushes
        self.regs_s = 0.0  # argument writes and ap_start
        self.wait_s = 0.0  # waiting for ap_done
        self.out_s = 0.0  # invalidates, copies out, ap_return
        self.lent = 0  # returned arrays handed over as device buffers (no copy-out)
        self.streamed = 0  # calls whose result streamed into the next kernel (AXI-Stream chain)
        self.handoffs = 0  # array arguments that were device buffers already (no copy-in)
        self.polls = 0
        self.fallbacks = 0
        self.fallback_s = 0.0
        self.fallback_reasons: dict[str, int] = {}
        self.checks = 0
        self.mismatches = 0
        self.mismatch_messages: list[str] = []
        self.timeouts = 0

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in sorted(vars(self).items())}
