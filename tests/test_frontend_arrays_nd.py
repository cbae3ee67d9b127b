"""Frontend: arrays of any rank, run-time windows, literal arrays, np.arange, gathers,
flattening and sorting compute exactly what numpy computes.

The IR interpreter runs each kernel on its profiled calls and on extra random and edge
inputs (MIN/MAX, NaN, every dtype used) and must reproduce Python; the integer kernels
then go through C simulation of the HLS C++ and RTL simulation of the built-in backend
(partition.fuzz's batch drivers), the float ones through C simulation.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest
import test_frontend_numpy as T
from frontend_cases import arrays_nd as A
from test_frontend_numpy import floats, ints

from partition.boards import load_board
from partition.fuzz import Case, rtlsim, run

RNG = np.random.default_rng(20250318)


def check(fn, calls, extra=()):
    """test_frontend_numpy.check, with lists a function returns compared as the arrays they hold."""
    close = T.close

    def close_lists(got, want, tol):
        if isinstance(want, list):
            return isinstance(got, np.ndarray) and np.array_equal(got, np.array(want))
        if isinstance(want, tuple) and isinstance(got, tuple) and len(got) == len(want):
            return all(close_lists(g, w, tol) for g, w in zip(got, want))
        return close(got, want, tol)

    T.close = close_lists
    try:
        return T.check(fn, calls, extra)
    finally:
        T.close = close


def u8(shape):
    return ints("uint8", shape)


# ------------------------------------------------------------------ rank > 2


def test_rgb_image_elements():
    k = check(A.rgb_luma, [(u8((5, 4, 3)),), (u8((5, 4, 3)),)], extra=[(np.full((5, 4, 3), 255, np.uint8),)])
    assert k.param("rgb").shape == (5, 4, 3)


def test_rgb_whole_array_broadcasting_and_reductions():
    calls = [(u8((4, 6, 3)), 3), (u8((4, 6, 3)), -2)]
    check(
        A.rgb_whole, calls, extra=[(np.zeros((4, 6, 3), np.uint8), 5), (np.full((4, 6, 3), 255, np.uint8), 7)]
    )


def test_rgb_slice_assignment_writes_the_argument():
    k = check(A.rgb_invert_in_place, [(u8((3, 4, 3)),)], extra=[(u8((3, 4, 3)),)])
    assert k.param("rgb").direction == "inout"


def test_four_index_weights():
    x = ints("int8", (2, 9))
    w = ints("int8", (3, 2, 4))
    check(A.conv_weights, [(x, w)], extra=[(ints("int8", (2, 9)), ints("int8", (3, 2, 4)))])


def test_global_3d_array_is_a_rom():
    k = check(A.kirsch_rom, [(u8((6, 7)),)], extra=[(np.full((6, 7), 255, np.uint8),)])
    assert any(loc.shape == (2, 3, 3) and loc.init is not None for loc in k.locals)


def test_lists_of_lists_of_lists():
    cube = [[[1, -2], [3, 4]], [[5, 6], [-7, 8]]]
    check(A.nested_list_sum, [(cube,)], extra=[([[[9, 9], [9, 9]], [[-9, 0], [1, 2]]],)])
    k = check(A.nested_list_update, [([[[1, 2], [3, 4]], [[5, 6], [7, 8]]],)])
    assert k.param("cube").shape == (2, 2, 2)


# ------------------------------------------------------------------ windows


def test_box_windows_sum_and_min():
    check(A.box_windows, [(u8((7, 6)), 3), (u8((7, 6)), 3)], extra=[(np.full((7, 6), 255, np.uint8), 3)])


def test_window_times_a_same_shape_kernel():
    check(A.stencil_product, [(ints("int16", (6, 5)),)], extra=[(ints("int16", (6, 5)),)])


def test_block_windows_from_multiples():
    check(A.blocks, [(ints("int32", 12), 4)], extra=[(ints("int32", 12), 4)])


def test_window_reversed_and_arange():
    check(A.taps_window, [(ints("int16", 10), 3)], extra=[(ints("int16", 10), 3)])


def test_window_is_a_view():
    k = check(A.window_write_through, [(ints("int8", 7),)], extra=[(ints("int8", 7),)])
    assert k.param("a").direction == "inout"


@pytest.mark.parametrize(
    ("fn", "args", "words"),
    [
        (A.border_window, (np.arange(6, dtype=np.int32),), "may start at -1"),
        (A.past_end_window, (np.arange(6, dtype=np.int32),), "may reach past the end"),
    ],
)
def test_windows_that_numpy_clips_are_rejected(fn, args, words):
    assert words in rejected_here(fn, [args]).reason


# ------------------------------------------------------------------ literals, arange, makers


def test_literal_arrays_and_arange():
    check(A.literals, [(ints("int16", 4),)], extra=[(ints("int16", 4),)])


def test_shapes_from_expressions():
    check(A.shaped_makers, [(ints("int8", (3, 4)), 5), (ints("int8", (3, 4)), 5)])


# ------------------------------------------------------------------ gathers


def test_lut_gather_uint8():
    lut = ints("int16", 256)
    check(A.lut_gather, [(u8((4, 5)), lut)], extra=[(np.full((4, 5), 255, np.uint8), ints("int16", 256))])


def test_lut_gather_negative_indices_wrap():
    idx = np.array([-128, -1, 0, 5, 127, -7], np.int8)
    check(A.lut_signed, [(idx, ints("int32", 200))], extra=[(ints("int8", 6), ints("int32", 200))])


def test_lut_gather_with_a_wider_index_dtype_checks_each_index():
    """numpy raises IndexError for an index outside [-256, 256): the kernel's status sends
    such a call to the CPU; every other call gives numpy's elements."""
    from test_frontend_masks import kernel_of, run

    table = ints("int32", 256)
    k = kernel_of(A.lut_too_wide, [(np.array([0, 3], np.int16), table)])
    for idx in ([0, 255], [-1, -256]):
        got, status = run(k, (np.array(idx, np.int16), table))
        assert status == 0 and np.array_equal(got, table[idx])
    for idx in ([256, 0], [1, -257], [32767, -32768]):
        assert run(k, (np.array(idx, np.int16), table))[1] == 1


