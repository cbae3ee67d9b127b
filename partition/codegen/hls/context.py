"""One kernel prepared for the Vitis HLS templates: checked, named, its body printed, as a template context.

`KernelView` takes a kernel IR and a variant's directives, checks the IR
(partition.codegen.hls.analysis), picks fresh names for the local buffers and
labels, prints the body (partition.codegen.hls.loops) and gives the templates
everything they print about parameters, buffers, local arrays, scalars and the
return value. The shared microarchitecture it describes: copy every in/inout
array into a local buffer `<name>_buf`, compute on buffers and registers,
copy out/inout buffers back.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from partition import ir
from partition.codegen.cexpr import ArrayRef, ExprPrinter, check_identifier, ctype, literal
from partition.codegen.hls.analysis import check_kernel, return_dtype, scan_usage, uses_math
from partition.codegen.hls.loops import Names, StatementPrinter
from partition.codegen.hls.pragmas import Pragmas
from partition.codegen.hls.testbench import tolerance
from partition.errors import PartitionError
from partition.estimate.schedule import ram_geometry, stream_beats
from partition.names import printable
from partition.regmap import STATUS, STATUS_DTYPE


class KernelView:
    """The kernel prepared for the templates: names, buffers, statements as dicts."""

    def __init__(self, kernel: ir.Kernel, directives: dict[str, Any] | None = None, bus_bits: int = 32):
        self.k = kernel
        self.bus_bits = bus_bits
        self.pragmas = Pragmas(directives)
        self.pragmas.know(kernel.body)
        src = kernel.source_file
        if src and PurePath(src).is_absolute():
            src = PurePath(src).name
        self.source_file = printable(src)
        self.source = f"{self.source_file}:{kernel.source_line}" if src else "kernel IR"
        self.where = f"{self.source} (kernel {kernel.name})"
        check_kernel(kernel, self.where)
        self.ret_dtype = return_dtype(kernel, self.where)

        names = {kernel.name} | {p.name for p in kernel.params} | {a.name for a in kernel.locals}
        names |= set(kernel.scalars)
        self.names = Names(names)
        self.labels = Names(set())
        for s in ir.walk_stmts(kernel.body):
            if isinstance(s, ir.For) and s.label:
                check_identifier(s.label, f"{self.where}: loop label")
                if s.label in self.labels.taken:
                    raise PartitionError(f"{self.where}: loop label {s.label} is used twice")
                self.labels.taken.add(s.label)

        self.buffers: dict[str, str] = {p.name: self.names.fresh(f"{p.name}_buf") for p in kernel.arrays}
        arrays = {p.name: ArrayRef(self.buffers[p.name], p.shape, p.dtype) for p in kernel.arrays}
        arrays.update({a.name: ArrayRef(a.name, a.shape, a.dtype) for a in kernel.locals})
        scalars = {name: name for name in kernel.scalars}
        scalars.update({p.name: p.name for p in kernel.scalar_params})
        self.printer = ExprPrinter(arrays, scalars, self.where)
        self.usage = scan_usage(kernel, self.where)
        stmts = StatementPrinter(
            kernel,
            self.printer,
            self.names,
            self.labels,
            self.usage,
            self.pragmas,
            self.where,
            self.source_file,
            bus_bits,
        )
        ends_with_return = bool(kernel.body) and isinstance(kernel.body[-1], ir.Return)
        self.body = stmts.block(kernel.body[:-1] if ends_with_return else kernel.body, ())
        params = {p.name for p in kernel.scalar_params}
        read, escaped = self.usage.read, self.usage.escaped
        self.top_scalars = {v for v in read if v not in params and v in escaped} | stmts.declared
        if kernel.status is not None and kernel.status not in kernel.scalars:
            raise PartitionError(f"{self.where}: its status variable {kernel.status} is not declared")

    def context(self) -> dict[str, Any]:
        """The template context of the kernel's files (kernel.h, kernel.cpp, tb.cpp, run_hls.tcl)."""
        k = self.k
        # index of the copy loops: only an array of that name could clash with it
        loop_index = Names({p.name for p in k.arrays} | set(self.buffers.values())).fresh("i")
        params = []
        for p in k.params:
            entry: dict[str, Any] = {
                "name": p.name,
                "kind": p.kind,
                "ctype": ctype(p.dtype),
                "dtype": p.dtype.name,
                "is_float": p.dtype.is_float,
                "direction": p.direction if p.kind == "array" else "in",
                "stream": p.stream,
                "tiled": p.tiled,
            }
            if p.kind == "array":
                # elements per bus word in the buffer's RAM (1 for elements of a word or more)
                per_word = ram_geometry(p.name, p.dtype, p.size, "buffer", self.bus_bits).per_word
                entry.update(
                    buf=self.buffers[p.name],
                    size=p.size,
                    # elements moved: all, or the first rows of a run-time length (`ir.Param.dyn`)
                    count=transfer_count(p),
                    shape=list(p.shape),
                    shape_text=" x ".join(str(d) for d in p.shape),
                    nbytes=p.size * p.dtype.nbytes,
                    index_ctype="int32_t" if p.size < 2**31 else "int64_t",
                    load_label=self.labels.fresh(f"load_{p.name}")
                    if p.direction in ("in", "inout") and not p.tiled
                    else "",
                    store_label=self.labels.fresh(f"store_{p.name}")
                    if p.direction in ("out", "inout") and not p.tiled
                    else "",
                    decl=f"{'const ' if p.direction == 'in' else ''}{ctype(p.dtype)}* {p.name}",
                    beats=stream_beats(p.nbytes),
                    per_word=per_word,
                    reshape=per_word > 1 and p.name not in self.pragmas.partition and not p.tiled,
                    **tolerance(p.dtype),
                )
                if entry["stream"]:
                    entry["decl"] = f"hls::stream<uint64_t>& {p.name}"
            else:
                entry.update(decl=f"{ctype(p.dtype)} {p.name}", nbytes=p.dtype.nbytes, size=1)
            params.append(entry)

        local_arrays = []
        for a in k.locals:
            if a.name not in self.usage.loaded and a.name not in self.usage.stored:
                continue  # never used: nothing to declare
            values = [literal(v, a.dtype) for v in a.init] if a.init is not None else []
            per_line = a.shape[-1] if len(a.shape) >= 2 and a.shape[-1] <= 12 else 8  # rows of a small matrix
            if a.init is None:
                storage = "empty"
            elif a.name not in self.usage.stored:
                storage = "rom"
            elif all(v == 0 for v in a.init):
                storage = "zeros"
            else:
                storage = "init"
            per_word = ram_geometry(a.name, a.dtype, a.size, "buffer", self.bus_bits).per_word
            local_arrays.append(
                {
                    "name": a.name,
                    "ctype": ctype(a.dtype),
                    "size": a.size,
                    "shape_text": " x ".join(str(d) for d in a.shape),
                    "storage": storage,
                    # a tile buffer is packed into bus words as a whole buffer is (its copies' beats)
                    "reshape": per_word if a.tile_of and a.name not in self.pragmas.partition else 0,
                    "tile_of": a.tile_of,
                    "rows": [values[i : i + per_line] for i in range(0, len(values), per_line)],
                }
            )

        scalars = [
            {"ctype": ctype(dt), "name": name, "init": literal(0, dt)}
            for name, dt in k.scalars.items()
            if name in self.top_scalars
        ]
        ret = None
        if self.ret_dtype is not None:
            last = k.body[-1]
            assert isinstance(last, ir.Return) and last.value is not None
            ret = {
                "ctype": ctype(self.ret_dtype),
                "dtype": self.ret_dtype.name,
                "value": self.printer.converted(last.value, self.ret_dtype),
                "is_float": self.ret_dtype.is_float,
                "nbytes": self.ret_dtype.nbytes,
                **tolerance(self.ret_dtype),
            }
        status = None
        if k.status is not None:
            status = {"name": STATUS, "var": k.status, "ctype": ctype(STATUS_DTYPE)}
        decls = [p["decl"] for p in params] + ([f"{status['ctype']}* {STATUS}"] if status else [])
        return {
            "task": k.name,
            "guard": f"PARTITION_{k.name.upper()}_H",
            "status": status,
            "decls": decls,
            "source": self.source,
            "notes": [printable(n) for note in k.notes for n in str(note).splitlines()],
            "uses_math": uses_math(k),
            "params": params,
            "arrays": [p for p in params if p["kind"] == "array"],
            "scalar_params": [p for p in params if p["kind"] == "scalar"],
            "loop_index": loop_index,
            "locals": local_arrays,
            "partitions": self.pragmas.partitions(self.buffers, {x["name"] for x in local_arrays}),
            "scalars": scalars,
            "body": self.body,
            "ret": ret,
            "ret_ctype": ret["ctype"] if ret else "void",
        }


def transfer_count(p: ir.Param) -> str:
    """The C expression of how many elements of array parameter `p` a call loads and stores."""
    if not p.dyn:
        return str(p.size)
    row = p.size // p.shape[0]
    rows = p.dyn if not p.dyn_offset else f"({p.dyn} > {-p.dyn_offset} ? {p.dyn} - {-p.dyn_offset} : 0)"
    return rows if row == 1 else f"(int64_t){rows} * {row}"
