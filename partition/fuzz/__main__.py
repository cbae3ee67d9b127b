"""`python -m partition.fuzz`: run N differential fuzz cases and report.

    python -m partition.fuzz --cases 2000 --seed 1 --rtl-fraction 0.35 --report benchmarks/results/fuzz.md
    python -m partition.fuzz --seed 4242 --cases 1 --keep --work fuzz-work  # reproduce one case

Prints the counts, the seed range, every mismatch and the throughput; exits 1 when any
accepted kernel disagreed with Python (or a tool failed), 0 otherwise. Scratch files go to
a temporary folder (or --work); the files of failing cases are kept and their folder printed.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from partition.fuzz import rtlsim, run
from partition.fuzz.features import describe
from partition.fuzz.gen import generate
from partition.fuzz.run import Summary, fuzz
from partition.templating import render


def _variant_order(name: str) -> tuple:
    """base, seq, unrolled, then the same at 64 and at 128 bits."""
    bits, unroll = re.search(r"wide(\d+)", name), re.search(r"unroll(\d+)", name)
    return (name != "base", int(bits[1]) if bits else 0, name != "seq", int(unroll[1]) if unroll else 0, name)


def report_context(s: Summary, command: str, batch: int) -> dict:
    results = s.results
    accepted = [r for r in results if r.status == "accepted"]
    features: Counter[str] = Counter()
    for r in accepted:
        features.update(describe(generate(r.seed, float_fraction=s.float_fraction)))
    findings = []
    for r in s.findings:
        where = ", ".join(r.findings)
        detail = "; ".join(
            f"{k}: {v}" for k, v in sorted(r.details.items()) if k in r.findings or k == "crash"
        )
        detail = detail or r.reason
        others = [
            f"{st} {r.stages[st]}" for st in ("ir", "csim", "rtl") if st in r.stages and st not in r.findings
        ]
        findings.append(
            {
                "seed": r.seed,
                "where": where,
                "agree": ", ".join(others) or "-",
                "detail": detail.replace("|", "/").replace("\n", " ")[:400],
            }
        )
    minutes = s.seconds / 60 if s.seconds else 0
    built = [r for r in results if r.rtl_variant]
    variants = []
    for name in sorted({r.rtl_variant for r in built}, key=_variant_order):
        mine = [r for r in built if r.rtl_variant == name]
        variants.append(
            {
                "name": name,
                "boards": ", ".join(sorted({r.rtl_board for r in mine})),
                "built": len(mine),
                "drawn": sum(1 for r in mine if r.rtl_drawn == name),
                "passed": sum(1 for r in mine if r.stages.get("rtl") == "pass"),
            }
        )
    fallbacks = Counter(
        (r.rtl_drawn, rtlsim.fallback_reason(r.rtl_fallback)) for r in built if r.rtl_fallback
    )
    return {
        "command": command,
        "batch": batch,
        "rtl_fraction": s.rtl_fraction,
        "first": s.seeds[0],
        "last": s.seeds[1],
        "total": len(results),
        "invalid": s.count(lambda r: r.status == "invalid"),
        "rejected": s.count(lambda r: r.status == "rejected"),
        "accepted": len(accepted),
        "accepted_floats": sum(1 for r in accepted if r.floats),
        "csim_pass": s.through("csim"),
        "rtl_pass": s.through("rtl"),
        "rtl_variants": variants,
        "rtl_boards": ", ".join(rtlsim.RTL_BOARDS),
        "rtl_fallback": sum(fallbacks.values()),
        "rtl_streamed": sum(1 for r in built if r.rtl_streams and r.stages.get("rtl") == "pass"),
        "rtl_fallbacks": [
            {"drawn": d, "reason": reason, "n": n}
            for (d, reason), n in sorted(fallbacks.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "rtl_skipped": s.count(lambda r: r.stages.get("rtl") == "skipped"),
        "rtl_unsupported": s.count(lambda r: r.stages.get("rtl") == "unsupported"),
        "rtl_unsupported_reasons": sorted(
            Counter(
                run.normalise_reason(r.details.get("rtl", ""))
                for r in results
                if r.stages.get("rtl") == "unsupported"
            ).items()
        ),
        "rtl_limit": f"{rtlsim.MAX_COMPUTE_CYCLES:,}",
        "findings": findings,
        "seconds": f"{s.seconds:.0f}",
        "per_minute": f"{len(results) / minutes:.0f}" if minutes else "n/a",
        "rejects": s.rejects(),
        "invalid_reasons": s.invalid(),
        "features": sorted(features.items(), key=lambda kv: (-kv[1], kv[0])),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m partition.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=300, help="number of cases (seeds SEED..SEED+CASES-1)")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument(
        "--rtl-fraction", type=float, default=0.35, help="share of integer cases also simulated as RTL"
    )
    ap.add_argument("--float-fraction", type=float, default=0.25, help="share of cases allowed to use floats")
    ap.add_argument("--batch", type=int, default=100, help="kernels per g++ build and per Icarus build")
    ap.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep every case's files, not only failing ones")
    ap.add_argument("--report", type=Path, help="write a Markdown report here")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if (
        args.cases < 1
        or not 0 <= args.rtl_fraction <= 1
        or not 0 <= args.float_fraction <= 1
        or args.batch < 1
    ):
        ap.error("--cases and --batch must be positive, fractions between 0 and 1")
    if args.rtl_fraction > 0 and not rtlsim.available():
        print("iverilog not found: the RTL stage is skipped (apt-get install iverilog)", file=sys.stderr)

    def progress(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    scratch = args.work is None
    work = Path(tempfile.mkdtemp(prefix="partition-fuzz-")) if args.work is None else args.work
    work.mkdir(parents=True, exist_ok=True)
    s = fuzz(
        range(args.seed, args.seed + args.cases),
        work,
        rtl_fraction=args.rtl_fraction,
        float_fraction=args.float_fraction,
        batch=args.batch,
        keep=args.keep,
        progress=progress,
    )
    shown = list(argv if argv is not None else sys.argv[1:])
    if "--work" in shown:  # a scratch path says nothing about the run
        i = shown.index("--work")
        del shown[i : i + 2]
    if "--report" in shown and shown.index("--report") + 1 < len(shown):
        i = shown.index("--report") + 1
        path = Path(shown[i])
        if path.is_absolute():  # no machine paths in the report
            try:
                shown[i] = path.relative_to(Path.cwd()).as_posix()
            except ValueError:
                shown[i] = path.name
    command = shlex.join(["python", "-m", "partition.fuzz", *shown])
    ctx = report_context(s, command, args.batch)
    print(f"seeds {ctx['first']}..{ctx['last']}: {ctx['total']} cases")
    print(
        f"  invalid {ctx['invalid']}, rejected {ctx['rejected']}, accepted {ctx['accepted']} "
        f"({ctx['accepted_floats']} with floats)"
    )
    print(f"  agreed with Python: C simulation {ctx['csim_pass']}, RTL simulation {ctx['rtl_pass']}")
    print(f"  RTL skipped (long) {ctx['rtl_skipped']}, RTL not built {ctx['rtl_unsupported']}")
    for v in ctx["rtl_variants"]:
        print(f"  RTL {v['name']}: {v['passed']} of {v['built']} built agreed ({v['boards']})")
    for f in ctx["rtl_fallbacks"]:
        print(f"  RTL drawn {f['drawn']}, built base x{f['n']}: {f['reason']}")
    for reason, n in ctx["rtl_unsupported_reasons"]:
        print(f"  RTL not built x{n}: {reason}")
    for reason, n in ctx["rejects"][:8]:
        print(f"  rejected x{n}: {reason}")
    print(f"  mismatches: {len(ctx['findings'])}")
    for f in ctx["findings"]:
        print(f"    seed {f['seed']} [{f['where']}]: {f['detail']}")
    print(f"  {s.seconds:.0f} s, {ctx['per_minute']} cases per minute")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(render("fuzz/report.md.j2", **ctx))
        print(f"  report: {args.report}")
    if ctx["findings"]:
        # the files of passing kernels are gone; the failing ones stay for a look
        print(f"  files of the failing cases are under {work}")
    elif scratch:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if ctx["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
