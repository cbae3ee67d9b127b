"""Apps whose data is larger than on-chip RAM, for `benchmarks.bench_tiling` (issue 19)."""
