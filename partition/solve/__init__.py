"""Choosing CPU or FPGA for every task (ILP) — see `partition.solve.model`."""
