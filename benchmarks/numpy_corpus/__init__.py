"""NumPy corpus: PolyBench kernels, scientists' NumPy programs and board-side baselines written as people write them."""
