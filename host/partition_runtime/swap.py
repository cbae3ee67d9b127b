"""Run an unmodified app as __main__ with its FPGA tasks swapped in at definition time.

The app's source is compiled with one extra, innermost decorator on each task's
`def` (found by file and line, and checked by name), `__partition_accelerate__("<task>")`,
which the runner puts in builtins. So the module namespace only ever holds the
accelerated function (`from app import f`, callers, decorators above it all see
it), while line numbers, tracebacks and the rest of the code are untouched and
the app's own globals stay a plain dict (full-speed lookups). Tasks defined in
other files of the app are rewritten the same way by an import hook.
"""

from __future__ import annotations

import ast
import builtins
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ACCEL_NAME = "__partition_accelerate__"

# (task, function name, app-relative file, line of its `def`)
Target = tuple[str, str, str, int]
_FileTargets = dict[int, tuple[str, str]]


class _AddDecorator(ast.NodeTransformer):
    def __init__(self, targets: _FileTargets):
        self.targets = targets
        self.found: list[str] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        hit = self.targets.get(node.lineno)
        if hit is not None and hit[1] == node.name:
            deco = ast.Call(
                func=ast.Name(id=ACCEL_NAME, ctx=ast.Load()), args=[ast.Constant(value=hit[0])], keywords=[]
            )
            for n in ast.walk(deco):
                n.lineno = n.end_lineno = node.lineno
                n.col_offset = n.end_col_offset = node.col_offset
            node.decorator_list.append(deco)
            self.found.append(hit[0])
        return node


def compile_with_swaps(
    source: bytes | str, filename: str, targets: _FileTargets
) -> tuple[types.CodeType, list[str]]:
    """Compile `source` with the accelerate decorator on the target functions; which tasks were found."""
    tree = ast.parse(source, filename=filename)
    t = _AddDecorator(targets)
    tree = t.visit(tree)
    return compile(tree, filename, "exec", dont_inherit=True), t.found


class _SwappingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, targets: _FileTargets, found: set[str]):
        super().__init__(fullname, path)
        self.targets = targets
        self.found = found

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        code, found = compile_with_swaps(self.get_data(path), path, self.targets)
        self.found.update(found)
        return code


class _SwappingFinder(importlib.abc.MetaPathFinder):
    def __init__(self, files: dict[Path, _FileTargets], found: set[str]):
        self.files = files
        self.found = found

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin:
            return None
        try:
            origin = Path(spec.origin).resolve()
        except OSError:
            return None
        targets = self.files.get(origin)
        if targets is None:
            return None
        spec.loader = _SwappingLoader(fullname, spec.origin, targets, self.found)
        return spec


def run_app(
    app: str | Path,
    argv: Iterable[str],
    accelerate: Callable[[str, Callable], Callable],
    targets: Iterable[Target],
) -> set[str]:
    """Run `app` as __main__ with `argv`; every target function is passed through
    `accelerate(task, function)` as it is defined. Returns the tasks that were swapped."""
    app_path = Path(app).resolve()
    app_dir = app_path.parent
    files: dict[Path, _FileTargets] = {}
    for task, fname, relfile, line in targets:
        files.setdefault((app_dir / relfile).resolve(), {})[int(line)] = (task, fname)
    found: set[str] = set()
    source = app_path.read_bytes()
    code, in_main = compile_with_swaps(source, str(app_path), files.pop(app_path, {}))
    found.update(in_main)
    finder = _SwappingFinder(files, found)

    def decorator(task: str) -> Callable[[Callable], Callable]:
        return lambda function: accelerate(task, function)

    module = types.ModuleType("__main__")
    module.__file__ = str(app_path)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    saved_main = sys.modules.get("__main__")
    saved_argv = sys.argv
    saved_path0 = sys.path[0] if sys.path else None
    setattr(builtins, ACCEL_NAME, decorator)
    sys.meta_path.insert(0, finder)
    sys.modules["__main__"] = module
    sys.argv = [str(app_path), *argv]
    if sys.path:
        sys.path[0] = str(app_dir)
    else:
        sys.path.append(str(app_dir))
    try:
        exec(code, module.__dict__)
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        if hasattr(builtins, ACCEL_NAME):
            delattr(builtins, ACCEL_NAME)
    return found
