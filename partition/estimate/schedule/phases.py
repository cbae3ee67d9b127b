"""The call's phases around compute: control cycles of the phase FSM and AXI burst timing.

One call of a kernel is start, a load phase per input array, compute, a store phase per
output array and done (`control_cycles`); an array moves in INCR bursts (`bursts`,
`transfer_cycles`) or, in an AXI-Stream chain, one 64-bit beat a cycle (`stream_beats`).
These figures do not depend on the compute schedule, so they live apart from it; the
estimator adds them up, the RTL backend's phase FSM and engines implement them.
"""

from __future__ import annotations

import math

# Control overhead of one call (state transitions of the phase FSM), counted exactly:
START_CYCLES = 1  # idle -> first phase when ap_start is seen
TRANSFER_SETUP_CYCLES = 1  # per array transfer: latch base address and length
COMPUTE_ENTER_CYCLES = 1  # last load phase (or start) -> compute
DONE_CYCLES = 1  # the state asserting ap_done / ap_ready / interrupt
MAX_BURST_BEATS = 256  # AXI4 INCR burst limit
BURST_BOUNDARY = 4096  # AXI bursts never cross a 4 KB boundary
BUFFER_ALIGNMENT = 4096  # pynq.allocate returns page-aligned CMA buffers
STREAM_BITS = 64  # TDATA of an AXI-Stream chain: the array's bytes in DDR order (partition_ops.h)


def control_cycles(transfers: int) -> int:
    """Phase-FSM overhead of one call with `transfers` array transfers (loads + stores)."""
    return START_CYCLES + transfers * TRANSFER_SETUP_CYCLES + COMPUTE_ENTER_CYCLES + DONE_CYCLES


def bursts(nbytes: int, bus_bytes: int, base: int = 0) -> list[int]:
    """Beats of each INCR burst moving `nbytes` from byte address `base`.

    Bursts have at most 256 beats and never cross a 4 KB boundary; the buffer is at
    least bus-word aligned (a partial last word is one beat with partial strobes).
    """
    if nbytes <= 0:
        return []
    if base % bus_bytes:
        raise ValueError("buffers are bus-word aligned")
    out = []
    addr, end = base, base + nbytes
    while addr < end:
        to_boundary = BURST_BOUNDARY - addr % BURST_BOUNDARY
        chunk = min(end - addr, to_boundary, MAX_BURST_BEATS * bus_bytes)
        beats = math.ceil(chunk / bus_bytes)
        out.append(beats)
        addr += beats * bus_bytes
    return out


def burst_count(nbytes: int, bus_bytes: int, base: int = 0) -> int:
    """len(bursts(nbytes, bus_bytes, base)) in time independent of `nbytes`: a profile may
    describe arrays of any size, and the estimate must not grow with them."""
    if nbytes <= 0:
        return 0
    end = base + nbytes
    head = min(end, base + (-base) % BURST_BOUNDARY)  # up to the first 4 KB boundary
    n = len(bursts(head - base, bus_bytes, base)) if head > base else 0
    blocks = (end - head) // BURST_BOUNDARY
    per_block = len(bursts(BURST_BOUNDARY, bus_bytes, 0))
    tail = head + blocks * BURST_BOUNDARY
    return n + blocks * per_block + len(bursts(end - tail, bus_bytes, tail))


def stream_beats(nbytes: int) -> int:
    """Beats of an array streamed through an AXI-Stream chain (one a cycle, no address phase)."""
    return -(-nbytes // (STREAM_BITS // 8))


def transfer_cycles(nbytes: int, bus_bytes: int, latency: int, base: int = 0) -> int:
    """Cycles of one array transfer: per burst, its latency plus its beats (one burst
    outstanding at a time; read: AR -> first R beat; write: last W beat -> B)."""
    if nbytes <= 0:
        return 0
    # every burst starts bus-word aligned, so the beats are the bus words the bytes touch
    return latency * burst_count(nbytes, bus_bytes, base) + -(-nbytes // bus_bytes)
