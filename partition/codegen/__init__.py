"""Code generation: kernels and plans -> the files of the build tree."""
