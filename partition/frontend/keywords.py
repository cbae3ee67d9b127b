"""numpy calls with keyword arguments, rewritten to the positional calls the lowering takes.

The array lowering reads a numpy function's arguments by position (`np.clip(a, lo, hi)`);
users write the same calls with keywords (`np.clip(a, a_min=0, a_max=255)`,
`np.convolve(x, w, mode="valid")`). Both mean the same call in numpy, so before lowering the
function body is rewritten: a keyword naming one of a function's positional parameters moves
to its position, and the positions it skips take numpy's default for them (only where the
default is a constant the lowering reads the same way, e.g. None for a missing clip bound).
Keywords the table does not name (`out=`, `dtype=`, ...) stay keywords, for the lowering to
take or refuse by name. The rewrite changes nothing numpy would compute differently: the
result is the same call, spelt positionally.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

_NONE = ast.Constant(None)
_MISSING = object()

# numpy function -> its positional parameters in order, each with the default that may fill a
# skipped position (_MISSING: no default can be written; a keyword after it stays a keyword)
SIGNATURES: dict[str, tuple[tuple[str | tuple[str, ...], object], ...]] = {
    # numpy raises for a_max= without a_min= (a missing positional): no default fills it
    "clip": ((("a",), _MISSING), (("a_min", "min"), _MISSING), (("a_max", "max"), _MISSING)),
    "convolve": ((("a",), _MISSING), (("v",), _MISSING), (("mode",), ast.Constant("full"))),
    "bincount": ((("x",), _MISSING), (("weights",), _NONE), (("minlength",), ast.Constant(0))),
    "tensordot": ((("a",), _MISSING), (("b",), _MISSING), (("axes",), ast.Constant(2))),
    "triu_indices": ((("n",), _MISSING), (("k",), ast.Constant(0)), (("m",), _NONE)),
    "tril_indices": ((("n",), _MISSING), (("k",), ast.Constant(0)), (("m",), _NONE)),
    "insert": ((("arr",), _MISSING), (("obj",), _MISSING), (("values",), _MISSING), (("axis",), _NONE)),
    "array_equal": ((("a1",), _MISSING), (("a2",), _MISSING)),
    "einsum": (),
}
# the same for functions of np.linalg (np.linalg.norm(x, ord=None, axis=1) ...)
LINALG_SIGNATURES: dict[str, tuple[tuple[str | tuple[str, ...], object], ...]] = {
    "norm": ((("x",), _MISSING), (("ord",), _NONE), (("axis",), _NONE)),
    "solve": ((("a",), _MISSING), (("b",), _MISSING)),
    "inv": ((("a",), _MISSING),),
    "cholesky": ((("a",), _MISSING),),
}


def positional_calls(body: list[ast.stmt], numpy_attr: Callable[[ast.expr], str | None]) -> list[ast.stmt]:
    """`body` with the keyword arguments of the numpy calls in SIGNATURES moved to their positions
    (a copy where anything changed; the statements keep their line numbers)."""
    out = []
    for s in body:
        if not any(_signature(n, numpy_attr) for n in ast.walk(s) if isinstance(n, ast.Call)):
            out.append(s)
            continue
        s = copy.deepcopy(s)
        for n in ast.walk(s):
            if isinstance(n, ast.Call):
                sig = _signature(n, numpy_attr)
                if sig:
                    _move(n, sig)
        out.append(s)
    return out


def _signature(node: ast.Call, numpy_attr: Callable[[ast.expr], str | None]) -> tuple | None:
    """The signature of a numpy call that has keywords to move, None otherwise."""
    if not node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    f = node.func
    name = numpy_attr(f)
    sig = SIGNATURES.get(name) if name is not None else None
    if (
        sig is None
        and isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Attribute)
        and f.value.attr == "linalg"
        and numpy_attr(f.value) == "linalg"
    ):
        sig = LINALG_SIGNATURES.get(f.attr)
    if not sig:
        return None
    names = {n for names, _ in sig for n in names}
    return sig if any(k.arg in names for k in node.keywords) else None


def _move(node: ast.Call, sig: tuple) -> None:
    """Move node's keywords that name positional parameters to their positions, in place."""
    given = {k.arg: k for k in node.keywords if k.arg is not None}
    args = list(node.args)
    used: set[str] = set()
    for pos, (names, default) in enumerate(sig):
        if pos < len(args):
            continue
        kw = next((given[n] for n in names if n in given), None)
        later = any(n in given for names2, _ in sig[pos + 1 :] for n in names2)
        if kw is not None:
            args.append(kw.value)
            used.add(kw.arg)  # type: ignore[arg-type]
        elif later and default is not _MISSING:
            args.append(ast.copy_location(copy.copy(default), node))  # type: ignore[arg-type]
        else:
            break
    node.args = args
    node.keywords = [k for k in node.keywords if k.arg not in used]
