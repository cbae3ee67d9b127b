"""Frontend: array names rebound inside loops and branches keep Python's meaning.

`q = q - dt * f(q)` in a time loop, `phi = new` and `a = a_new` at the end of an iteration,
`xm1 = img[:, j]` in a recursive filter: Python makes the name refer to another array in
every iteration. The kernel stores the new elements into the name's own buffer; an argument
rebound so is saved at its first rebinding and restored at the end (the caller sees what
Python leaves in it), and is returned as a copy. Where a copy could be told apart from
Python's reference (a write in place to either side while the copy is used) it is refused.
Python is the golden model: the IR interpreter and the C simulation must agree with it on
every call, arguments included.
"""

from __future__ import annotations

import numpy as np
from frontend_cases import rebinding_kernels as R
from frontend_util import csim_pass, profile_calls
from test_frontend import APP_DIR, check

from partition.frontend import Rejected, translate

RNG = np.random.default_rng(20261205)


def floats(n: int) -> np.ndarray:
    a = RNG.standard_normal(n)
    a[0] = -0.0
    return a


ADVECT = [(floats(9), floats(9), 3), (floats(9), floats(9), 0), (floats(9), floats(9), 1)]
BOUNCE = [(floats(7), floats(7), -0.5, 0.5, s) for s in (0, 1, 4)]
RING = [(RNG.integers(0, 2, 11).astype(np.uint8), 5) for _ in range(3)]
JACOBI = [(floats(8), 1e-3, 6), (floats(8), 1e9, 6), (floats(8), 1e-3, 0)]
VERLET = [(floats(7), floats(7), s) for s in (0, 1, 3)]
ROWS = [(floats(12).reshape(3, 4), np.zeros((3, 4))), (floats(12).reshape(3, 4), np.full((3, 4), 9.0))]
BRANCH = [(np.array([1, -2, 3], np.int32), c) for c in (-1, 0, 1)]
WRAP = [(np.array([-32768, 32767, -1, 0, 1, 12345], np.int16), s) for s in (0, 1, 7)]
SWAP = [(np.arange(5, dtype=np.int64), np.arange(5, dtype=np.int64) * -3, s) for s in (0, 1, 2, 5)]


def test_argument_rebound_in_a_loop_is_left_untouched_for_the_caller():
    k = check(R.advect, ADVECT)
    assert any("own buffer" in n for n in k.notes)
    assert any("returned as a copy" in n for n in k.notes)
    check(R.advect, [(floats(1), floats(1), 2), (floats(1), floats(1), 0)])  # one element
    check(R.wrap_steps, WRAP)


def test_write_in_place_before_the_rebinding_reaches_the_caller_once():
    # pos += vel in the first iteration changes the caller's array; later ones change the new one
    check(R.bounce, BOUNCE)


def test_rebinding_on_one_path_only():
    check(R.branch_rebind, BRANCH)


def test_name_bound_to_another_names_array_at_the_end_of_an_iteration():
    check(R.jacobi, JACOBI)
    check(R.verlet, VERLET)
    check(R.ring, RING)


def test_columns_carried_across_iterations_of_a_recursive_filter():
    k = check(R.recursive_rows, ROWS)
    assert any("copy into" in n for n in k.notes)


def test_pointer_swap_of_two_buffers():
    check(R.swap_buffers, SWAP)
    k = translate(profile_calls(R.swap_arguments, SWAP, APP_DIR), APP_DIR)
    assert isinstance(k, Rejected) and "swapping an argument's" in k.reason


def test_views_unpacked_from_a_tuple():
    img = RNG.integers(-100, 100, size=(3, 5, 3)).astype(np.int16)
    check(R.unpack_views, [(img,), (np.full((3, 5, 3), 32767, np.int16),)])


def test_a_copy_that_python_would_tell_apart_is_refused():
    x = floats(5)
    k = translate(profile_calls(R.aliased_write, [(x, 2)], APP_DIR), APP_DIR)
    assert isinstance(k, Rejected)
    assert "prev = x" in k.reason and "writes to x in place" in k.reason


def test_rebinding_kernels_pass_c_simulation(tmp_path):
    csim_pass(
        tmp_path,
        {
            "advect": (R.advect, ADVECT),
            "bounce": (R.bounce, BOUNCE),
            "ring": (R.ring, RING),
            "jacobi": (R.jacobi, JACOBI),
            "rows": (R.recursive_rows, ROWS),
            "branch": (R.branch_rebind, BRANCH),
            "wrap": (R.wrap_steps, WRAP),
            "swap": (R.swap_buffers, SWAP),
        },
    )
