"""Source instrumentation: every plain function of the app gets a timing wrapper.

The app's own files are rewritten at the AST level before they are compiled:
each `def` (methods and nested functions included) receives one extra,
innermost decorator, `__partition_wrap__("<task name>")` (the runner puts
that name in builtins, so the app's own namespaces gain nothing), which the
recorder resolves to its wrapper. Nothing else in the tree changes, so every line
number, traceback and `inspect` answer stays exact, and code outside the app
(numpy, the stdlib) runs at full speed: no trace hook fires on its calls.

Generators, `async def` functions and async generators get wrappers that time
their steps rather than the call that creates them
(`partition.profile.resumable`); `name = lambda ...` is wrapped like a `def`.
Functions compiled by a JIT decorator (numba, jax), which cannot take a Python
wrapper, are left as they are.

Local modules (imported from the app's directory tree, outside any
site-packages or the interpreter's own library) are instrumented by an import
hook placed just before the standard path finder.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

WRAP_NAME = "__partition_wrap__"
_JIT_DECORATORS = {"jit", "njit", "vectorize", "guvectorize", "cfunc", "stencil", "generated_jit"}


@dataclass(frozen=True)
class FuncInfo:
    """A function found in the source: what the profile will call it and where it is."""

    name: str  # task name (unique within one run)
    qualname: str
    file: str  # relative to the app's directory
    line: int
    kind: str  # function, method, nested, generator, async, async generator, lambda


def _decorator_name(d: ast.expr) -> str:
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Attribute):
        return d.attr
    if isinstance(d, ast.Name):
        return d.id
    return ""


def _is_generator(node: ast.FunctionDef) -> bool:
    """Whether the function's own body (not nested scopes) contains `yield`."""
    todo: list[ast.AST] = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom):
            return True
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return False


class _Instrumenter(ast.NodeTransformer):
    def __init__(self, prefix: str, relfile: str, claim: Callable[[str, str, int], str]) -> None:
        self.prefix = prefix
        self.relfile = relfile
        self.claim = claim
        self.scope: list[tuple[str, str]] = []  # ("class" | "function", name)
        self.found: list[FuncInfo] = []

    def _qualname(self, name: str) -> str:
        parts = []
        for kind, n in self.scope:
            parts.append(n)
            if kind == "function":
                parts.append("<locals>")
        return ".".join([*parts, name])

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.scope.append(("class", node.name))
        self.generic_visit(node)
        self.scope.pop()
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._function(node, "async generator" if _is_generator(node) else "async")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._function(node, "generator" if _is_generator(node) else None)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str | None) -> ast.AST:
        qualname = self._qualname(node.name)
        if kind is None:
            if any(k == "function" for k, _ in self.scope):
                kind = "nested"
            elif self.scope and self.scope[-1][0] == "class":
                kind = "method"
            else:
                kind = "function"
        self.scope.append(("function", node.name))
        self.generic_visit(node)
        self.scope.pop()
        if any(_decorator_name(d) in _JIT_DECORATORS for d in node.decorator_list):
            return node
        node.decorator_list.append(self._wrap_call(qualname, node.lineno, kind, node))
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        """`name = lambda ...:` is a function by another spelling: wrapped the same way."""
        self.generic_visit(node)
        if (
            isinstance(node.value, ast.Lambda)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            call = self._wrap_call(
                self._qualname(node.targets[0].id), node.value.lineno, "lambda", node.value
            )
            call_node = ast.Call(func=call, args=[node.value], keywords=[])
            ast.copy_location(call_node, node.value)
            node.value = call_node
        return node

    def _wrap_call(self, qualname: str, line: int, kind: str, at: ast.AST) -> ast.Call:
        """`__partition_wrap__("<task>")`, with the task registered, placed at `at`'s position."""
        wanted = f"{self.prefix}.{qualname}" if self.prefix else qualname
        name = self.claim(wanted, self.relfile, line)
        self.found.append(FuncInfo(name, qualname, self.relfile, line, kind))
        deco = ast.Call(
            func=ast.Name(id=WRAP_NAME, ctx=ast.Load()),
            args=[ast.Constant(value=name)],
            keywords=[],
        )
        for n in ast.walk(deco):
            n.lineno = n.end_lineno = line  # type: ignore[attr-defined]
            n.col_offset = n.end_col_offset = at.col_offset  # type: ignore[attr-defined]
        return deco


def instrument_source(
    source: str | bytes,
    filename: str,
    prefix: str,
    relfile: str,
    claim: Callable[[str, str, int], str],
) -> tuple[ast.Module, list[FuncInfo]]:
    """Parse `source` and add the timing decorator to its functions.

    `prefix` is the module name ("" for the app file); `claim(wanted, file,
    line)` returns a unique task name for a function (normally `wanted`).
    """
    tree = ast.parse(source, filename=filename)
    inst = _Instrumenter(prefix, relfile, claim)
    tree = inst.visit(tree)
    return tree, inst.found


class NameRegistry:
    """Hands out task names: qualified names, made unique when a name is reused."""

    def __init__(self) -> None:
        self.taken: dict[str, tuple[str, int]] = {}

    def claim(self, wanted: str, file: str, line: int) -> str:
        owner = self.taken.get(wanted)
        if owner is None or owner == (file, line):
            self.taken[wanted] = (file, line)
            return wanted
        name = f"{wanted}@{line}"
        n = 2
        while name in self.taken and self.taken[name] != (file, line):
            name = f"{wanted}@{line}.{n}"
            n += 1
        self.taken[name] = (file, line)
        return name


# ------------------------------------------------------------- import hook


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


class LocalModules:
    """Which files belong to the app: its directory tree minus installed code."""

    def __init__(self, app_dir: Path, exclude: list[Path]) -> None:
        self.app_dir = app_dir.resolve()
        self.exclude = [p.resolve() for p in exclude]

    def relpath(self, origin: str) -> str | None:
        """The file's path relative to the app directory, or None when it is not the app's."""
        p = Path(origin).resolve()
        if p.suffix != ".py" or not _inside(p, self.app_dir):
            return None
        rel = p.relative_to(self.app_dir)
        if any(part in ("site-packages", "dist-packages", "__pycache__") for part in rel.parts):
            return None
        if any(_inside(p, ex) and not _inside(self.app_dir, ex) for ex in self.exclude):
            return None
        return rel.as_posix()


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, relfile: str, on_code: Callable) -> None:
        super().__init__(fullname, path)
        self.relfile = relfile
        self.on_code = on_code

    def get_code(self, fullname: str):
        # never read or write cached bytecode: the cache holds the uninstrumented code
        path = self.get_filename(fullname)
        source = self.get_data(path)
        return self.on_code(source, path, fullname, self.relfile)


class LocalFinder(importlib.abc.MetaPathFinder):
    """Finds the app's local modules and loads them instrumented."""

    def __init__(self, local: LocalModules, on_code: Callable) -> None:
        self.local = local
        self.on_code = on_code

    def find_spec(self, fullname, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.has_location or not spec.origin:
            return None
        if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        rel = self.local.relpath(spec.origin)
        if rel is None:
            return None
        spec.loader = _InstrumentingLoader(fullname, spec.origin, rel, self.on_code)
        spec.cached = None
        return spec

    def install(self) -> None:
        """Put the finder just before the standard path finder, so builtins keep precedence."""
        for i, f in enumerate(sys.meta_path):
            if f is importlib.machinery.PathFinder:
                sys.meta_path.insert(i, self)
                return
        sys.meta_path.append(self)

    def uninstall(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
