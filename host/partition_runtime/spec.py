"""The kernel spec: what the runtime needs to know about each FPGA task.

`partition plan` writes it into the build tree as host/<app>_kernels.json
(format "partition-host/1"). Top level:

    format            "partition-host/1"
    app               {"file", "sha256"}: the application the plan was made for
    board             {"name", "part", "family", "pl_mhz"}
    clock             {"pl_mhz", "fclk", "tolerance"}: the PL clock the design was built for
                      (FCLK index, relative tolerance before the runtime resets it)
    overlay           {"bit", "hwh"}: default overlay files, relative to the spec's folder
    float_tolerance   {dtype: {"rtol", "atol"}}: how --check compares floats
    chains            (optional) AXI-Stream chains: [{"producer", "out", "consumer", "in"}] —
                      task `producer`'s returned array `out` streams into task `consumer`'s
                      argument `in`, so the runtime runs the producer when the consumer is
                      called (core.StreamedResult)
    kernels           one entry per FPGA task, in task order:

    name              IP / C++ top function name
    task              the Python function (profile task name)
    function          its name in the source (last part of the task name)
    vlnv              "xilinx.com:hls:<name>:1.0" (Vitis HLS export)
    vlnvs             every VLNV the kernel's IP may have: the HLS export, then the built-in
                      RTL packaged as IP (`make bitstream RTL=builtin`)
    source            {"file", "line"}: where the function is defined (app-relative)
    py_params         the Python parameters, in order
    params            kernel arguments in register order: {"name", "kind" (array|scalar),
                      "dtype", "shape", "direction" (in|out|inout), "pytype", "origin" [kind, k]}
                      origin ["arg", position] or ["return", index in the returned tuple];
                      "field" (optional): the scalar is that field of the record argument at
                      that position (see structs), not the argument itself; pytype "list_tuple":
                      a list of equal-length tuples of numbers, read as a 2-D array;
                      "dyn" (optional, arrays): the scalar parameter holding the array's leading
                      length at run time ("shape" is the longest the kernel takes); a scalar of
                      pytype "dim" and origin ["dim", position] is that length, set from the
                      argument at that position, not passed by the caller
    specialised       {python param: {"value", "pytype", "dtype"}}: compiled-in constants
    structs           (optional) {python param: {"kind" (tuple|namedtuple|dataclass), "class",
                      "fields", "constants" {field: {"value", "pytype", "dtype"}}}}: arguments
                      that are records of numbers; a call must pass that kind of record (a tuple
                      of that length, an instance of that class), each field a parameter reads
                      is checked and written like a scalar argument (read by index for tuples
                      and namedtuples, by attribute for dataclasses), each constant must match
    returns           [["param", name] | ["scalar", dtype], ...]: the Python return value, in order
    return_tuple      whether the function returns a tuple
    ret               null, or {"dtype", "pytype"} of the scalar return (ap_return)
    method            (optional) the kernel is a method's (methodcall.py): {"class", "params" (the
                      method's, self first), "attrs" (the attributes py_params starts with),
                      "assigned" (attributes set from the result items after the method's own
                      "returns" items), "returns", "return_tuple"}
                      and "stream": true for an AXI-Stream port (no register, see chains)
    regmap            the register map (partition.regmap.RegisterMap.to_json())
    predicted         the plan's figures per call (seconds): cpu_s, host_s, fpga_s, compute_s,
                      overhead_s, copy_in_s, copy_out_s, and calls (profiled call count)
"""

from __future__ import annotations

import collections
import dataclasses
import json
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SpecError
from .methodcall import MethodCall

FORMAT = "partition-host/1"

SCALAR_PYTYPES = ("int", "float", "bool", "npscalar")
DIM_PYTYPE = "dim"  # a scalar parameter set from an array argument's leading length
# "scalar_*": a returned scalar beyond the first, which the kernel writes to a one-element
# output array (it has one return register); the host gives it back as that Python scalar
BOXED_PYTYPES = ("scalar_int", "scalar_float", "scalar_bool", "scalar_npscalar")
ARRAY_PYTYPES = ("ndarray", "list", "list_np", "list_tuple", *BOXED_PYTYPES)
RECORD_KINDS = ("tuple", "namedtuple", "dataclass")
DTYPE_NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
)


def np_dtype(name: str) -> np.dtype:
    if name not in DTYPE_NAMES:
        raise SpecError(f"unsupported dtype {name!r}")
    return np.dtype(np.bool_) if name == "bool" else np.dtype(name)


