"""Simulation and synthesis tools: Verilator + cocotb (verilator.py), yosys (yosys.py)."""
