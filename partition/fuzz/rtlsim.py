"""Many generated RTL kernels in one Icarus Verilog build, each driven through its own AXI
interfaces by a behavioural harness.

For every kernel the built-in RTL backend writes its IP (`generate_rtl`) and its vectors
(`partition.rtl.vectors`, the files the generic cocotb testbench reads); from those this
module writes a script for `fuzz_harness` (templates/fuzz/axi_harness.v.j2): place the
arrays in memory (out-only arrays and the bytes after every array filled with random
bytes), write the scalar and pointer registers, start the core through CTRL and poll for
ap_done, then compare ap_return and every word of memory the arrays and their guard bytes
occupy. One top (templates/fuzz/rtl_top.v.j2) instantiates all the kernels with a harness
each; they run concurrently, so one simulation covers the whole batch. Half the kernels see
a memory that stalls at random and arrays placed across a 4 KB boundary.

Each kernel is built in an implementation variant drawn by its seed (`variant_for`) among
all that `candidate_directives` offers on its board: base, `seq`, the unrolled ones and the
burst-width ones (`wide64` on the 64-bit HP port of the Zynq-7000 boards, `wide128` on the
ZU+ boards; the fuzzer draws the board too, `board_for`). A variant the backend declines
(`RtlVariantUnsupported`, e.g. cyclic partitioning) is built as base instead, and the item
says what was drawn, what was built and why. The harness speaks the kernel's m_axi width;
arrays start at addresses aligned to its beat (as pynq.allocate's page-aligned buffers are)
and the guard bytes after each reach past the end of its last beat, so a write strobe that
lets through a byte beyond the array shows.

Some cases stream arrays (`streams_for`, by seed: the in-only or out-only arrays an AXI-Stream
chain could carry): the kernel is built with those arrays as AXI-Stream ports, and the top gives
each one a source or sink on the harness's memory at the array's place (templates/fuzz/rtl_top.v.j2),
sending the input's bytes as 64-bit beats (the last zero padded) or writing the output's beats
back (a non-zero pad byte, a missing beat or an extra one is reported), pausing TVALID / TREADY
at random when the memory stalls; the memory checks then see the streamed output as any other.

A kernel whose Verilog does not compile is reported and left out of the build (the rest
still run); a simulation that ends early leaves its unfinished kernels with "no result".
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from partition import ir
from partition.boards import Board
from partition.estimate import BASE, Directives, candidate_directives
from partition.regmap import STATUS
from partition.rtl import RtlVariantUnsupported, control_address_bits, generate_rtl, vector_files
from partition.templating import render
from partition.vectors import STATUS_EITHER, VectorSet

OP_MEM, OP_REG, OP_RUN, OP_MASK, OP_REGCHK, OP_MEMCHK, OP_VEC = 1, 2, 3, 4, 5, 6, 7
# Icarus simulates a generated kernel at roughly 10-50 k cycles per second: kernels whose
# schedule says a call computes for longer are left to the Verilator-based tests
MAX_COMPUTE_CYCLES = 20_000
# the boards the RTL stage draws from (by seed): a 64-bit and a 128-bit HP port, so the
# burst-width variants wide64 and wide128 both come up (boards/*.toml hp_axi_bits)
RTL_BOARDS = ("pynq-z2", "kv260")


class TooLong(Exception):
    """The kernel's estimated compute time is beyond what the batch simulates."""


def available() -> bool:
    return shutil.which("iverilog") is not None and shutil.which("vvp") is not None


@dataclass
class RtlItem:
    """One kernel prepared for the batch: files written, script made."""

    name: str
    folder: Path
    sources: list[str]
    ctrl_aw: int
    mem_words: int
    script: Path
    script_len: int
    stall: int
    latency: int
    seed: int
    vectors: int
    timeout: int  # cycles one call may take
    layout: dict[str, tuple[int, int]] = field(default_factory=dict)  # array -> (byte address, bytes)
    variant: str = BASE  # the implementation variant built
    drawn: str = BASE  # the variant drawn (built as base when the backend declined it)
    fallback: str = ""  # why the drawn variant was built as base ('' when it was built)
    board: str = ""
    data_bits: int = 32  # m_axi_gmem data width
    gmem: bool = True  # whether the kernel has m_axi_gmem (an array that does not stream)
    streams: list[dict] = field(default_factory=list)  # {name, dir, base, nbytes, beats}


@dataclass
class RtlResult:
    status: str  # pass | fail | error
    detail: str = ""


