"""Estimation: Kernel IR x board -> cost of one call (cycles, II, LUT/FF/DSP/BRAM18).

`estimate_kernel` is the model estimator; `schedule_kernel` is the static schedule it
is built on (shared with the RTL backend: the `schedule` subpackage); `tables` holds the
per-operation costs, each with its source. `variants` are the implementation variants the
ILP chooses between (`kernel_variants`, `estimate_variant`, and the IR transformation
`unroll_kernel` both backends build), and `calibrate` replaces modelled figures by measured
ones.
"""

from partition.estimate.model import Estimate, estimate_kernel, schedule_for_board
from partition.estimate.schedule import KernelSchedule, schedule_kernel
from partition.estimate.variants import (
    BASE,
    Directives,
    KernelVariant,
    candidate_directives,
    estimate_variant,
    innermost_loops,
    kernel_variants,
    pareto,
    unroll_kernel,
    unroll_plan,
    unrollable,
)

__all__ = [
    "BASE",
    "Directives",
    "Estimate",
    "KernelSchedule",
    "KernelVariant",
    "candidate_directives",
    "estimate_kernel",
    "estimate_variant",
    "innermost_loops",
    "kernel_variants",
    "pareto",
    "schedule_for_board",
    "schedule_kernel",
    "unroll_kernel",
    "unroll_plan",
    "unrollable",
]
