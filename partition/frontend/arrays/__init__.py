"""Whole-array numpy code lowered to element loops.

numpy evaluates `y = np.maximum(W @ x + b, 0)` on whole arrays; a kernel
computes it one element at a time. This package gives the frontend an array
value, `AV`: a static shape, an element dtype, and a function from index
expressions to the IR of one element. Names, slices, elementwise operators and
the supported numpy functions build AVs without emitting code; statements
materialise them through one loop-nest emitter (`loop_nest`), reductions
become loops with an accumulator whose value the expression then reads.

Semantics are numpy 2's (NEP 50):

* Result dtypes and broadcast shapes are numpy's own. Every operation is first
  applied by numpy to one-element arrays of the operand dtypes (and to the
  actual values of constant Python scalars, so numpy's OverflowError for
  `int8_array + 300` rejects the expression as numpy would fail it); the
  element expression, built with the frontend's scalar rules, must produce
  the same dtype. Shapes broadcast with `np.broadcast_shapes`.
* np.minimum/np.maximum/np.clip propagate NaN, unlike Python's min/max.
  np.max/np.min of floats propagate NaN; argmax/argmin return the first
  extreme index, or the first NaN.
* np.sum accumulates in the dtype numpy picks (int8/16/32 -> int64, unsigned ->
  uint64, bool -> int64, or `dtype=`), in index order. Integer sums wrap, so
  any order gives numpy's result; numpy adds floats pairwise, so float sums
  (and means) may differ in the last bits: they are compared within the float
  tolerance, and the kernel notes say so. np.dot/@ accumulate in the result
  dtype in index order: exact for integers (wrapping), BLAS order for floats
  (again within tolerance).
* astype and stores into an array cast as numpy does (int->int wraps,
  float->int truncates; numpy leaves NaN and out-of-range values undefined,
  the kernel notes it). In-place operators follow numpy's `same_kind` rule
  (numpy's own check decides, so `int_array += 0.5` is rejected as numpy
  raises).
* Slices are views: `v = x[1:]` binds `v` to x's elements (writes through `v`
  change x); `return x[1:]` of an argument is rejected, since numpy returns a
  view sharing the argument's memory. A name assigned a computed array gets an
  on-chip array of its own (one per name, dtype and shape).
* Overlap: numpy evaluates a right-hand side whole before assigning (and
  in-place ufuncs behave as if their inputs were copied). An assignment whose
  right-hand side reads the target array at any element other than the one
  being written (`a[1:] = a[:-1]`, `a[:] = a[::-1] + a[0]`) first computes the
  right-hand side into a temporary array; reading the same element is safe.
* Index arrays and boolean masks (`selections`): `t[ids]` and `a[i0, i1]` gather
  with numpy's broadcasting, each index checked at run time where its dtype could
  leave the axis (the fallback status stands in for numpy's IndexError);
  `x[mask]` is reduced over the mask (sums in index order, as above; an empty
  mean is NaN, an empty max hands the call to the CPU) and may be assigned
  through, but never kept or returned: its length depends on the data.
* A name bound to an array inside a loop or a branch must keep naming the same
  array it named before (or be new there): otherwise the code after the loop
  or the next iteration would see either array, depending on the path.
"""

from partition.frontend.arrays.lowering import ArrayLowering

__all__ = ["ArrayLowering"]
