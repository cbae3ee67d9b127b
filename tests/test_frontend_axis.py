"""Reductions along an axis (np.sum/mean/max/min/argmax/argmin and their methods, axis
negative or positive, keepdims; var/std with ddof), assignments through boolean masks (`x[x < 0] = 0`,
`x[m] += v`, `x[m] = y[m]`), new axes and `...` in subscripts, scans (np.cumsum, np.cumprod), np.roll, np.pad (constant, edge), np.stack/concatenate/hstack/vstack, logical ufuncs,
outer products (np.outer, np.<ufunc>.outer) and flips
(np.flip, flipud, fliplr; views as in numpy): NumPy's result dtypes, checked by the
reference interpreter against Python on edge values, and through C simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import axis_kernels as A
from frontend_cases import triangular_kernels as T
from frontend_util import check_close, csim_pass, profile_calls
from test_frontend import check

from partition.frontend import Rejected, translate

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(20261205)


def ints(dt, shape):
    info = np.iinfo(dt)
    a = RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
    a.flat[:2] = [info.min, info.max]
    return a


def floats(shape):
    a = RNG.standard_normal(shape) * 10
    a.flat[0] = -0.0
    return a


CASES = {
    "column_means": (A.column_means, lambda: [(floats((5, 3)),) for _ in range(3)]),
    "column_means_int": (A.column_means, lambda: [(ints(np.int16, (4, 6)),) for _ in range(3)]),
    "row_sums_int": (A.row_sums_int, lambda: [(ints(np.int16, (3, 7)),) for _ in range(3)]),
    "row_sums_uint8": (A.row_sums_int, lambda: [(ints(np.uint8, (2, 9)),) for _ in range(3)]),
    "centred": (A.centred, lambda: [(floats((6, 4)),) for _ in range(3)]),
    "channel_max": (A.channel_max, lambda: [(ints(np.uint8, (4, 5, 3)),) for _ in range(3)]),
    "best_class": (A.best_class, lambda: [(floats((5, 4)),) for _ in range(3)]),
    "best_class_ties": (
        A.best_class,
        lambda: [(RNG.integers(0, 3, (6, 5)).astype(np.int32),) for _ in range(3)],
    ),
    "col_min_keep": (A.col_min_keep, lambda: [(ints(np.int8, (4, 3)),) for _ in range(3)]),
    "row_norms": (A.row_norms, lambda: [(floats((4, 6)),) for _ in range(3)]),
    "mean_over_frames": (A.mean_over_frames, lambda: [(ints(np.uint8, (3, 4, 5)),) for _ in range(3)]),
    "vector_axis0": (A.vector_axis0, lambda: [(ints(np.int32, (7,)),) for _ in range(3)]),
    "gemver_update": (
        A.gemver_update,
        lambda: [(floats((4, 5)), floats(4), floats(5), floats(4), floats(5)) for _ in range(3)],
    ),
    "gemver_update_int": (
        A.gemver_update,
        lambda: [tuple(ints(np.int32, s) for s in ((4, 5), 4, 5, 4, 5)) for _ in range(3)],
    ),
    "pairwise_diff": (
        A.pairwise_diff,
        lambda: [(ints(np.int16, 5), ints(np.int8, (2, 3))) for _ in range(3)],
    ),
    "pairwise_max": (A.pairwise_max, lambda: [(floats(3), floats(4)) for _ in range(3)]),
    "reverse_dot": (A.reverse_dot, lambda: [(ints(np.int32, 6), ints(np.int32, 6)) for _ in range(3)]),
    "flip_rows_cols": (A.flip_rows_cols, lambda: [(ints(np.int16, (3, 4)),) for _ in range(3)]),
    "flip_write_through": (A.flip_write_through, lambda: [(ints(np.int16, 5),) for _ in range(3)]),
    "relu_inplace": (A.relu_inplace, lambda: [(floats((3, 4)),) for _ in range(3)]),
    "relu_inplace_int": (A.relu_inplace, lambda: [(ints(np.int8, 9),) for _ in range(3)]),
    "clamp_masked": (A.clamp_masked, lambda: [(ints(np.uint8, (4, 4)), 200) for _ in range(3)]),
    "stddev_guard": (A.stddev_guard, lambda: [(np.abs(floats(6)) / 20, 0.1) for _ in range(3)]),
    "masked_copy": (A.masked_copy, lambda: [(ints(np.int16, 8), ints(np.int16, 8), 0) for _ in range(3)]),
    "floyd_warshall": (
        A.floyd_warshall,
        lambda: [(RNG.integers(1, 50, (5, 5)).astype(np.int32),) for _ in range(3)],
    ),
    "pairwise_sq_dist": (A.pairwise_sq_dist, lambda: [(floats((4, 3)),) for _ in range(3)]),
    "last_channel": (A.last_channel, lambda: [(ints(np.int16, (2, 3, 3)),) for _ in range(3)]),
    "scale_rows": (A.scale_rows, lambda: [(floats(3), floats((3, 4))) for _ in range(3)]),
    "running_total": (A.running_total, lambda: [(ints(np.int16, 9),) for _ in range(3)]),
    "running_total_2d": (A.running_total, lambda: [(ints(np.int8, (3, 4)),) for _ in range(3)]),
    "running_total_float": (A.running_total, lambda: [(floats(7),) for _ in range(3)]),
    "column_cumsum": (A.column_cumsum, lambda: [(ints(np.int32, (3, 4)),) for _ in range(3)]),
    "integral_image": (A.integral_image, lambda: [(ints(np.uint8, (5, 6)),) for _ in range(3)]),
    "circular_diff": (A.circular_diff, lambda: [(ints(np.int16, 7),) for _ in range(3)]),
    "roll_rows": (A.roll_rows, lambda: [(ints(np.int32, (3, 5)),) for _ in range(3)]),
    "in_band": (A.in_band, lambda: [(floats(8), -1.0, 4.0) for _ in range(3)]),
    "either_set": (A.either_set, lambda: [(ints(np.int8, 6), floats(6)) for _ in range(3)]),
    "rgb_to_gray": (A.rgb_to_gray, lambda: [(ints(np.uint8, (3, 4, 3)),) for _ in range(3)]),
    "colour_matrix": (
        A.colour_matrix,
        lambda: [(ints(np.uint8, (2, 5, 3)), floats((3, 3))) for _ in range(3)],
    ),
    "batched": (
        A.batched,
        lambda: [(ints(np.int16, (2, 3, 4)), ints(np.int16, (2, 4, 5))) for _ in range(3)],
    ),
    "three_mm": (
        T.three_mm,
        lambda: [
            (
                np.zeros((3, 4)),
                RNG.standard_normal((3, 5)),
                RNG.standard_normal((5, 4)),
                np.zeros((4, 2)),
                RNG.standard_normal((4, 3)),
                RNG.standard_normal((3, 2)),
                np.zeros((3, 2)),
            )
            for _ in range(3)
        ],
    ),
    "standardise": (A.standardise, lambda: [(floats((6, 3)),) for _ in range(3)]),
    "spread": (A.spread, lambda: [(floats(7),) for _ in range(3)]),
    "spread_int": (A.spread, lambda: [(ints(np.int16, 9),) for _ in range(3)]),
    "alias_writes": (A.alias_writes, lambda: [(ints(np.int16, 6), 3) for _ in range(3)]),
    "alias_of_local": (A.alias_of_local, lambda: [(5,) for _ in range(3)]),
    "rebind_params": (
        A.rebind_params,
        lambda: [(ints(np.int16, 5), floats(5).astype(np.float32)) for _ in range(3)],
    ),
    "astype_keywords": (A.astype_keywords, lambda: [(ints(np.int8, 4),) for _ in range(3)]),
    "padded_max3": (A.padded_max3, lambda: [(floats((4, 5)),) for _ in range(3)]),
    "edge_padded_blur": (A.edge_padded_blur, lambda: [(ints(np.int16, (3, 4, 2)),) for _ in range(3)]),
    "zero_pad_int": (A.zero_pad_int, lambda: [(ints(np.int8, 5),) for _ in range(3)]),
    "alias_returned": (A.alias_returned, lambda: [(ints(np.uint8, (3, 4)), 100) for _ in range(3)]),
    "sample_grid": (
        A.sample_grid,
        lambda: [(-2.0, 1.0, -1.2, 1.2), (0.1, 0.7, 3.0, -3.0), (1.0, 1.0, 0.0, 0.0)],
    ),
    "transposes": (
        A.transposes,
        lambda: [(ints(np.int16, (3, 4, 2)), ints(np.int16, (3, 4))) for _ in range(3)],
    ),
    "hsv_stack": (
        A.hsv_stack,
        lambda: [(ints(np.uint8, (2, 3)), ints(np.uint8, (2, 3)), ints(np.uint8, (2, 3))) for _ in range(3)],
    ),
    "mixed_join": (A.mixed_join, lambda: [(ints(np.int8, 3), ints(np.int16, 4)) for _ in range(3)]),
    "mask_of_other": (
        A.mask_of_other,
        lambda: [(ints(np.int32, (2, 5)), ints(np.int32, (2, 5))) for _ in range(3)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_axis_reduction_matches_python(name):
    fn, make = CASES[name]
    check_close(fn, make())


def test_result_dtypes_are_numpys():
    k = check(A.row_sums_int, [(ints(np.int16, (3, 7)),)])
    assert k.param(k.params[-1].name).dtype.name == "int64"  # np.sum of int16 accumulates in int64
    k = check(A.channel_max, [(ints(np.uint8, (2, 2, 3)),)])
    assert k.params[-1].dtype.name == "uint8" and k.params[-1].shape == (2, 2)


def test_axis_that_is_not_a_constant_is_named():
    def f(m, ax):
        return m.sum(axis=ax)

    fp = profile_calls(f, [(np.ones((3, 3)), 1), (np.ones((3, 3)), 0)], APP_DIR)
    k = translate(fp, APP_DIR)
    assert isinstance(k, Rejected) and "axis" in k.reason


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_axis_reductions_pass_c_simulation(tmp_path):
    names = (
        "column_means",
        "row_sums_int",
        "channel_max",
        "best_class_ties",
        "col_min_keep",
        "mean_over_frames",
        "gemver_update",
        "pairwise_diff",
        "pairwise_max",
        "reverse_dot",
        "flip_rows_cols",
        "flip_write_through",
        "relu_inplace",
        "clamp_masked",
        "masked_copy",
        "floyd_warshall",
        "pairwise_sq_dist",
        "last_channel",
        "running_total_2d",
        "integral_image",
        "roll_rows",
        "either_set",
        "rgb_to_gray",
        "batched",
        "standardise",
        "spread_int",
        "padded_max3",
        "edge_padded_blur",
        "sample_grid",
        "transposes",
        "hsv_stack",
        "mixed_join",
    )
    csim_pass(tmp_path, {name: (CASES[name][0], CASES[name][1]()) for name in names})
