"""The plan stage's artefacts: the options a plan is made with, what is prepared for the solver
(`Prepared`), and the `Plan` (plan.json plus the kernels and estimates it refers to)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partition import ir
from partition.boards import Board
from partition.estimate import (
    BASE,
    Directives,
    Estimate,
    KernelVariant,
)
from partition.frontend import Rejected, Verdict
from partition.plan.shapes import MaxShape
from partition.rtl import RtlKernel
from partition.solve import (
    Problem,
    costs,
)
from partition.vectors import VectorSet

FORMAT = "partition-plan/1"

CHAIN_OBJECTIVES = ("latency", "throughput")  # the models that take AXI-Stream chains


@dataclass
class Options:
    objective: str = "latency"
    max_util: float = 0.8
    pin_cpu: list[str] = field(default_factory=list)
    pin_fpga: list[str] = field(default_factory=list)
    solver: str = "auto"  # "auto": ilp.default_solver for the objective
    timings: bool = False
    cores: int | None = None  # CPU cores for makespan/throughput (None: the board's, at most 2)
    time_limit_s: float | None = None
    top_k: int = 1
    variants: bool = True  # estimate implementation variants (False: the base one only)
    calibrate: Path | None = None
    chains: bool = True  # offer AXI-Stream chains where the app allows them (CHAIN_OBJECTIVES)
    int_widths: str = "sound"  # Python int arguments: "sound" (int64) or "observed" (narrowest profiled)
    max_shapes: list[MaxShape] = field(default_factory=list)  # --max-shape: longest arrays kernels take
    # where --sweep / --board all run their independent preparations and solves (partition.executor)
    workers: int | None = None  # LocalCluster processes (None: the cores; 1: one after another here)
    scheduler: str | None = None  # a running Dask scheduler's address instead of a LocalCluster


@dataclass
class Plan:
    """The plan artefact (plan.json) plus the in-memory kernels and estimates it refers to."""

    data: dict[str, Any]
    kernels: dict[str, ir.Kernel]
    estimates: dict[str, Estimate]  # the base variant's
    rejected: dict[str, Rejected]
    rtl: dict[str, RtlKernel] = field(default_factory=dict)  # FPGA tasks the RTL backend built
    prepared: Prepared | None = None  # the problem the plan solved (not saved; for explain)

    @property
    def fpga_tasks(self) -> list[str]:
        return [t["name"] for t in self.data["tasks"] if t["placement"] == "fpga"]

    def directives(self, task: str) -> dict[str, Any] | None:
        """The HLS directives of the variant the plan chose for `task` (None: base)."""
        t = next((t for t in self.data["tasks"] if t["name"] == task), None)
        return None if t is None else chosen_directives(t)

    def bus_bits(self, task: str, board: Board) -> int:
        """The m_axi width of the variant the plan chose for `task` (the board's for base)."""
        d = self.directives(task)
        return (Directives.from_json(d) if d else Directives(BASE)).bus(board)


def chosen_directives(task: dict[str, Any]) -> dict[str, Any] | None:
    """The directives (JSON) of the variant a plan.json task chose; None for base or none."""
    if task.get("variant", BASE) == BASE:
        return None
    for v in task["fpga"].get("variants", []):
        if v["name"] == task["variant"]:
            return v["directives"]
    return None


@dataclass
class Prepared:
    """Everything up to the solver for one board: kernels, variant figures, the problem."""

    board: Board
    scaling: costs.Scaling
    kernels: dict[str, ir.Kernel]
    rejected: dict[str, Rejected]
    variants: dict[str, list[KernelVariant]]
    figures: dict[str, dict[str, costs.TaskFigures]]  # task -> variant -> figures
    problem: Problem
    pins: dict[str, str]
    calibrated: int = 0  # measurements applied
    # FPGA -> FPGA array edges considered for an AXI-Stream chain: (src, dst) -> Verdict
    chain_verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)
    vectors: dict[str, list[VectorSet]] = field(default_factory=dict)  # every kernel's, checked
    warnings: list[str] = field(default_factory=list)  # what the plan could not do as asked, and why

    @property
    def base_estimates(self) -> dict[str, Estimate]:
        return {n: vs[0].estimate for n, vs in self.variants.items()}


def plan_assignment(plan: Plan) -> dict[str, int]:
    return {t["name"]: int(t["placement"] == "fpga") for t in plan.data["tasks"]}
