"""Finding a profiled function's source, and the names its module gives numpy."""

from __future__ import annotations

import ast
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from partition.errors import PartitionError


@dataclass
class FunctionSource:
    node: ast.FunctionDef
    module: ast.Module
    path: Path
    rel: str  # path as shown to the user (relative to the app folder)
    numpy_aliases: set[str]  # names bound to the numpy module
    numpy_names: dict[str, str]  # names imported from numpy -> numpy attribute
    modules: dict[str, str] = field(
        default_factory=dict
    )  # names bound to other modules (math, sys) -> module


def read_source(path: Path) -> str:
    """A Python file's text as Python reads it: the encoding its PEP 263 coding line (or BOM)
    declares, UTF-8 otherwise. Raises OSError, and SyntaxError for an undecodable file."""
    try:
        with tokenize.open(path) as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise SyntaxError(f"not valid in the file's declared encoding ({e.reason})") from None


def load_function(app_dir: Path, rel_file: str, line: int, qualname: str) -> FunctionSource:
    path = Path(app_dir) / rel_file
    try:
        text = read_source(path)
    except OSError as e:
        raise PartitionError(
            f"{rel_file}: cannot read the source of {qualname} ({e.strerror}); "
            "run partition from the folder the profile was made in"
        ) from e
    except SyntaxError as e:
        raise PartitionError(f"{rel_file}: cannot read the source of {qualname}: {e.msg}") from e
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
    return FunctionSource(node, module, path, rel_file, aliases, names, module_imports(module))


def _find(module: ast.Module, line: int, qualname: str) -> ast.FunctionDef | None:
    want = qualname.split(".")[-1]
    for n in ast.walk(module):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == want:
            lines = {n.lineno, *(d.lineno for d in n.decorator_list)}
            if line in lines:
                return n if isinstance(n, ast.FunctionDef) else None
    return None


def module_imports(module: ast.Module) -> dict[str, str]:
    """Names the module binds to the standard modules whose constants kernels use (`import math as m`)."""
    out: dict[str, str] = {}
    for n in ast.walk(module):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name in ("math", "sys"):
                    out[a.asname or a.name] = a.name
    return out


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