def _line(op: int, a: int, b: int) -> str:
    return f"{op:02x}{a & 0xFFFFFFFF:08x}{b & 0xFFFFFFFF:08x}"


def _rng(seed: int, what: str) -> random.Random:
    """A generator of its own for each draw of case `seed` (independent of the seed's parity,
    which picks the stressed memory, and of `run.wants_rtl`)."""
    return random.Random(f"{what}:{seed}")


def board_for(seed: int, boards: tuple[str, ...] = RTL_BOARDS) -> str:
    """The board case `seed` builds its RTL for, drawn among `boards`."""
    return _rng(seed, "board").choice(boards)


def variant_for(kernel: ir.Kernel, seed: int, board: Board) -> Directives | None:
    """The implementation variant case `seed` builds, drawn evenly among base and every
    variant `candidate_directives(kernel, board)` offers (None: base)."""
    d = _rng(seed, "variant").choice(candidate_directives(kernel, board))
    return None if d.name == BASE else d


def streams_for(kernel: ir.Kernel, seed: int) -> tuple[str, ...]:
    """The arrays case `seed` streams: a third of the cases stream each in-only or out-only
    array with even odds (at least one of them)."""
    rng = _rng(seed, "streams")
    can = [p.name for p in kernel.arrays if p.direction in ("in", "out") and not p.dyn]
    if not can or rng.random() >= 1 / 3:
        return ()
    picked = [n for n in can if rng.random() < 0.5]
    return tuple(picked or [rng.choice(can)])


def fallback_reason(message: str) -> str:
    """An RtlVariantUnsupported message without the kernel, variant and array names, so
    equal reasons group."""
    text = re.sub(r"^kernel \S+: variant \S+ ", "", message)
    return re.sub(r"splits .+? into", "splits arrays into", text)


