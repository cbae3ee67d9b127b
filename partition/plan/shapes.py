"""`--max-shape F:ARG=DIMS`: the longest array a kernel must take, beyond what the profile saw.

A profile shows the lengths one run passed; a user who knows that frames of up to 1080
rows arrive says so, and the kernel of F is built for that many rows of ARG, its leading
length a run-time register (`ir.Param.dyn`). Only the leading length may be given as
larger: the other lengths must be those profiled. The profile's signature of the
argument is widened in memory (the saved profile.json keeps what was observed).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from partition.errors import PartitionError
from partition.profile.model import Profile

_SPEC = re.compile(r"^(?P<fn>[^:=\s]+):(?P<arg>[A-Za-z_]\w*)=(?P<dims>\d+(?:[x,]\d+)*)$")


@dataclass(frozen=True)
class MaxShape:
    function: str
    arg: str
    dims: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.function}:{self.arg}={'x'.join(str(d) for d in self.dims)}"


def parse_max_shape(text: str) -> MaxShape:
    m = _SPEC.match(text.strip())
    if m is None:
        raise PartitionError(
            f"--max-shape {text!r}: write FUNCTION:ARG=DIMS, e.g. blur:img=1080x1920 or prefix_sum:xs=1048576"
        )
    dims = tuple(int(d) for d in re.split(r"[x,]", m["dims"]))
    if min(dims) < 1:
        raise PartitionError(f"--max-shape {text!r}: every length must be at least 1")
    return MaxShape(m["fn"], m["arg"], dims)


def with_max_shapes(profile: Profile, specs: list[MaxShape]) -> Profile:
    """`profile` with each named argument's signature widened to its --max-shape (a copy;
    `profile` is left as it is). Errors name the option and say what to give instead."""
    if not specs:
        return profile
    out = copy.copy(profile)
    out.functions = dict(profile.functions)
    for spec in specs:
        fp = out.functions.get(spec.function)
        if fp is None:
            known = ", ".join(sorted(profile.functions)) or "(none)"
            raise PartitionError(
                f"--max-shape {spec}: no function {spec.function} in the profile; known: {known}"
            )
        if spec.arg not in fp.params[: len(fp.arg_sigs)]:
            raise PartitionError(
                f"--max-shape {spec}: {spec.function} has no profiled argument {spec.arg} "
                f"(its arguments: {', '.join(fp.params) or 'none'})"
            )
        pos = fp.params.index(spec.arg)
        sig = fp.arg_sigs[pos]
        if sig.get("type") != "ndarray":
            raise PartitionError(
                f"--max-shape {spec}: argument {spec.arg} of {spec.function} is a {sig.get('type')}, not a numpy array"
            )
        seen = [tuple(int(d) for d in s) for s in (sig.get("shapes") or [sig["shape"]])]
        if any(len(s) != len(spec.dims) or s[1:] != spec.dims[1:] for s in seen):
            raise PartitionError(
                f"--max-shape {spec}: {spec.arg} was called with shapes {sorted(set(seen))}; only the first "
                "length may be larger than profiled (give the others as profiled)"
            )
        if spec.dims[0] < max(s[0] for s in seen):
            raise PartitionError(
                f"--max-shape {spec}: {spec.arg} was called with {max(s[0] for s in seen)} rows, more than {spec.dims[0]}"
            )
        fp = copy.copy(fp)
        fp.arg_sigs = list(fp.arg_sigs)
        shapes = sorted({*seen, spec.dims})
        fp.arg_sigs[pos] = {**sig, "shape": None, "shapes": [list(s) for s in shapes]}
        if len(shapes) == 1:  # the bound is the profiled shape itself: one shape, as before
            fp.arg_sigs[pos] = dict(sig)
        out.functions[spec.function] = fp
    return out
