"""Estimation: Kernel IR x board -> cost of one call (cycles, II, LUT/FF/DSP/BRAM18).

`estimate_kernel` is the model estimator; `schedule_kernel` is the static schedule it
is built on (shared with the RTL backend); `tables` holds the per-operation costs,
each with its source.
"""

from partition.estimate.model import Estimate, estimate_kernel, schedule_for_board
from partition.estimate.schedule import KernelSchedule, schedule_kernel

__all__ = ["Estimate", "KernelSchedule", "estimate_kernel", "schedule_for_board", "schedule_kernel"]
