"""Measured figures of partition (`make bench`); results go to benchmarks/results/."""
