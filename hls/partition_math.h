// partition_math.h: the math functions generated kernels call, as hls::sqrt(x), hls::exp(x), ...
//
// Under Vitis HLS these are the HLS math library's own (hls_math.h, included
// below when the compiler finds it): synthesisable implementations of float and
// double overloads of every function used here. UG1399 ("HLS Math Library
// Accuracy") calls them bit-approximate, "typically in the range of 1-4 ULP"
// from the C library; sqrt, floor, ceil, trunc, rint, fmod and copysign have
// one IEEE 754 result and are exact.
//
// Everywhere else (g++ C simulation of a build tree) this header defines the
// same hls:: functions on <cmath>, i.e. the C library: glibc's libm, which is
// also what Python's math module calls, so C simulation of a math.* call
// reproduces Python's value. The testbench compares float outputs within the
// float tolerance (partition.codegen FLOAT_TOLERANCE: relative 1e-5 for float,
// about 84 ulp; 1e-12 for double, about 4500 ulp), which covers those few ulp.
//
// Kernels are compiled without floating-point contraction, so a*b+c is never
// fused into an fma that would round differently from Python.

#ifndef PARTITION_MATH_H
#define PARTITION_MATH_H

#if defined(__has_include)
#if __has_include(<hls_math.h>)
#include <hls_math.h>
#define PT_VITIS_MATH 1
#endif
#endif

#ifndef PT_VITIS_MATH
#include <cmath>

namespace hls {

#define PT_MATH_UNARY(f)                          \
  inline float f(float x) { return std::f(x); }   \
  inline double f(double x) { return std::f(x); }
#define PT_MATH_BINARY(f)                                   \
  inline float f(float x, float y) { return std::f(x, y); } \
  inline double f(double x, double y) { return std::f(x, y); }

PT_MATH_UNARY(sqrt)
PT_MATH_UNARY(exp)
PT_MATH_UNARY(expm1)
PT_MATH_UNARY(log)
PT_MATH_UNARY(log2)
PT_MATH_UNARY(log10)
PT_MATH_UNARY(log1p)
PT_MATH_UNARY(sin)
PT_MATH_UNARY(cos)
PT_MATH_UNARY(tan)
PT_MATH_UNARY(asin)
PT_MATH_UNARY(acos)
PT_MATH_UNARY(atan)
PT_MATH_UNARY(sinh)
PT_MATH_UNARY(cosh)
PT_MATH_UNARY(tanh)
PT_MATH_UNARY(floor)
PT_MATH_UNARY(ceil)
PT_MATH_UNARY(trunc)
PT_MATH_UNARY(rint)  // round half to even in the default rounding mode
PT_MATH_BINARY(atan2)
PT_MATH_BINARY(hypot)
PT_MATH_BINARY(pow)
PT_MATH_BINARY(fmod)
PT_MATH_BINARY(copysign)

#undef PT_MATH_UNARY
#undef PT_MATH_BINARY

}  // namespace hls
#endif  // PT_VITIS_MATH

#endif  // PARTITION_MATH_H
