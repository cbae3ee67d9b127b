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
from partition.codegen import render
from partition.codegen.hls import VectorSet
from partition.estimate.variants import Directives, candidate_directives
from partition.rtl.kernel import generate_rtl
from partition.rtl.shells import control_address_bits
from partition.rtl.vectors import vector_files

OP_MEM, OP_REG, OP_RUN, OP_MASK, OP_REGCHK, OP_MEMCHK, OP_VEC = 1, 2, 3, 4, 5, 6, 7
# Icarus simulates a generated kernel at roughly 10-50 k cycles per second: kernels whose
# schedule says a call computes for longer are left to the Verilator-based tests
MAX_COMPUTE_CYCLES = 20_000
SEQ_EVERY = 3  # one kernel in three (by seed) is built in its `seq` variant (FSM loops)


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
    variant: str = "base"  # the implementation variant built


@dataclass
class RtlResult:
    status: str  # pass | fail | error
    detail: str = ""


def _line(op: int, a: int, b: int) -> str:
    return f"{op:02x}{a & 0xFFFFFFFF:08x}{b & 0xFFFFFFFF:08x}"


def variant_for(kernel: ir.Kernel, seed: int) -> Directives | None:
    """The implementation variant case `seed` builds: `seq` for one seed in SEQ_EVERY when the
    kernel has loops the base variant pipelines, else base (None). The other variants
    partition arrays into banks, which the built-in RTL does not build."""
    if seed % SEQ_EVERY:
        return None
    return next((d for d in candidate_directives(kernel) if d.name == "seq"), None)


def prepare(
    kernel: ir.Kernel,
    vectors: list[VectorSet],
    board: Board,
    folder: Path,
    seed: int,
    max_cycles: int = MAX_COMPUTE_CYCLES,
) -> RtlItem:
    """Write the kernel's IP (in the variant `variant_for` picks) and its harness script into
    `folder` (raises RtlUnsupported, or TooLong when the schedule says a call computes for
    more than `max_cycles`)."""
    rtl = generate_rtl(kernel, board, variant_for(kernel, seed))
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
    # memory layout: arrays one after the other with 8+ guard bytes; a stressed kernel's
    # first array starts just below 4 KB, so its bursts must split at the boundary
    addr = 4096 - 4 * rng.randint(1, 6) if stressed else 64
    layout: dict[str, tuple[int, int]] = {}
    for p in manifest["params"]:
        if p["kind"] == "array":
            layout[p["name"]] = (addr, p["nbytes"])
            addr += (p["nbytes"] + 8 + 3) // 4 * 4
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
            end = (base + n + 8 + 3) // 4 * 4
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
            r = regs[p["name"]]
            if p["kind"] == "array":
                value = layout[p["name"]][0]
            else:
                value = int.from_bytes(vfiles[f"vectors/{vec['inputs'][p['name']]}"], "little")
            value &= (1 << r.bits) - 1
            for i in range(r.words):
                lines.append(_line(OP_REG, r.offset + 4 * i, value >> (32 * i)))
        lines.append(_line(OP_RUN, 0, 0))
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
    )


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
    """Name the array element behind a memory word in an error line."""
    m = re.search(r"ERR mem (\d+) ", err)
    if not m:
        return err
    addr = int(m.group(1)) * 4
    where = ""
    for name, (base, n) in it.layout.items():
        if base <= addr < base + n:
            where = f"{name} bytes {addr - base}..{min(addr - base + 3, n - 1)}"
            break
        if base + n <= addr < base + n + 12 and not where:
            where = f"guard bytes after {name}"
    return err.replace(f"mem {m.group(1)} ", f"mem {m.group(1)} ({where}) ") if where else err
