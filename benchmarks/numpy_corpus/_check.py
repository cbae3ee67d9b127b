"""Self-check of the NumPy corpus: every INPUTS case of a module against its reference.

    python -m benchmarks.numpy_corpus._check            # every module
    python -m benchmarks.numpy_corpus.polybench         # one module (its _selfcheck)

Each module keeps a private `_REFERENCES` dict: case name -> function of (a deep copy of) the
case's arguments returning `(expected_return, {argument_index: expected_final_value})`, where an
expected final value that is a dict names attributes of that argument (an instance's state), and
an expected value that is a function is a property the result must have (a convergence bound).
"""

import copy
import importlib
import inspect
from pathlib import Path

import numpy as np

MODULES = (
    "polybench",
    "polybench_int",
    "polybench_solvers",
    "polybench_stencils",
    "polybench_medley",
    "numpy_programs",
    "numpy_image",
    "numpy_ml",
    "numpy_stats",
    "board_code",
    "board_classes",
    "board_vision",
)
SEED = 2024
# an on-chip test vector: no array argument larger than this many elements
MAX_ELEMENTS = 5000


def resolve(name: str, namespace: dict):
    """The function a case names: `f` or `ClassName.method`."""
    if "." in name:
        cls, method = name.split(".")
        return getattr(namespace[cls], method)
    return namespace[name]


def close(got, want, what: str, rtol: float = 1e-9, atol: float = 1e-9) -> None:
    if want is None:
        assert got is None, f"{what}: expected None, got {type(got).__name__}"
        return
    if callable(want):
        assert want(got), f"{what}: the reference's property does not hold"
        return
    if isinstance(want, dict):
        for attr, value in want.items():
            close(getattr(got, attr), value, f"{what}.{attr}", rtol, atol)
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: expected a {len(want)}-tuple"
        for k, (g, w) in enumerate(zip(got, want)):
            close(g, w, f"{what}[{k}]", rtol, atol)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    if w.dtype.kind in "fc" or g.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(g, w, err_msg=what)
        assert g.dtype.kind == w.dtype.kind or w.dtype == object, f"{what}: dtype {g.dtype} vs {w.dtype}"


def same_signature(name: str, cases: list[tuple]) -> None:
    """Every call of a case passes the same kind of argument at each position: arrays of one
    shape and dtype (an app calls a kernel with one shape), scalars of one kind (bool, integer,
    float, complex); an instance's attributes likewise."""
    first = cases[0]
    for args in cases[1:]:
        assert len(args) == len(first), (name, "argument count")
        for i, (a, b) in enumerate(zip(first, args)):
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), (name, i)
                assert (a.shape, a.dtype) == (b.shape, b.dtype), (name, i, a.shape, a.dtype, b.shape, b.dtype)
            elif isinstance(a, (bool, int, float, complex, np.generic)):
                kinds = np.asarray(a).dtype.kind, np.asarray(b).dtype.kind
                assert kinds[0] == kinds[1], (name, i, type(a), type(b))
            elif hasattr(a, "__dict__"):
                same_signature(f"{name} self", [tuple(vars(a).values()), tuple(vars(b).values())])


def run_cases(ns: dict, rtol: float = 1e-9, atol: float = 1e-9) -> tuple[int, int]:
    """Runs every case of a module namespace against its reference; returns (in, out) counts."""
    inputs, scope, refs = ns["INPUTS"], ns["SCOPE"], ns["_REFERENCES"]
    assert set(inputs) == set(scope) == set(refs), (
        set(inputs) ^ set(scope),
        set(inputs) ^ set(refs),
    )
    for name, label in scope.items():
        assert label == "in" or label.startswith("out: "), (name, label)
    sizes = ns["REALISTIC_SIZES"]
    for name, args in sizes.items():
        assert name in inputs, name
        params = inspect.signature(resolve(name, ns)).parameters
        for arg in args:
            assert arg.split(".")[0] in params, (name, arg)
    calls = 0
    for k, (name, make) in enumerate(sorted(inputs.items())):
        cases = make(np.random.default_rng(SEED + k))
        assert len(cases) >= 3, name
        same_signature(name, cases)
        fn = resolve(name, ns)
        for c, args in enumerate(cases):
            assert isinstance(args, tuple), name
            for a in args:
                if isinstance(a, np.ndarray):
                    assert a.size <= MAX_ELEMENTS, (name, a.shape)
            want_ret, want_args = refs[name](*copy.deepcopy(args))
            got_args = copy.deepcopy(args)
            got_ret = fn(*got_args)
            what = f"{Path(ns['__file__']).stem}.{name} call {c}"
            close(got_ret, want_ret, f"{what} return", rtol, atol)
            for i, value in want_args.items():
                close(got_args[i], value, f"{what} argument {i}", rtol, atol)
            calls += 1
    n_in = sum(1 for v in scope.values() if v == "in")
    n_out = len(scope) - n_in
    print(f"{Path(ns['__file__']).stem}: {len(inputs)} cases ({n_in} in, {n_out} out), {calls} calls agree")
    return n_in, n_out


def main() -> None:
    total_in = total_out = 0
    for m in MODULES:
        module = importlib.import_module(f"benchmarks.numpy_corpus.{m}")
        n_in, n_out = module._selfcheck()
        total_in += n_in
        total_out += n_out
    print(f"all: {total_in + total_out} cases, {total_in} in, {total_out} out")


if __name__ == "__main__":
    main()