def prepare(
    kernel: ir.Kernel,
    vectors: list[VectorSet],
    board: Board,
    folder: Path,
    seed: int,
    max_cycles: int = MAX_COMPUTE_CYCLES,
    variant: str | None = None,
    streams: tuple[str, ...] = (),
) -> RtlItem:
    """Write the kernel's IP (in the variant `variant_for` draws, or the candidate named
    `variant`; base when the backend declines it; the arrays `streams` as AXI-Stream ports)
    and its harness script into `folder` (raises RtlUnsupported, or TooLong when the schedule
    says a call computes for more than `max_cycles`)."""
    if streams:
        kernel = ir.with_streams(kernel, streams)
    if variant is None:
        drawn = variant_for(kernel, seed, board)
    else:
        offered = {d.name: d for d in candidate_directives(kernel, board)}
        if variant not in offered:
            raise ValueError(
                f"{kernel.name} on {board.name} has no variant {variant} (it has {', '.join(offered)})"
            )
        drawn = None if variant == BASE else offered[variant]
    fallback = ""
    try:
        rtl = generate_rtl(kernel, board, drawn)
    except RtlVariantUnsupported as e:
        fallback = e.message
        rtl = generate_rtl(kernel, board)
    compute = rtl.schedule.compute_cycles
    if compute > max_cycles:
        raise TooLong(f"estimated {compute:,} compute cycles per call (the batch runs up to {max_cycles:,})")
    vfiles = vector_files(kernel, vectors)
    folder.mkdir(parents=True, exist_ok=True)
    for rel, data in rtl.files.items():
        (folder / rel).write_bytes(data)
    manifest = json.loads(vfiles["vectors/manifest.json"])
    regs = {r.name: r for r in rtl.regmap.registers}
    rng = random.Random(seed)
    stressed = seed % 2 == 1
    beat = rtl.data_bits // 8
    # memory layout: arrays one after the other, each at an address aligned to the bus beat,
    # with 8+ guard bytes that reach past the end of its last beat; a stressed kernel's first
    # array starts 1 to 6 beats below 4 KB, so its bursts must split at the boundary
    addr = 4096 - beat * rng.randint(1, 6) if stressed else 64
    layout: dict[str, tuple[int, int]] = {}
    for p in manifest["params"]:
        if p["kind"] == "array":
            layout[p["name"]] = (addr, p["nbytes"])
            addr = _guard_end(addr, p["nbytes"], beat)
    mem_words = addr // 4 + 4
    # a call moves every array once each way at worst, at one word per cycle when nothing stalls
    timeout = 4 * (compute + mem_words + 64 * len(layout)) + 5000
    lines: list[str] = []
    for k, vec in enumerate(manifest["vectors"]):
        image: dict[int, int] = {}
        final: dict[int, int] = {}
        for name, (base, n) in layout.items():
            src = vec["inputs"].get(name)
            data = vfiles[f"vectors/{src}"] if src else bytes(rng.getrandbits(8) for _ in range(n))
            dyn = kernel.param(name).dyn
            if dyn and not src:  # an out array of a run-time length: the rows past it stay as they
                # were (zeros, as the expected outputs have them), so a store past them shows
                rows = int.from_bytes(vfiles[f"vectors/{vec['inputs'][dyn]}"], "little", signed=True)
                keep = ir.dyn_rows(kernel.param(name), rows) * (n // kernel.param(name).shape[0])
                data = data[:keep] + bytes(n - keep)
            end = _guard_end(base, n, beat)
            guard = bytes(rng.getrandbits(8) for _ in range(end - base - n))
            before = data + guard
            out = vec["outputs"].get(name)
            after = (vfiles[f"vectors/{out}"] if out else data) + guard
            for w in range(0, end - base, 4):
                image[(base + w) // 4] = int.from_bytes(before[w : w + 4], "little")
                final[(base + w) // 4] = int.from_bytes(after[w : w + 4], "little")
        for w, v in sorted(image.items()):
            lines.append(_line(OP_MEM, w, v))
        for p in manifest["params"]:
            if p.get("stream"):  # no register: its source or sink has the array's place
                continue
            r = regs[p["name"]]
            if p["kind"] == "array":
                value = layout[p["name"]][0]
            else:
                value = int.from_bytes(vfiles[f"vectors/{vec['inputs'][p['name']]}"], "little")
            value &= (1 << r.bits) - 1
            for i in range(r.words):
                lines.append(_line(OP_REG, r.offset + 4 * i, value >> (32 * i)))
        lines.append(_line(OP_RUN, 0, 0))
        flagged = 0
        if "status" in manifest:  # the fallback register: outputs count only where it is 0
            flagged = vfiles[f"vectors/{vec['status']}"][0]
            if flagged != STATUS_EITHER:
                lines.append(_line(OP_MASK, 0, 0xFF))
                lines.append(_line(OP_REGCHK, regs[STATUS].offset, flagged))
        if flagged:
            lines.append(_line(OP_VEC, k, 0))
            continue
        if vec.get("return"):
            r = regs["ap_return"]
            want = int.from_bytes(vfiles[f"vectors/{vec['return']}"], "little") & ((1 << r.bits) - 1)
            for i in range(r.words):
                bits = min(32, r.bits - 32 * i)
                lines.append(_line(OP_MASK, 0, (1 << bits) - 1))
                lines.append(_line(OP_REGCHK, r.offset + 4 * i, want >> (32 * i)))
        lines.append(_line(OP_MASK, 0, 0xFFFFFFFF))
        for w, v in sorted(final.items()):
            lines.append(_line(OP_MEMCHK, w, v))
        lines.append(_line(OP_VEC, k, 0))
    lines.append(_line(0, 0, 0))
    script = folder / "script.hex"
    script.write_text("\n".join(lines) + "\n")
    return RtlItem(
        name=kernel.name,
        folder=folder,
        sources=list(rtl.sources),
        ctrl_aw=control_address_bits(rtl.regmap),
        mem_words=mem_words,
        script=script,
        script_len=len(lines),
        stall=rng.choice((20, 40, 64)) if stressed else 0,
        latency=rng.randint(1, 4) if stressed else 2,
        seed=rng.randint(1, 1 << 20),
        vectors=len(manifest["vectors"]),
        timeout=timeout,
        layout=layout,
        variant=rtl.variant,
        drawn=drawn.name if drawn is not None else BASE,
        fallback=fallback,
        board=board.name,
        data_bits=rtl.data_bits,
        gmem=rtl.gmem,
        streams=[
            {
                "name": n,
                "dir": d,
                "base": layout[n][0],
                "nbytes": layout[n][1],
                "beats": -(-layout[n][1] // 8),
            }
            for n, d in sorted(rtl.streams.items())
        ],
    )


def _guard_end(base: int, nbytes: int, beat: int) -> int:
    """The end of the guard bytes after an array at `base`: at least 8 of them, up to a beat
    boundary (so they cover the rest of the array's last beat)."""
    return (base + nbytes + 8 + beat - 1) // beat * beat


def _compile(items: list[RtlItem], work: Path, limit_ns: int) -> subprocess.CompletedProcess:
    harness = work / "fuzz_harness.v"
    harness.write_text(render("fuzz/axi_harness.v.j2"))
    top = work / "fuzz_top.v"
    top.write_text(
        render(
            "fuzz/rtl_top.v.j2",
            limit_ns=limit_ns,
            kernels=[
                {
                    "name": it.name,
                    "ctrl_aw": it.ctrl_aw,
                    "mem_words": it.mem_words,
                    "script_len": it.script_len,
                    "script": it.script.relative_to(work).as_posix(),
                    "stall": it.stall,
                    "latency": it.latency,
                    "seed": it.seed,
                    "timeout": it.timeout,
                    "data_bits": it.data_bits,
                    "gmem": it.gmem,
                    "streams": it.streams,
                }
                for it in items
            ],
        )
    )
    sources = [harness.name, top.name]
    for it in items:
        sources += [(it.folder / s).relative_to(work).as_posix() for s in it.sources]
    return subprocess.run(
        ["iverilog", "-g2005", "-o", "fuzz.vvp", "-s", "fuzz_top", *sources],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )


def run_batch(items: list[RtlItem], work: Path, timeout_s: float = 900.0) -> dict[str, RtlResult]:
    """Build and simulate `items` (all under `work`) together; a result per kernel name."""
    results: dict[str, RtlResult] = {}
    todo = list(items)
    while todo:
        limit_ns = 10 * (max(it.timeout * (it.vectors + 1) for it in todo) + 10_000)
        build = _compile(todo, work, limit_ns)
        if build.returncode != 0:
            bad = {it.name for it in todo if f"{it.folder.name}/" in build.stderr}
            if not bad:
                for it in todo:
                    results[it.name] = RtlResult("error", f"iverilog failed: {build.stderr[-1500:]}")
                return results
            for it in todo:
                if it.name in bad:
                    msg = "\n".join(ln for ln in build.stderr.splitlines() if f"{it.folder.name}/" in ln)
                    results[it.name] = RtlResult("error", f"iverilog: {msg[-1500:]}")
            todo = [it for it in todo if it.name not in bad]
            continue
        try:
            sim = subprocess.run(
                ["vvp", "-n", "fuzz.vvp"],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
            out = sim.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        results.update(_parse(todo, out))
        break
    return results


def _parse(items: list[RtlItem], out: str) -> dict[str, RtlResult]:
    verdicts: dict[int, dict[int, str]] = {}
    errors: dict[int, list[str]] = {}
    for m in re.finditer(r"^FUZZ (\d+) (\d+) (.*)$", out, re.M):
        i, v, rest = int(m.group(1)), int(m.group(2)), m.group(3)
        if rest in ("PASS", "FAIL"):
            verdicts.setdefault(i, {})[v] = rest
        else:
            errors.setdefault(i, []).append(f"vector {v}: {rest}")
    results = {}
    for i, it in enumerate(items):
        got = verdicts.get(i, {})
        errs = errors.get(i, [])
        if len(got) == it.vectors and all(x == "PASS" for x in got.values()) and not errs:
            results[it.name] = RtlResult("pass")
            continue
        detail = "; ".join(_explain(it, e) for e in errs[:4])
        if len(got) < it.vectors and not errs:
            detail = f"{len(got)} of {it.vectors} vectors finished"
        results[it.name] = RtlResult("fail", detail or "FAIL")
    return results


def _explain(it: RtlItem, err: str) -> str:
    """Name the array bytes or guard bytes behind the differing bytes of a memory word in an
    error line ("ERR mem <word> got <hex> want <hex>")."""
    m = re.search(r"ERR mem (\d+) got (\S+) want (\S+)", err)
    if not m:
        return err
    addr = int(m.group(1)) * 4

    def byte(text: str, b: int) -> str:
        return text[len(text) - 2 * b - 2 : len(text) - 2 * b]

    diff = [addr + b for b in range(4) if byte(m.group(2), b) != byte(m.group(3), b)] or [addr]
    parts = []
    for name, (base, n) in it.layout.items():
        inside = [a - base for a in diff if base <= a < base + n]
        if inside:
            parts.append(f"{name} bytes {min(inside)}..{max(inside)}")
        if any(base + n <= a < _guard_end(base, n, it.data_bits // 8) for a in diff):
            parts.append(f"guard bytes after {name}")
    if not parts:
        return err
    return err.replace(f"mem {m.group(1)} ", f"mem {m.group(1)} ({', '.join(parts)}) ", 1)
