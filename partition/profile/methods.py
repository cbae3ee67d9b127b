"""A recorded call of a method, seen as a call of the plain function lowered in its place.

A method's kernel (`partition.frontend.methods`) is that of a plain function whose leading
arguments are the attributes of `self` it uses, and whose result is the method's own result
followed by the attributes it assigns. A recorded call holds `self` before the call (an
"instance" value: its attributes) and, when the call changed it, after; this module turns
such a call into the plain function's call, so that test vectors and the frontend's typing
use the same arguments and results.
"""

from __future__ import annotations

from typing import Any

from partition.profile.model import Sample


def plain_sample(s: Sample, method: dict[str, Any], fields: list[str] | None = None) -> Sample | None:
    """The plain function's call for recorded method call `s` (`method`: `ir.Kernel.method`),
    or None when `self` was not recorded with its attributes (or, with `fields`, with others)."""
    own_self = s.args[0] if s.args else {}
    if own_self.get("t") != "instance" or (fields is not None and list(own_self["fields"]) != fields):
        return None
    names = list(own_self["fields"])
    if any(a not in names for a in method["attrs"]):
        return None
    at = [names.index(a) for a in method["attrs"]]
    before = own_self["items"]
    after_enc = s.outputs.get("0")
    after = after_enc["items"] if after_enc and after_enc.get("t") == "instance" else before
    args = [before[k] for k in at] + list(s.args[1:])
    outputs = {str(j): after[k] for j, k in enumerate(at) if after[k] != before[k]}
    outputs.update({str(int(p) - 1 + len(at)): v for p, v in s.outputs.items() if p != "0"})
    result = s.result
    if method["assigned"]:
        own: list[dict[str, Any]] = []
        if method["returns"]:
            tup = method["return_tuple"] and s.result.get("t") == "tuple"
            own = list(s.result["items"]) if tup else [s.result]
        state = [after[names.index(a)] for a in method["assigned"]]
        result = {"t": "tuple", "items": [*own, *state]}
    return Sample(args=args, result=result, outputs=outputs, edge=s.edge)
