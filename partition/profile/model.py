"""The `Profile` artefact: what running the app told us, as JSON.

Format `partition-profile/1`:

    {
      "format": "partition-profile/1",
      "app": "fir_pipeline.py",            # app file name (never an absolute path)
      "argv": ["--n", "4096"],             # the app's arguments
      "host": {"machine": "x86_64", "system": "Linux", "python": "3.11.7",
               "numpy": "2.4.6", "bench_ns": 145.0, "board": null,
               "bench": {"interp": {"ns": 145.0, "spread": 0.01, "repeats": 7},
                         "numpy_compute": {...}, "numpy_memory": {...}}},
      "wall_s": 0.42,                      # app run time under the profiler
      "plain_wall_s": 0.38,                # same app without the profiler (null if skipped)
      "functions": {"fir": FunctionProfile, ...},
      "edges": [Edge, ...]
    }

`host.bench` holds the profiling host's figures for each class of CPU work
(`partition.profile.bench`: interpreter-bound Python, numpy on cached data, numpy
on data beyond the caches), `host.bench_ns` the interpreter's alone (profiles made
before the classes have only it); boards state theirs, so CPU times scale to the
board, each function's interpreter and compiled-code parts by their own ratio. `host.board` names the board when the profile was made on
it (then no scaling applies).

Values (sample vectors, globals) are encoded by `encode_value`: numpy arrays as
base64 of their little-endian bytes, scalars as JSON numbers, lists/tuples
recursively, namedtuples and dataclass instances as their class name, field
names and field values (they decode to stand-ins of the same name and fields,
`partition.profile.records`). Signatures describe types and observed ranges
(`sig_*` below).

Record values and signatures ("namedtuple", "dataclass") were added to format 1
without changing its name: a reader that does not know them sees an opaque
value and an unknown type, as it saw such arguments before.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from partition.errors import PartitionError
from partition.profile.records import instance_fields, make_instance, make_record, record_kind, record_values
from partition.profile.validate import check_children, check_fields, check_host

FORMAT = "partition-profile/1"
MAIN = "<main>"

# ------------------------------------------------------------------ values


def enc_float(v: float) -> float | str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(v)


def dec_float(v: float | str) -> float:
    return float(v)


def encode_value(v: Any, top: bool = True) -> dict[str, Any]:
    """Encode a Python/numpy value for JSON; unsupported objects become opaque (as do objects
    of the app's classes inside another value: `top` is False there)."""
    if isinstance(v, np.ndarray):
        if not recordable(v.dtype):
            return {"t": "opaque", "pytype": f"ndarray[{v.dtype}]"}
        a = np.ascontiguousarray(v)
        le = a.astype(a.dtype.newbyteorder("<"), copy=False)
        return {
            "t": "ndarray",
            "dtype": "bool" if a.dtype == np.bool_ else a.dtype.name,
            "shape": list(a.shape),
            "data": base64.b64encode(le.tobytes()).decode("ascii"),
        }
    if isinstance(v, (bool, np.bool_)):
        if isinstance(v, np.bool_):
            return {"t": "npscalar", "dtype": "bool", "v": bool(v)}
        return {"t": "bool", "v": v}
    if isinstance(v, np.integer):
        return {"t": "npscalar", "dtype": v.dtype.name, "v": int(v)}
    if isinstance(v, np.floating) and v.dtype.itemsize <= 8:
        return {"t": "npscalar", "dtype": v.dtype.name, "v": enc_float(float(v))}
    if isinstance(v, int):
        return {"t": "int", "v": v}
    if isinstance(v, float):
        return {"t": "float", "v": enc_float(v)}
    if v is None:
        return {"t": "none"}
    if isinstance(v, list):
        return {"t": "list", "items": [encode_value(x, False) for x in v]}
    if type(v) is tuple:
        return {"t": "tuple", "items": [encode_value(x, False) for x in v]}
    desc = record_kind(type(v))
    if desc is not None:
        kind, fields = desc
        return {
            "t": kind,
            "pytype": type(v).__name__,
            "fields": list(fields),
            "items": [encode_value(x, False) for x in record_values(v, kind, fields)],
        }
    if isinstance(v, tuple):
        return {"t": "tuple", "items": [encode_value(x, False) for x in v]}
    attrs = instance_fields(v) if top else None
    if attrs is not None:  # an object of the app's own class (a method's self): its attributes
        return {
            "t": "instance",
            "pytype": type(v).__name__,
            "fields": list(attrs),
            "items": [encode_value(getattr(v, a), False) for a in attrs],
        }
    return {"t": "opaque", "pytype": type(v).__name__}


def decode_value(d: dict[str, Any]) -> Any:
    """Inverse of `encode_value` (opaque values decode to None)."""
    t = d["t"]
    if t == "ndarray":
        dt = np.dtype(d["dtype"]).newbyteorder("<")
        raw = base64.b64decode(d["data"])
        return np.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="), copy=True).reshape(d["shape"])
    if t == "npscalar":
        dt = np.dtype(d["dtype"])
        v = d["v"]
        return dt.type(dec_float(v) if dt.kind == "f" else v)
    if t == "int":
        return int(d["v"])
    if t == "float":
        return dec_float(d["v"])
    if t == "bool":
        return bool(d["v"])
    if t == "none":
        return None
    if t == "list":
        return [decode_value(x) for x in d["items"]]
    if t == "tuple":
        return tuple(decode_value(x) for x in d["items"])
    if t in ("namedtuple", "dataclass"):
        items = [decode_value(x) for x in d["items"]]
        return make_record(t, str(d["pytype"]), tuple(d["fields"]), items)
    if t == "instance":
        items = [decode_value(x) for x in d["items"]]
        return make_instance(str(d["pytype"]), tuple(d["fields"]), items)
    return None


def recordable(dt: np.dtype) -> bool:
    """Whether arrays of `dt` are recorded with their data (`encode_value`); others are opaque."""
    return dt.kind in "biuf" and dt.itemsize <= 8


# the dtype names a recorded array can carry: every numpy type `recordable` admits
_DTYPES = frozenset(np.dtype(c).name for c in np.typecodes["All"] if recordable(np.dtype(c)))
_KINDS = frozenset(
    (
        "ndarray",
        "npscalar",
        "int",
        "float",
        "bool",
        "none",
        "list",
        "tuple",
        "namedtuple",
        "dataclass",
        "instance",
        "opaque",
    )
)


def check_encoded(d: Any, where: str) -> None:
    """That `d` is a value `encode_value` could have written (ValueError naming `where` if not):
    known kinds and dtypes, non-negative shapes, base64 data of exactly the shape's bytes. A
    profile is checked when it is loaded, so a damaged or edited one is refused with its file
    named, not met later as a failure deep inside planning."""
    if not isinstance(d, dict) or d.get("t") not in _KINDS:
        raise ValueError(f"{where}: not an encoded value (kind {d.get('t') if isinstance(d, dict) else d!r})")
    t = d["t"]
    if t in ("ndarray", "npscalar") and d.get("dtype") not in _DTYPES:
        raise ValueError(f"{where}: dtype {d.get('dtype')!r} is not one numpy arrays are recorded in")
    if t == "ndarray":
        shape = d.get("shape")
        if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
            raise ValueError(f"{where}: shape {shape!r} is not a list of non-negative sizes")
        try:
            raw = base64.b64decode(d.get("data", ""), validate=True)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{where}: data is not base64 ({e})") from None
        want = math.prod(shape) * np.dtype(d["dtype"]).itemsize
        if len(raw) != want:
            raise ValueError(
                f"{where}: {len(raw)} bytes of data for shape {shape} of {d['dtype']} ({want} bytes)"
            )
    if t in ("list", "tuple", "namedtuple", "dataclass", "instance"):
        items = d.get("items")
        if not isinstance(items, list):
            raise ValueError(f"{where}: items missing")
        for i, x in enumerate(items):
            check_encoded(x, f"{where}[{i}]")


def value_nbytes(v: Any) -> int:
    """Bytes a value occupies as data (what moving it to the FPGA costs)."""
    if isinstance(v, np.ndarray):
        return int(v.nbytes)
    if isinstance(v, (bool, np.bool_)):
        return 1
    if isinstance(v, (np.integer, np.floating)):
        return int(v.dtype.itemsize)
    if isinstance(v, (int, float)):
        return 8
    if isinstance(v, (list, tuple)):
        return sum(value_nbytes(x) for x in v)
    return 0


# -------------------------------------------------------------- signatures
#
# A signature ("sig") is a dict:
#   {"type": "ndarray", "dtype": "int16", "shape": [1024], "min": -5, "max": 9}
#       "shape" is null and "shapes" lists them when calls disagree;
#       min/max over sampled calls (absent for empty arrays).
#   {"type": "int", "min": 0, "max": 15}      Python int, observed range
#   {"type": "float", "min": -1.0, "max": 2.5}
#   {"type": "bool"}
#   {"type": "npscalar", "dtype": "int16", "min": .., "max": ..}
#   {"type": "list", "elem": sig, "len": 16}   homogeneous list ("len" null, "lens" when varying)
#   {"type": "tuple", "items": [sig, ...]}
#   {"type": "namedtuple", "pytype": "Point", "fields": ["x", "y"], "items": [sig, ...]}
#   {"type": "dataclass", "pytype": "Rect", "fields": ["x", "y", "w", "h"], "items": [sig, ...]}
#                                              one sig per field, in field order
#   {"type": "none"}
#   {"type": "mixed", "types": ["int", "str"]} calls disagree on the type
#   {"type": "object", "pytype": "str"}        anything else


@dataclass
class Sample:
    """One recorded call: inputs before the call, and what it produced.

    `args` are the positional arguments (encoded), `result` the return value,
    `outputs` maps an argument position (as a string) to that argument's value
    after the call, for arguments the call modified in place. `edge` marks
    vectors the profiler synthesised (extreme values), not observed calls.
    """

    args: list[dict[str, Any]]
    result: dict[str, Any]
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    edge: bool = False


@dataclass
class FunctionProfile:
    name: str  # task name: qualified name, module-prefixed outside the app file
    qualname: str
    file: str  # path relative to the app's directory
    line: int  # line of the `def`
    calls: int = 0
    total_s: float = 0.0  # inclusive time, all calls
    self_s: float = 0.0  # exclusive time
    params: list[str] = field(default_factory=list)  # parameter names in order
    arg_sigs: list[dict[str, Any]] = field(default_factory=list)
    return_sig: dict[str, Any] = field(default_factory=lambda: {"type": "none"})
    mutates: list[int] = field(default_factory=list)  # positions of args modified in place
    callers: dict[str, int] = field(default_factory=dict)  # caller task (or <main>) -> calls
    ancestors: list[str] = field(default_factory=list)  # tasks ever on the stack below a call
    samples: list[Sample] = field(default_factory=list)
    local_ranges: dict[str, dict[str, Any]] = field(default_factory=dict)
    globals: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> encoded value
    globals_changed: list[str] = field(default_factory=list)
    kind: str = "function"  # function, method, nested, generator, async, async generator, lambda
    # the part of a call's time spent inside compiled code (numpy's loops, C functions) rather
    # than the interpreter, measured on a replayed sampled call; None when not measured
    native_fraction: float | None = None
    # calls made and inclusive time spent in forked child processes (a process pool's workers),
    # apart from `calls`/`total_s`, the main process's (`partition.profile.children`)
    child_calls: int = 0
    child_s: float = 0.0


@dataclass
class Edge:
    """Data produced by `src` (a task or <main>) and consumed by `dst`."""

    src: str
    dst: str
    bytes: int  # total over all transfers
    count: int  # number of transfers
    what: str = ""  # e.g. "arg x", "return"
    # of `bytes`: the arrays src returned, passed on as the same objects (no view, no in-place
    # argument): an FPGA producer's device buffer goes to an FPGA consumer without a copy
    direct_bytes: int = 0


@dataclass
class Profile:
    app: str
    argv: list[str]
    host: dict[str, Any]
    wall_s: float
    plain_wall_s: float | None
    functions: dict[str, FunctionProfile]
    edges: list[Edge]
    format: str = FORMAT
    stopped_after_s: float | None = None  # --profile-for: the app was stopped after this long
    # child processes the app started: forked, reported (profiled), CPU time of those it waited
    # for, profiled time (`partition.profile.children.gather`); None when it started none
    children: dict[str, Any] | None = None

    @property
    def overhead(self) -> float | None:
        if not self.plain_wall_s:
            return None
        return self.wall_s / self.plain_wall_s

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any], source: str = "profile") -> Profile:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PartitionError(
                f"{source}: not a partition profile (expected format {FORMAT!r}); "
                "make one with `partition profile APP`"
            )
        try:
            check_fields(Profile, data, "profile")
            check_host(data["host"])
            funcs = {}
            for name, f in data["functions"].items():
                if f["name"] != name:
                    raise ValueError(f"profile.functions.{name}: named {f['name']!r}")
                f = dict(f)
                f["samples"] = [Sample(**s) for s in f.get("samples", [])]
                for k, smp in enumerate(f["samples"]):
                    at = f"function {name}, call {k}"
                    for i, a in enumerate(smp.args):
                        check_encoded(a, f"{at}, argument {i}")
                    check_encoded(smp.result, f"{at}, return value")
                    for pos, v in smp.outputs.items():
                        check_encoded(v, f"{at}, argument {pos} after the call")
                for g, v in (f.get("globals") or {}).items():
                    check_encoded(v, f"function {name}, global {g}")
                funcs[name] = FunctionProfile(**f)
            edges = [Edge(**e) for e in data["edges"]]
            return Profile(
                app=data["app"],
                argv=list(data["argv"]),
                host=dict(data["host"]),
                wall_s=float(data["wall_s"]),
                plain_wall_s=data.get("plain_wall_s"),
                functions=funcs,
                edges=edges,
                stopped_after_s=None
                if data.get("stopped_after_s") is None
                else float(data["stopped_after_s"]),
                children=check_children(data.get("children")),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise PartitionError(f"{source}: malformed profile ({e}); re-run `partition profile`") from e


def save_profile(profile: Profile, path: Path) -> None:
    from partition.fsutil import write_text_atomic

    write_text_atomic(path, dump_json(profile.to_json()))


def load_profile(path: Path) -> Profile:
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise PartitionError(f"{path}: cannot read profile ({e.strerror})") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise PartitionError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from e
    return Profile.from_json(data, source=str(path))


def dump_json(data: Any) -> str:
    """Canonical JSON text for artefacts: sorted keys, stable float printing."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