class Register:
    __slots__ = ("bits", "dtype", "kind", "name", "offset", "words")

    def __init__(self, d: dict[str, Any]):
        self.name = str(d["name"])
        self.offset = int(d["offset"])
        self.bits = int(d["bits"])
        self.kind = str(d["kind"])
        self.dtype = str(d["dtype"])
        self.words = int(d.get("words", max(1, (self.bits + 31) // 32)))


class RegisterMap:
    def __init__(self, d: dict[str, Any]):
        control = d["control"]
        self.ctrl = int(control["CTRL"])
        self.gie = int(control["GIE"])
        self.ier = int(control["IER"])
        self.isr = int(control["ISR"])
        self.size = int(d["size"])
        self.registers = [Register(r) for r in d["registers"]]
        self._by_name = {r.name: r for r in self.registers}

    def by_name(self, name: str) -> Register:
        return self._by_name[name]

    def get(self, name: str) -> Register | None:
        return self._by_name.get(name)


class Param:
    __slots__ = (
        "direction",
        "dtype",
        "dyn",
        "dyn_offset",
        "field",
        "kind",
        "name",
        "np",
        "origin",
        "position",
        "pytype",
        "shape",
        "stream",
    )

    def __init__(self, d: dict[str, Any]):
        self.name = str(d["name"])
        self.kind = str(d["kind"])
        self.dtype = str(d["dtype"])
        self.np = np_dtype(self.dtype)
        self.shape = tuple(int(x) for x in d.get("shape", ()))
        self.direction = str(d.get("direction", "in"))
        self.pytype = str(d.get("pytype", "ndarray" if self.kind == "array" else "int"))
        origin = d.get("origin", ["arg", 0])
        self.origin = str(origin[0])
        self.position = int(origin[1])
        self.stream = bool(d.get("stream", False))
        field = d.get("field")
        self.field = None if field is None else str(field)
        self.dyn = str(d.get("dyn", ""))
        self.dyn_offset = int(d.get("dyn_offset", 0))

    @property
    def nbytes(self) -> int:
        n = self.np.itemsize
        for s in self.shape:
            n *= s
        return n


class StructSpec:
    """A record argument: its kind, class name, fields, and the fields compiled in."""

    __slots__ = ("constants", "fields", "kind", "pyclass")

    def __init__(self, d: dict[str, Any]):
        self.kind = str(d["kind"])
        self.pyclass = str(d.get("class", "tuple"))
        self.fields = [str(f) for f in d["fields"]]
        self.constants = {str(k): dict(v) for k, v in d.get("constants", {}).items()}

    def reader(self, field: str) -> Callable[[Any], Any]:
        """record -> the value of `field` (by index for tuples and namedtuples, else by attribute)."""
        if self.kind == "dataclass":
            return operator.attrgetter(field)
        return operator.itemgetter(self.fields.index(field))

    def build(self, values: dict[str, Any]) -> Any:
        """A record of this kind holding `values` (missing fields None): for test vectors and
        models; a namedtuple or dataclass is an instance of a class of the same name and fields."""
        items = [values.get(f) for f in self.fields]
        if self.kind == "tuple":
            return tuple(items)
        if self.kind == "namedtuple":
            return collections.namedtuple(self.pyclass, self.fields, rename=True)(*items)
        return dataclasses.make_dataclass(self.pyclass, self.fields)(*items)


class KernelSpec:
    """One FPGA task as the runtime sees it."""

    def __init__(self, d: dict[str, Any], where: str):
        try:
            self.name = str(d["name"])
            self.task = str(d["task"])
            self.function = str(d.get("function", self.task.rsplit(".", 1)[-1]))
            self.vlnv = str(d["vlnv"])
            self.vlnvs = [str(v) for v in d.get("vlnvs", [self.vlnv])]
            src = d.get("source", {})
            self.source_file = str(src.get("file", ""))
            self.source_line = int(src.get("line", 0))
            self.py_params = [str(p) for p in d["py_params"]]
            self.params = [Param(p) for p in d["params"]]
            self.specialised = {str(k): dict(v) for k, v in d.get("specialised", {}).items()}
            self.structs = {str(k): StructSpec(v) for k, v in d.get("structs", {}).items()}
            self.returns = [(str(a), str(b)) for a, b in d.get("returns", [])]
            self.return_tuple = bool(d.get("return_tuple", False))
            ret = d.get("ret")
            self.ret_dtype = str(ret["dtype"]) if ret else None
            self.ret_pytype = str(ret["pytype"]) if ret else None
            self.regmap = RegisterMap(d["regmap"])
            self.predicted = {str(k): v for k, v in d.get("predicted", {}).items()}
            self.stream_to: tuple[str, str] | None = None  # (consumer task, its parameter)
            self.stream_from: dict[str, str] = {}  # streamed parameter -> producer task
            # a method's kernel: the plain function over its object's attributes (methodcall.py)
            self.method = MethodCall(d["method"]) if d.get("method") else None
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise SpecError(f"{where}: malformed kernel entry ({type(e).__name__}: {e})") from None
        self._check(where)

    def _check(self, where: str) -> None:
        here = f"{where}: kernel {self.name}"
        for p in self.params:
            if p.kind not in ("array", "scalar"):
                raise SpecError(f"{here}: parameter {p.name} has kind {p.kind!r}")
            allowed = ARRAY_PYTYPES if p.kind == "array" else (*SCALAR_PYTYPES, DIM_PYTYPE)
            if p.pytype not in allowed:
                raise SpecError(
                    f"{here}: parameter {p.name} has Python type {p.pytype!r}, not one of {allowed}"
                )
            if p.direction not in ("in", "out", "inout"):
                raise SpecError(f"{here}: parameter {p.name} has direction {p.direction!r}")
            if p.origin == "arg" and not 0 <= p.position < len(self.py_params):
                raise SpecError(f"{here}: parameter {p.name} comes from argument {p.position}, out of range")
            if p.origin not in ("arg", "return", "dim"):
                raise SpecError(f"{here}: parameter {p.name} has origin {p.origin!r}")
            if (p.origin == "dim") != (p.pytype == DIM_PYTYPE) or (
                p.origin == "dim" and not 0 <= p.position < len(self.py_params)
            ):
                raise SpecError(
                    f"{here}: parameter {p.name}: a run-time length needs origin dim and pytype dim"
                )
            if p.dyn and (
                p.kind != "array"
                or p.stream
                or not any(q.name == p.dyn and q.pytype == DIM_PYTYPE for q in self.params)
            ):
                raise SpecError(f"{here}: parameter {p.name}: run-time length {p.dyn!r} is no dim parameter")
            if p.field is not None:
                st = self.structs.get(self.py_params[p.position]) if p.origin == "arg" else None
                if p.kind != "scalar" or st is None or p.field not in st.fields:
                    raise SpecError(f"{here}: parameter {p.name} is field {p.field!r} of no record argument")
            if p.pytype in BOXED_PYTYPES and (p.origin != "return" or p.shape != (1,)):
                raise SpecError(
                    f"{here}: parameter {p.name} boxes a scalar but is not a returned 1-element array"
                )
            if p.pytype == "list_tuple" and p.direction != "in":
                raise SpecError(f"{here}: parameter {p.name} is a list of tuples the kernel writes")
            if p.stream:
                if p.kind != "array" or p.direction not in ("in", "out"):
                    raise SpecError(f"{here}: parameter {p.name} streams but is not an in or out array")
                if self.regmap.get(p.name) is not None:
                    raise SpecError(f"{here}: streamed parameter {p.name} has a register")
            elif self.regmap.get(p.name) is None:
                raise SpecError(f"{here}: parameter {p.name} has no register in the register map")
        covered = {p.position for p in self.params if p.origin == "arg"}
        for name, st in self.structs.items():
            if name not in self.py_params or st.kind not in RECORD_KINDS:
                raise SpecError(f"{here}: record {name} is no Python parameter, or of kind {st.kind!r}")
            for f, entry in st.constants.items():
                if f not in st.fields or entry.get("pytype") not in SCALAR_PYTYPES or "value" not in entry:
                    raise SpecError(
                        f"{here}: record {name}: constant field {f} needs a value and a scalar pytype"
                    )
            covered.add(self.py_params.index(name))
        for pos, name in enumerate(self.py_params):
            if pos not in covered and name not in self.specialised:
                raise SpecError(
                    f"{here}: Python parameter {name} is neither a kernel argument nor specialised"
                )
        for name, entry in self.specialised.items():
            if entry.get("pytype") not in SCALAR_PYTYPES or "value" not in entry:
                raise SpecError(f"{here}: specialised parameter {name} needs a value and a scalar pytype")
            if entry["pytype"] == "npscalar":
                np_dtype(str(entry.get("dtype")))
        for kind, what in self.returns:
            if kind == "param":
                if not any(p.name == what for p in self.params):
                    raise SpecError(f"{here}: returns unknown parameter {what}")
            elif kind == "scalar":
                if self.ret_dtype is None:
                    raise SpecError(f"{here}: returns a scalar but has no ret entry")
            else:
                raise SpecError(f"{here}: unknown return kind {kind!r}")
        if self.ret_dtype is not None:
            np_dtype(self.ret_dtype)
            if self.ret_pytype not in SCALAR_PYTYPES:
                raise SpecError(f"{here}: scalar return has Python type {self.ret_pytype!r}")
            if self.regmap.get("ap_return") is None:
                raise SpecError(f"{here}: scalar return but no ap_return register")

    @property
    def arrays(self) -> list[Param]:
        return [p for p in self.params if p.kind == "array"]

    @property
    def scalars(self) -> list[Param]:
        return [p for p in self.params if p.kind == "scalar"]


class Spec:
    """The whole spec file."""

    def __init__(self, data: dict[str, Any], path: Path | None = None):
        where = str(path) if path is not None else "kernel spec"
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise SpecError(
                f"{where}: format {got!r}, expected {FORMAT!r}; regenerate the build tree with this "
                "version of partition (`partition plan ...`)"
            )
        self.path = path
        self.folder = path.parent if path is not None else Path(".")
        try:
            self.app = dict(data["app"])
            self.board = dict(data["board"])
            clock = data["clock"]
            self.pl_mhz = float(clock["pl_mhz"])
            self.fclk = int(clock.get("fclk", 0))
            self.clock_tolerance = float(clock.get("tolerance", 0.01))
            overlay = data.get("overlay", {})
            self.overlay_bit = str(overlay.get("bit", ""))
            self.overlay_hwh = str(overlay.get("hwh", ""))
            self.float_tolerance = {
                str(k): (float(v["rtol"]), float(v["atol"])) for k, v in data["float_tolerance"].items()
            }
            entries = data["kernels"]
        except (KeyError, TypeError, ValueError) as e:
            raise SpecError(f"{where}: malformed spec ({type(e).__name__}: {e})") from None
        self.kernels = [KernelSpec(k, where) for k in entries]
        self._by_task = {k.task: k for k in self.kernels}
        if len(self._by_task) != len(self.kernels):
            raise SpecError(f"{where}: two kernels for the same task")
        self._chains(data.get("chains", []), where)

    def _chains(self, chains: Any, where: str) -> None:
        """Link the ends of every AXI-Stream chain; every streamed parameter must be in exactly one."""
        if not isinstance(chains, list):
            raise SpecError(f"{where}: chains must be a list")
        for c in chains:
            try:
                prod, cons = self._by_task[str(c["producer"])], self._by_task[str(c["consumer"])]
                out = next(p for p in prod.params if p.name == str(c["out"]))
                inp = next(p for p in cons.params if p.name == str(c["in"]))
            except (KeyError, TypeError, StopIteration):
                raise SpecError(f"{where}: chain {c!r} names an unknown task or parameter") from None
            if not (out.stream and out.direction == "out" and inp.stream and inp.direction == "in"):
                raise SpecError(f"{where}: chain {c!r} must join a streamed out-array to a streamed in-array")
            if prod.stream_to is not None or inp.name in cons.stream_from or prod is cons:
                raise SpecError(f"{where}: chain {c!r}: an end is in another chain already")
            if out.dtype != inp.dtype or out.shape != inp.shape:
                raise SpecError(f"{where}: chain {c!r}: the two arrays differ in dtype or shape")
            prod.stream_to = (cons.task, inp.name)
            cons.stream_from[inp.name] = prod.task
        for k in self.kernels:
            for p in k.params:
                linked = k.stream_to is not None if p.direction == "out" else p.name in k.stream_from
                if p.stream and not linked:
                    raise SpecError(f"{where}: kernel {k.name}: streamed parameter {p.name} is in no chain")

    def kernel(self, task: str) -> KernelSpec:
        try:
            return self._by_task[task]
        except KeyError:
            known = ", ".join(sorted(self._by_task)) or "(none)"
            raise SpecError(f"no FPGA task {task!r} in the spec; its tasks: {known}") from None

    @property
    def tasks(self) -> list[str]:
        return [k.task for k in self.kernels]

    def overlay_path(self) -> Path:
        return self.folder / self.overlay_bit


def load_spec(path: str | Path) -> Spec:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(
            f"{p}: cannot read the kernel spec ({e.strerror}); it is written by `partition plan` "
            "into build/<app>/host/"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise SpecError(f"{p}: not valid JSON ({e}); regenerate it with `partition plan`") from None
    return Spec(data, p)
