"""Finding a profiled function's source, and the names its module gives numpy."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from partition.codegen.cexpr import CPP_RESERVED
from partition.errors import PartitionError

# Verilog/SystemVerilog and Vitis HLS reserve these, and C++ its keywords and the names the
# generated files use (codegen.cexpr.CPP_RESERVED); a Python name that collides gets the
# suffix "_r" (as Vitis HLS does for `in` and `out`).
RESERVED = CPP_RESERVED | frozenset(
    """
    always assign automatic begin buf bufif0 bufif1 cell cmos config
    deassign defparam design disable edge end endcase endconfig endfunction endgenerate endmodule
    endprimitive endspecify endtable endtask event force forever fork function generate genvar
    highz0 highz1 ifnone incdir include initial inout input instance integer join large liblist
    library localparam macromodule medium module nand negedge nmos nor noshowcancelled notif0 notif1
    output parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent
    pulsestyle_ondetect rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1
    scalared showcancelled small specify specparam strong0 strong1 supply0 supply1 table task time
    tran tranif0 tranif1 tri tri0 tri1 triand trior trireg use uwire vectored wait wand weak0 weak1
    wire wor xnor logic bit byte shortint longint string type var ref interface modport package
    program in out ap_clk ap_rst_n ap_start ap_done ap_idle ap_ready ap_return interrupt
    """.split()  # noqa: SIM905
)


def c_name(name: str) -> str:
    """A Python identifier as a name safe in C++, Verilog and Vitis HLS."""
    safe = name if name.isascii() else "".join(c if c.isascii() and c.isalnum() else "_" for c in name)
    reserved = safe in RESERVED or safe.lower() in RESERVED
    if safe.startswith("_") or reserved or safe.startswith(("ap_", "m_axi", "s_axi")):
        safe = f"{safe.lstrip('_') or 'v'}_r"
    return safe


@dataclass
class FunctionSource:
    node: ast.FunctionDef
    module: ast.Module
    path: Path
    rel: str  # path as shown to the user (relative to the app folder)
    numpy_aliases: set[str]  # names bound to the numpy module
    numpy_names: dict[str, str]  # names imported from numpy -> numpy attribute


def load_function(app_dir: Path, rel_file: str, line: int, qualname: str) -> FunctionSource:
    path = Path(app_dir) / rel_file
    try:
        text = path.read_text()
    except OSError as e:
        raise PartitionError(
            f"{rel_file}: cannot read the source of {qualname} ({e.strerror}); "
            "run partition from the folder the profile was made in"
        ) from e
    try:
        module = ast.parse(text, filename=rel_file)
    except SyntaxError as e:
        raise PartitionError(f"{rel_file}:{e.lineno}: syntax error: {e.msg}") from e
    node = _find(module, line, qualname)
    if node is None:
        raise PartitionError(
            f"{rel_file}:{line}: no function {qualname} here; the source changed since the profile "
            "was made — profile again"
        )
    aliases, names = _numpy_imports(module)
    return FunctionSource(node, module, path, rel_file, aliases, names)


def _find(module: ast.Module, line: int, qualname: str) -> ast.FunctionDef | None:
    want = qualname.split(".")[-1]
    for n in ast.walk(module):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == want:
            lines = {n.lineno, *(d.lineno for d in n.decorator_list)}
            if line in lines:
                return n if isinstance(n, ast.FunctionDef) else None
    return None


def _numpy_imports(module: ast.Module) -> tuple[set[str], dict[str, str]]:
    aliases: set[str] = set()
    names: dict[str, str] = {}
    for n in ast.walk(module):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name == "numpy":
                    aliases.add(a.asname or "numpy")
        elif isinstance(n, ast.ImportFrom) and n.module == "numpy" and n.level == 0:
            for a in n.names:
                names[a.asname or a.name] = a.name
    return aliases, names
