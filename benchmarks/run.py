"""`make bench`: every benchmark, each writing its figures to benchmarks/results/."""

from __future__ import annotations

import sys

from benchmarks import (
    bench_acceptance,
    bench_baselines,
    bench_fidelity,
    bench_measure,
    bench_memory,
    bench_pipeline,
    bench_roofline,
    bench_solve,
    bench_tiling,
)


def main() -> int:
    rc = 0
    for name, fn in (
        ("solve", bench_solve.main),
        ("baselines", bench_baselines.main),
        ("pipeline", bench_pipeline.main),
        ("fidelity", bench_fidelity.main),
        ("acceptance", bench_acceptance.main),
        ("tiling", bench_tiling.main),
        ("roofline", bench_roofline.main),
        ("measure", bench_measure.main),
        ("memory", bench_memory.main),
    ):
        print(f"== benchmark: {name}", flush=True)
        rc |= fn([])
    return rc


if __name__ == "__main__":
    sys.exit(main())