# ------------------------------------------------------------------ flattening and sorting


def test_loop_over_flatten():
    check(A.histogram_flat, [(u8((4, 6)),)], extra=[(np.full((4, 6), 255, np.uint8),)])


def test_ravel_and_reshape_are_views():
    check(A.ravel_write_through, [(u8((3, 4, 3)), 4), (u8((3, 4, 3)), 4)])


def test_loop_over_flatten_that_writes_the_array_is_rejected():
    assert "iterates over a copy" in rejected_here(A.flatten_and_write, [(ints("int32", (2, 3)),)]).reason


def test_median_filter_sorts_a_window():
    check(A.median3, [(u8((6, 7)),)], extra=[(u8((6, 7)),), (np.zeros((6, 7), np.uint8),)])


def test_sort_floats_nan_last():
    x = floats("float64", 9, nan=True)
    check(
        A.sort_floats,
        [(x,)],
        extra=[(floats("float64", 9),), (np.array([0.0, -0.0, np.inf, -np.inf, 1, np.nan, 2, 3, 4]),)],
    )


def rejected_here(fn, calls):
    from test_frontend_numpy import translated

    from partition.frontend import Rejected

    r, _ = translated(fn, calls)
    assert isinstance(r, Rejected), f"{fn.__name__} was accepted"
    assert r.reason.startswith("frontend_cases/arrays_nd.py:"), r.reason
    return r


# ------------------------------------------------------------------ C and RTL simulation

BACKEND_CASES = {
    "rgb_luma": [(u8((4, 5, 3)),), (u8((4, 5, 3)),)],
    "rgb_invert_in_place": [(u8((3, 4, 3)),)],
    "conv_weights": [(ints("int8", (2, 7)), ints("int8", (2, 2, 3)))],
    "kirsch_rom": [(u8((5, 6)),)],
    "box_windows": [(u8((6, 5)), 3), (u8((6, 5)), 3)],
    "stencil_product": [(ints("int16", (5, 5)),)],
    "blocks": [(ints("int32", 12), 4)],
    "window_write_through": [(ints("int8", 7),)],
    "literals": [(ints("int16", 4),)],
    "lut_gather": [(u8((3, 4)), ints("int16", 256))],
    "lut_signed": [(np.array([-128, -1, 0, 5, 127, -7], np.int8), ints("int32", 200))],
    "histogram_flat": [(u8((3, 5)),)],
    "ravel_write_through": [(u8((2, 3, 3)), 4), (u8((2, 3, 3)), 4)],
    "median3": [(u8((5, 6)),)],
    "sort_floats": [(floats("float64", 9, nan=True),)],
}
SOURCE = Path(inspect.getfile(A)).read_text()


@pytest.fixture(scope="module")
def backends(tmp_path_factory) -> dict[str, run.CaseResult]:
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    work = tmp_path_factory.mktemp("arrays-nd")
    app, csim_dir, rtl_dir = work / "app", work / "csim", work / "rtl"
    app.mkdir()
    csim_dir.mkdir()
    board = load_board("pynq-z2")
    use_rtl = rtlsim.available()
    prepared = []
    for k, (name, calls) in enumerate(BACKEND_CASES.items()):
        case = Case(k, name, SOURCE, calls, False, [])
        prepared.append(run.prepare_case(case, app, csim_dir, rtl_dir if use_rtl else None, board, 2_000_000))
    run.backends(prepared, csim_dir, rtl_dir, keep=False)
    return {p.result.name: p.result for p in prepared}


@pytest.mark.parametrize("name", list(BACKEND_CASES))
def test_csim_and_rtl_agree_with_python(backends, name):
    r = backends[name]
    assert r.status == "accepted", r.reason
    assert r.stages.get("vectors") == "pass", r.details
    assert r.stages.get("csim") == "pass", r.details
    if rtlsim.available():
        assert r.stages.get("rtl") in ("pass", "unsupported"), r.details
        if name not in ("sort_floats", "literals"):  # float kernels: the HLS path only
            assert r.stages.get("rtl") == "pass", r.details
