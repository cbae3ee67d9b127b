"""Frontend: a profiled Python function -> a `Kernel`, or the reason it stays on the CPU.

`translate` finds the function's source (`source`) and lowers it with a
`lowerer.Lowerer`, which is made of parts, one module each: `inputs`
(parameters, globals), `variables` (types across rounds), `statements`,
`loops`, `makers` (new arrays and lists), `indexing`, `expressions`, `calls`
(builtins, numpy scalar functions), `inlining` (calls to app functions) and
`kernel` (the assembled Kernel). Whole-array numpy code is the `arrays`
package's. They share `model` (Reject, TE and the lowering's records),
`types` (Python-level types), `syntax` (operator and numpy-name tables) and
`returns` (early returns folded into one). `chains` says which producer ->
consumer calls may stream into each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from partition import ir
from partition.errors import PartitionError
from partition.frontend import methods
from partition.frontend.chains import Verdict, chain_sites, chainable
from partition.frontend.lowerer import Lowerer
from partition.frontend.model import Reject
from partition.frontend.source import load_function
from partition.names import c_name
from partition.profile.model import FunctionProfile

__all__ = ["Rejected", "Verdict", "chain_sites", "chainable", "kernel_name", "translate"]


@dataclass(frozen=True)
class Rejected:
    """Why a function cannot become a kernel: file:line and the construct."""

    task: str
    file: str
    line: int
    construct: str

    @property
    def reason(self) -> str:
        return f"{self.file}:{self.line}: {self.construct}"


# kinds of function that stay on the CPU, and why
_NOT_KERNELS = {
    "nested": "nested function (kernels are module-level functions)",
    "generator": "generator function (a kernel returns its results at once; it cannot yield them one by one)",
    "async": "async def (a kernel is a plain function; call a plain function from the coroutine)",
    "async generator": "async generator (a kernel is a plain function)",
    "lambda": "lambda (write it as a def to make a kernel of it)",
}


def kernel_name(task: str) -> str:
    """The C/Verilog name of a task's kernel (task names may contain dots)."""
    return c_name(task.replace(".", "_"))


def translate(
    fp: FunctionProfile,
    app_dir: Path,
    functions: dict[str, FunctionProfile] | None = None,
    observed_ints: bool = False,
) -> ir.Kernel | Rejected:
    """Lower one profiled function, or say precisely why it cannot be.

    `functions` (the whole profile) lets calls to other app functions be inlined.
    `observed_ints`: Python int arguments travel in the narrowest type covering the
    profiled values (the host checks every call) instead of int64.
    """
    if fp.kind in _NOT_KERNELS:
        return Rejected(fp.name, fp.file, fp.line, _NOT_KERNELS[fp.kind])
    if fp.child_calls:
        return Rejected(
            fp.name, fp.file, fp.line,
            f"runs in child processes ({fp.child_calls:,} call(s) in a process pool's workers or a forked "
            "child): the FPGA is driven from the main process only; call it there to make a kernel of it",
        )  # fmt: skip
    if fp.calls == 0:
        return Rejected(fp.name, fp.file, fp.line, "never called in the profiled run")
    try:
        src = load_function(app_dir, fp.file, fp.line, fp.qualname)
    except PartitionError as e:
        return Rejected(fp.name, fp.file, fp.line, e.message)
    try:
        if fp.kind == "method" and not methods.is_static(src.node):
            plain_fp, plain_src, shape = methods.as_function(fp, src)
            lw = Lowerer(plain_fp, plain_src, kernel_name(fp.name), functions, app_dir, observed_ints)
            lw.state_params = {shape.names[a] for a in shape.assigned}
            return methods.to_method(lw.lower(), shape, fp.params)
        return Lowerer(fp, src, kernel_name(fp.name), functions, app_dir, observed_ints).lower()
    except Reject as r:  # (line 0: a refusal deep inside, placed at the function)
        return Rejected(fp.name, r.file or fp.file, r.line or fp.line, r.construct)
