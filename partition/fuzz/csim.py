"""Many generated HLS kernels in one g++ build and one run of their own C-simulation testbenches.

Every kernel's files come from the real backend (`generate_hls`: kernel, header, testbench,
vectors of Python's outputs). A few translation units include them all, each kernel inside
a namespace of its own (templates/fuzz/csim_batch.cpp.j2): the kernels, split in two and
compiled with the build tree's csim flags (CSIM_FLAGS) plus UBSan, so undefined behaviour
in generated code stops the run, and the testbenches. They compile in parallel and link
into one program that runs each kernel's testbench in its folder.

A kernel whose C++ does not compile is reported and left out; a kernel that crashes the
program (a sanitizer report, a fault, a time-out) is reported and the program runs again
for the kernels after it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from partition import ir
from partition.codegen import CSIM_FLAGS, generate_hls
from partition.resources import resource_dir
from partition.templating import render
from partition.vectors import VectorSet

SANITIZE = ("-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all")
PART = "xc7z020clg400-1"
CLOCK_MHZ = 100.0
BINARY = "fuzz_csim"


@dataclass
class CsimResult:
    status: str  # pass | fail | error
    detail: str = ""


def write_kernel(kernel: ir.Kernel, vectors: list[VectorSet], work: Path) -> None:
    """The kernel's hls/<task>/ files under work/<name>/ (raises PartitionError)."""
    files = generate_hls(kernel, vectors, part=PART, clock_mhz=CLOCK_MHZ)
    for rel, data in files.items():
        p = work / kernel.name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def _build(names: list[str], work: Path, parts: int = 2) -> tuple[bool, str]:
    include = f"-I{resource_dir('hls')}"
    # -O0: UBSan finds undefined behaviour at any level, and C++ without it computes the same
    # at -O1 (no FMA contraction, no x87); -O0 compiles three times faster
    flags = [f for f in CSIM_FLAGS if not f.startswith("-O")] + ["-O0"]
    jobs, objects = [], []
    for i in range(parts):
        chunk = names[i::parts]
        if not chunk:
            continue
        src = f"fuzz_kernels{i}.cpp"
        (work / src).write_text(render("fuzz/csim_batch.cpp.j2", part="kernels", kernels=chunk))
        jobs.append(["g++", *flags, *SANITIZE, include, "-c", src, "-o", f"fuzz_kernels{i}.o"])
        objects.append(f"fuzz_kernels{i}.o")
    (work / "fuzz_tb.cpp").write_text(render("fuzz/csim_batch.cpp.j2", part="tb", kernels=names))
    jobs.append(["g++", *flags, "-Wno-unused-variable", include, "-c", "fuzz_tb.cpp", "-o", "fuzz_tb.o"])
    objects.append("fuzz_tb.o")
    procs = [
        subprocess.Popen(j, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for j in jobs
    ]
    logs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        return False, "\n".join(logs)
    link = subprocess.run(
        ["g++", *SANITIZE, *objects, "-o", BINARY],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    return link.returncode == 0, "\n".join([*logs, link.stdout, link.stderr])


def run_batch(names: list[str], work: Path, timeout_s: float = 600.0) -> dict[str, CsimResult]:
    """Compile and run the testbenches of `names` (written by `write_kernel` under `work`)."""
    results: dict[str, CsimResult] = {}
    todo = list(names)
    while True:
        ok, log = _build(todo, work)
        if ok:
            break
        bad = {
            n for n in todo if re.search(rf"(^|\s|/){re.escape(n)}/{re.escape(n)}(_tb)?\.(cpp|h):", log, re.M)
        }
        if not bad:
            for n in todo:
                results[n] = CsimResult("error", f"g++ failed: {log[-1500:]}")
            return results
        for n in bad:
            lines = [ln for ln in log.splitlines() if f"{n}/{n}" in ln]
            results[n] = CsimResult("error", "g++: " + "\n".join(lines[:6]))
        todo = [n for n in todo if n not in bad]
        if not todo:
            return results
    while todo:
        try:
            run = subprocess.run(
                [f"./{BINARY}", *todo],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
            out, err, crashed = run.stdout, run.stderr, run.returncode != 0
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err, crashed = "time-out", True
        started = None
        for line in out.splitlines():
            if line.startswith("FUZZ-CSIM-BEGIN "):
                started = line.split()[1]
                body: list[str] = []
            elif line.startswith("FUZZ-CSIM-END "):
                _, name, status = line.split()
                detail = "; ".join(x for x in body if "FAIL" in x or "ERROR" in x)[:1500]
                results[name] = CsimResult("pass" if status == "pass" else "fail", detail)
                started = None
            elif started is not None:
                body.append(line)
        todo = [n for n in todo if n not in results]
        if not crashed:
            for n in todo:
                results[n] = CsimResult("error", "no result from the C-simulation program")
            break
        if started is not None:
            results[started] = CsimResult("fail", f"crashed: {err.strip()[-1500:]}")
            todo = [n for n in todo if n != started]
        elif todo:
            for n in todo:
                results[n] = CsimResult("error", f"C-simulation program failed: {err.strip()[-1500:]}")
            break
    return results
