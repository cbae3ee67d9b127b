"""Frontend: program structure of NumPy code keeps Python's meaning.

Functions defined inside the kernel's function (`def f(y)` and `f = lambda ...`) are inlined
as module helpers are, their closure variables passed at each call (Python reads them when
the function is called); helpers returning arrays may be called inside larger expressions;
`np.array([a, b])` of run-time scalars makes an array numpy types as it types the list.
Python is the golden model: the IR interpreter and the C simulation must agree with it on
every call, edge values and wrapping integer arithmetic included.
"""

from __future__ import annotations

import numpy as np
from frontend_cases import structure_kernels as S
from frontend_util import csim_pass, profile_calls
from test_frontend import APP_DIR, check, check_with_helpers

from partition.frontend import Rejected, translate

RNG = np.random.default_rng(20261206)

RK4 = [(RNG.standard_normal(2), 1.5, 0.1, s) for s in (0, 1, 5)]
GATES = [(RNG.standard_normal(6), s) for s in (0.5, -2.0, 0.0)]
INT16 = [(np.array([32767, -32768, -1, 0, 1], np.int16), np.int16(k)) for k in (3, -1, 0, 32767)]


def test_nested_function_reads_the_enclosing_variables():
    k = check(S.rk4, RK4)
    assert any("f() inlined" in n for n in k.notes)


def test_lambda_and_nested_def_see_the_closure_when_called():
    check(S.gates, GATES)


def test_integer_nested_function_and_run_time_np_array():
    check(S.int_closure, INT16)


def test_nested_function_used_as_a_value_is_refused():
    k = translate(profile_calls(S.passes_nested, [(np.arange(3.0),)], APP_DIR), APP_DIR)
    assert isinstance(k, Rejected) and "used other than by calling it" in k.reason


def test_helpers_returning_arrays_inside_expressions():
    # small integers as floats: every product and sum exact, whatever order BLAS adds in
    x, w1, w2 = (RNG.integers(-4, 5, size=s).astype(np.float64) for s in ((2, 3), (3, 4), (4, 2)))
    calls = [(x, w1, w2), (-x, w1, w2)]
    check_with_helpers(
        S.two_layers,
        calls,
        [(S.relu_layer, [(x, w1), (-x, w1)]), (S.shift, [(np.maximum(x @ w1, 0) @ w2,)])],
    )
    xi = np.array([127, -128, -1, 0, 1, 50], np.int8)
    check_with_helpers(S.uses_int_helper, [(xi,)], [(S.int_helper, [(xi,)])])


def test_shape_slices_unpacked_and_tuples_compared():
    img = RNG.integers(-1000, 1000, size=(3, 4, 2)).astype(np.int32)
    check(S.shape_parts, [(img, k) for k in (0, 1, -1, 3)])
    k = translate(profile_calls(S.tuple_compare_floats, [(1.0, 2.0)], APP_DIR), APP_DIR)
    assert isinstance(k, Rejected) and "identity first" in k.reason


def test_views_of_an_argument_are_returned_as_copies():
    from frontend_cases import numpy_kernels as N

    k = check(N.return_view, [(np.array([5, -1, 7], np.int32),)])
    assert any("view sharing argument x" in n for n in k.notes)
    img = RNG.integers(0, 255, size=(4, 4, 3)).astype(np.uint8)
    check(S.flips, [(img,)])


def test_reshape_to_n_d_is_a_row_major_re_indexing():
    img = RNG.integers(-128, 127, size=(4, 6)).astype(np.int8)
    check(S.blocks, [(img,), (np.full((4, 6), -128, np.int8),)])
    x, w = (RNG.integers(-4, 5, size=s).astype(np.float64) for s in ((3, 4), (4, 4)))
    check(S.heads, [(x, w), (-x, w)])
    k = translate(profile_calls(S.reshape_then_write, [(np.arange(6.0),)], APP_DIR), APP_DIR)
    assert isinstance(k, Rejected) and "writes to x in place" in k.reason


def test_tuple_display_stored_into_a_row():
    x = np.array([[32767, -32768], [-1, 1], [0, 12345]], np.int16)
    check(S.row_tuples, [(x,), (RNG.integers(-32768, 32767, size=(3, 2)).astype(np.int16),)])


def test_np_diff():
    x = np.array([127, -128, 0, -1, 1, 100], np.int8)
    m = RNG.standard_normal((3, 4))
    b = np.array([True, False, False, True, True])
    check(S.diffs, [(x, m, b), (x[::-1].copy(), -m, ~b)])


def test_sum_of_a_generator_of_arrays_over_constant_displays():
    board = RNG.integers(0, 2, size=(5, 6)).astype(np.uint8)
    check(S.neighbours, [(board,), (np.ones((5, 6), np.uint8),)])
    check(S.float_sum, [(np.array([0.0, -0.0, 1.5, -2.0]),)])


def test_np_stack():
    a = np.array([[127, -128, 0], [-1, 1, 100]], np.int8)
    b = np.array([[32767, -32768, 0], [-1, 1, 300]], np.int16)
    check(S.stacks, [(a, b), (a[::-1].copy(), b)])


def test_structure_kernels_pass_c_simulation(tmp_path):
    csim_pass(
        tmp_path,
        {
            "rk4": (S.rk4, RK4),
            "gates": (S.gates, GATES),
            "int_closure": (S.int_closure, INT16),
            "rows": (S.row_tuples, [(np.array([[32767, -32768], [-1, 1], [0, 12345]], np.int16),)]),
            "neighbours": (S.neighbours, [(RNG.integers(0, 2, size=(5, 6)).astype(np.uint8),)]),
            "stacks": (
                S.stacks,
                [(np.array([[127, -128, 0], [-1, 1, 100]], np.int8), np.ones((2, 3), np.int16))],
            ),
            "blocks": (S.blocks, [(RNG.integers(-128, 127, size=(4, 6)).astype(np.int8),)]),
            "flips": (S.flips, [(RNG.integers(0, 255, size=(4, 4, 3)).astype(np.uint8),)]),
        },
    )
