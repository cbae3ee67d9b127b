"""Differential fuzzing of the translation: random kernels run as Python, as C simulation and
as RTL simulation must agree (`python -m partition.fuzz`, `make fuzz`)."""
