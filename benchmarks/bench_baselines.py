"""The ILP's plan against simple baselines on the bundled examples, for every objective.

    python benchmarks/bench_baselines.py                 # what `make bench` runs
    python benchmarks/bench_baselines.py --examples fir_pipeline --objectives latency

Each example in examples/ is profiled once (here, scaled to the PYNQ-Z2 as
`partition plan` does), translated and estimated with every implementation
variant; then, per objective (latency; makespan and throughput with the
board's two cores), the same `Problem` is solved by the ILP and evaluated
(`partition.plan.objective_of`, the model's own definition) for:

* all-CPU: every task on the CPU;
* all-FPGA-that-fits: every FPGA-capable task on the FPGA with its fastest
  variant, hottest (most CPU time) first, skipping a task whose variants
  no longer fit the budget (or whose caller/callee is already a kernel);
* greedy hot-first: hottest first, a task moves to the FPGA (its fastest
  variant that fits) only when that lowers the objective.

Under the model the ILP is never worse than any of them when it proves
optimality — the benchmark fails otherwise. Each objective runs at the
default 80 % cap (where every kernel of the examples fits and the baselines
mostly tie) and at a 12 % cap, where they do not and the choice matters. Writes
benchmarks/results/baselines.json and baselines.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(ROOT))

from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.plan import Options, objective_of, prepare, solve_prepared, translate_all  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.solve import Problem, feasible  # noqa: E402

OBJECTIVES = ("latency", "makespan", "throughput")
UTILS = (0.8, 0.12)  # the default cap, and one where not every kernel fits (the choice matters)
BOARD = "pynq-z2"
_REL = 1e-9


def _fits(problem: Problem, x: dict[str, int], var: dict[str, str]) -> bool:
    return feasible(problem, x, var)


def _hot_first(problem: Problem, keep) -> tuple[dict[str, int], dict[str, str]]:
    """Tasks hottest first, each on its fastest variant that fits and that `keep(x, var)` accepts."""
    x = {t.name: 0 for t in problem.tasks}
    var: dict[str, str] = {}
    for t in sorted(problem.tasks, key=lambda t: (-t.cpu_s, t.name)):
        if t.pin == "cpu":
            continue
        for v in sorted(t.options(), key=lambda v: (v.fpga_s, v.name)):
            x[t.name], var[t.name] = 1, v.name
            if _fits(problem, x, var) and keep(x, var):
                break
            x[t.name] = 0
            del var[t.name]
    return x, var


def all_fpga_that_fits(problem: Problem) -> tuple[dict[str, int], dict[str, str]]:
    return _hot_first(problem, lambda x, var: True)


def greedy_hot_first(problem: Problem) -> tuple[dict[str, int], dict[str, str]]:
    """A task moves to the FPGA only when that lowers the objective."""
    best = [objective_of(problem, {t.name: 0 for t in problem.tasks}, {})]

    def lowers(x: dict[str, int], var: dict[str, str]) -> bool:
        val = objective_of(problem, x, var)
        if val < best[0]:
            best[0] = val
            return True
        return False

    return _hot_first(problem, lowers)


def bench(examples: list[str], objectives: list[str], utils: list[float], solver: str) -> list[dict]:
    board = load_board(BOARD)
    rows = []
    for ex in examples:
        app = ROOT / "examples" / f"{ex}.py"
        t0 = time.perf_counter()
        prof = run_profile(app, [], samples=1, echo=False)
        print(f"  profiled {ex} in {time.perf_counter() - t0:.1f} s", flush=True)
        translated = translate_all(prof, app.parent)
        for objective, util in [(o, u) for u in utils for o in objectives]:
            opts = Options(objective=objective, solver=solver, max_util=util)
            prep = prepare(prof, app.parent, board, opts, translated)
            p = prep.problem
            t1 = time.perf_counter()
            sol = solve_prepared(prep, opts, 1)[0]
            solve_s = time.perf_counter() - t1
            base = {
                "all-CPU": ({t.name: 0 for t in p.tasks}, {}),
                "all-FPGA-that-fits": all_fpga_that_fits(p),
                "greedy hot-first": greedy_hot_first(p),
            }
            values = {k: objective_of(p, x, v) for k, (x, v) in base.items()}
            fpga = {k: sorted(n for n, on in x.items() if on) for k, (x, _v) in base.items()}
            ilp = sol.objective_s
            if sol.status == "Optimal":
                for k, val in values.items():
                    if ilp > val * (1 + _REL) + 1e-12:
                        raise AssertionError(
                            f"{ex} {objective} at {util}: ILP {ilp!r} s worse than {k} {val!r} s"
                        )
            rows.append(
                {
                    "example": ex,
                    "objective": objective,
                    "max_util": util,
                    "cores": p.cpu_cores,
                    "tasks": len(p.tasks),
                    "variants": sum(len(t.options()) for t in p.tasks),
                    "ilp_s": ilp,
                    "status": sol.status,
                    "solver": sol.solver,
                    "solve_s": solve_s,
                    "ilp_fpga": sorted(f"{n} ({sol.variant[n]})" for n, on in sol.assignment.items() if on),
                    "baselines": values,
                    "baseline_fpga": fpga,
                }
            )
            print(
                f"  {ex} {objective} {util}: ILP {ilp:.6g} s ({sol.status}); "
                + ", ".join(f"{k} {v:.6g} s" for k, v in values.items()),
                flush=True,
            )
    return rows


def _s(v: float) -> str:
    if v >= 1:
        return f"{v:.3f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.3f} ms"
    return f"{v * 1e6:.1f} µs"


def markdown(rows: list[dict]) -> str:
    names = ["all-CPU", "all-FPGA-that-fits", "greedy hot-first"]
    out = [
        "# The ILP's plan against baselines on the examples",
        "",
        f"Each example profiled on this machine and scaled to the {BOARD} CPU, as `partition plan` does; every "
        "FPGA-capable task with all its implementation variants (`partition.estimate.variants`). Predicted "
        "times under the model of each objective (`partition.solve.model`): latency = one run, blocking "
        "calls; makespan = one run, CPU/FPGA overlap, 2 cores; throughput = period per frame, 2 cores. "
        "*ILP saves*: how much lower the ILP's prediction is than the best of the three. Produced by "
        "`benchmarks/bench_baselines.py`; it fails if a proven-optimal plan is worse than a baseline.",
        "",
        "| example | objective | max-util | cores | tasks | variants | ILP | status | "
        + " | ".join(names)
        + " | ILP saves vs best baseline | ILP's FPGA tasks |",
        "|---|---|---:|---:|---:|---:|---:|---|" + "---:|" * len(names) + "---:|---|",
    ]
    for r in rows:
        best = min(r["baselines"].values())
        saved = max(0.0, best - r["ilp_s"])  # equal plans differ by rounding only
        out.append(
            f"| {r['example']} | {r['objective']} | {r['max_util']:g} | {r['cores']} | {r['tasks']} | "
            f"{r['variants']} | {_s(r['ilp_s'])} | {r['status']} | "
            + " | ".join(_s(r["baselines"][n]) for n in names)
            + f" | {_s(saved)} ({saved / best:.3%}) | {', '.join(r['ilp_fpga']) or '—'} |"
        )
    out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", nargs="+", default=list(EXAMPLES))
    ap.add_argument("--objectives", nargs="+", default=list(OBJECTIVES), choices=OBJECTIVES)
    ap.add_argument("--max-util", type=float, nargs="+", default=list(UTILS))
    ap.add_argument("--solver", default="cbc", choices=["cbc", "highs"])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    rows = bench(args.examples, args.objectives, args.max_util, args.solver)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "baselines.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    (args.out / "baselines.md").write_text(markdown(rows))
    print(f"wrote {args.out / 'baselines.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
