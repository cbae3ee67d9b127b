"""The built-in RTL backend: Verilog-2001 from the kernel IR, inside verified shells."""
