"""`for` statements, and what a loop's variable holds after its loop.

Every loop over a sequence becomes a counted loop over a hidden index whose first
statements bind the loop's targets to the element (`partition.frontend.seqs`).
Python semantics the rewriting keeps:

* The loop's variable keeps the last value it took after the loop (or after a
  `break`), and the value it had before when the loop ran zero times. A
  `for i in range(...)` whose `i` is read after the loop, or assigned in its
  body (which in Python does not change the iteration), counts with a hidden
  variable and assigns `i` from it; other `for i in range(...)` loops keep `i`
  as the loop counter. A read of a loop variable that may be unbound there (its
  loop may run zero times and nothing assigned it before on every path) is
  rejected; `defined` tracks what every path assigned.
* A row bound to the loop variable (`for row in m`) is substituted where the
  variable is read, unless the body assigns it or it is read after the loop (then
  a numpy row is a view; a list's row is rejected).
* `for ... else`: the else block runs when the loop ended without `break`.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

from partition import ir
from partition.frontend.model import ArrayInfo, Reject
from partition.frontend.seqs import Seq, is_call, loc, name_of, target_names


def for_targets(fn: ast.FunctionDef) -> set[str]:
    """Names bound by the `for` statements of a function (not by its comprehensions)."""
    return {n for s in ast.walk(fn) if isinstance(s, ast.For) for n in target_names(s.target)}


class _Substitute(ast.NodeTransformer):
    """Reads of `name` replaced by an expression (a row `m[k]` for the loop variable bound to it)."""

    def __init__(self, name: str, value: ast.expr):
        self.name = name
        self.value = value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.value), node)
        return node


class _Breaks(ast.NodeTransformer):
    """`break`s of one loop (not of loops inside it) preceded by `flag = False`."""

    def __init__(self, flag: str):
        self.flag = flag

    def visit_For(self, node: ast.AST) -> ast.AST:
        return node

    visit_While = visit_For

    def visit_Break(self, node: ast.Break) -> list[ast.stmt]:
        down = ast.Assign([ast.Name(self.flag, ast.Store())], ast.Constant(False))
        return [loc(down, node), node]


class Iteration:
    """for loops over sequences (part of `Lowerer`)."""

    # ------------------------------------------------------------ statements

    def for_stmt(self, s: ast.For) -> list[ir.Stmt]:
        """A `for` statement; afterwards its targets are assigned only if it surely ran once."""
        before = set(self.defined)
        out, nonempty = self.for_body(s)
        self.defined = before
        if nonempty:
            self.defined |= {self.key(n) for n in target_names(s.target)}
        return out

    def for_body(self, s: ast.For) -> tuple[list[ir.Stmt], bool]:
        line = s.lineno
        if s.orelse:
            return self.for_else(s), False
        it = s.iter
        if is_call(it, "reversed") and len(it.args) == 1 and is_call(it.args[0], "range"):
            if self.is_local_name("reversed") or self.is_local_name("range"):
                raise Reject(line, "reversed or range is a local name here")
            s = loc(ast.For(s.target, self.reversed_range(it.args[0], line), s.body, []), s)  # type: ignore[assignment]
            it = s.iter
        if isinstance(s.target, ast.Name) and is_call(it, "range") and not self.is_local_name("range"):
            nonempty = self.range_nonempty(it, line)
            if not self.keeps_value(s):
                return [self.for_loop(s)], nonempty
            k = self.hidden("k")
            first = loc(ast.Assign([s.target], name_of(k)), s)
            loop = loc(ast.For(ast.Name(k, ast.Store()), it, [first, *s.body], []), s)
            return [self.for_loop(loop)], nonempty  # type: ignore[arg-type]
        if isinstance(s.target, ast.Name) and isinstance(it, ast.Name):
            arr = self.array_of(it)
            if isinstance(arr, ArrayInfo) and len(arr.shape) == 1:
                return [self.for_loop(self.indexed_for(s))], True
        if isinstance(s.target, ast.Name) and isinstance(it, ast.Call):
            flat = self.indexed_for(s)  # a.flatten(), np.ravel(a), a.reshape(-1): element by element
            if flat is not s:
                return [self.for_loop(flat)], True
        seq = self.seq_of(it, line)
        return self.loop_over(seq, s.target, s.body, s), seq.nonempty

    def loop_over(self, seq: Seq, target: ast.expr, body: list[ast.stmt], like: ast.stmt) -> list[ir.Stmt]:
        """`for target in seq: body` as a counted loop over a hidden index."""
        line = like.lineno
        pre = self.block([loc(p, like) for p in seq.prologue])
        k = self.hidden("k")
        if seq.static is not None:
            self.facts[ast.dump(name_of(k))] = (0, max(seq.static - 1, 0))
        inner = self.bind(target, seq.element(name_of(k)), body, seq.rank, line)
        rng = ast.Call(name_of("range"), [seq.length], [])
        loop = loc(ast.For(ast.Name(k, ast.Store()), rng, inner, []), like)
        lowered = self.for_loop(loop)  # type: ignore[arg-type]
        written = {st.array for st in ir.walk_stmts(lowered.body) if isinstance(st, ir.Store)}
        for c in seq.copies:
            if c.name in written:
                raise Reject(
                    line,
                    f"the loop writes list {c.pyname} while iterating over a slice of it "
                    "(a slice of a list is a copy in Python: iterate over a copy made before the loop)",
                )
        return [*pre, lowered]

    def bind(
        self, target: ast.expr, value: ast.expr, body: list[ast.stmt], rank: int, line: int
    ) -> list[ast.stmt]:
        """Statements binding `target` to `value` at the top of `body` (rows are substituted when they can)."""
        names = target_names(target)
        reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        clash = sorted(set(names) & reads)
        if clash:
            raise Reject(line, f"loop target {clash[0]} is also what the loop iterates over")
        if isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(t, ast.Starred) for t in target.elts):
                raise Reject(line, "starred loop target (*rest)")
            if not isinstance(value, ast.Tuple):
                value = self.unpack_row(value, len(target.elts), rank, line)
            if len(value.elts) != len(target.elts):
                raise Reject(line, f"unpacking {len(value.elts)} values into {len(target.elts)} loop targets")
            for t, v in reversed(list(zip(target.elts, value.elts))):  # the first target is bound first
                body = self.bind(t, v, body, 1 if self.row_like(v) else 0, line)
            return body
        if isinstance(value, ast.Tuple):
            raise Reject(
                line,
                f"loop target {ast.unparse(target)} would hold a tuple (tuples are not values in a kernel; "
                "unpack it: for a, b in ...)",
            )
        if rank and isinstance(target, ast.Name):
            if not self.stored_in(target.id, body) and not self.read_elsewhere(target.id):
                sub = _Substitute(target.id, value)
                return [sub.visit(copy.deepcopy(b)) for b in body]
            lst = self.list_base(value)
            if lst is not None:
                raise Reject(
                    line,
                    f"loop variable {target.id} names a row of list {lst.pyname} and is assigned in the loop "
                    "or read after it (a row of a list is supported as the name of the current row only)",
                )
        stmt = ast.Assign([target], value)
        stmt.lineno = line
        return [ast.fix_missing_locations(stmt), *body]

    def row_like(self, v: ast.expr) -> bool:
        return self.arr.rank_of(v) is not None

    def unpack_row(self, value: ast.expr, n: int, rank: int, line: int) -> ast.Tuple:
        """A row of known length as a display of its elements (`a, b = row` unpacks it)."""
        shape = self.static_shape(value, line) if rank else None
        if shape is None or len(shape) != 1:
            raise Reject(line, f"unpacking {ast.unparse(value)[:40]} into {n} loop targets")
        if shape[0] != n:
            raise Reject(line, f"unpacking {shape[0]} elements into {n} loop targets")
        return ast.Tuple(
            [ast.Subscript(copy.deepcopy(value), ast.Constant(j), ast.Load()) for j in range(n)], ast.Load()
        )

    def stored_in(self, name: str, body: list[ast.stmt]) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
            for b in body
            for n in ast.walk(b)
        )

    def read_elsewhere(self, name: str) -> bool:
        """True when `name` is read outside the `for` loops and comprehensions binding it."""
        return any(True for _ in _reads_outside(self.fn.body, name))

    def keeps_value(self, s: ast.For) -> bool:
        """The loop variable must be a variable of its own: read after the loop, or assigned in it."""
        name = s.target.id  # type: ignore[union-attr]
        return name in self.sc.rebound or self.stored_in(name, s.body) or self.read_elsewhere(name)

    def for_else(self, s: ast.For) -> list[ir.Stmt]:
        """`for ... else`: a flag says whether the loop ended by `break`; the else block runs if not."""
        flag = self.hidden("nobreak")
        body = [_Breaks(flag).visit(copy.deepcopy(b)) for b in s.body]
        flat: list[ast.stmt] = []
        for b in body:
            flat.extend(b if isinstance(b, list) else [b])
        up = loc(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)), s)
        loop = loc(ast.For(s.target, s.iter, flat, []), s)
        after = loc(ast.If(name_of(flag), s.orelse, []), s.orelse[0])
        for n in (up, loop, after):
            ast.fix_missing_locations(n)
        return self.block([up, loop, after])


def _reads_outside(body: list[ast.stmt], name: str) -> Iterator[ast.AST]:
    """Reads of `name` that are not in the body of a `for` or comprehension binding it.

    A read in a loop's else clause, or anywhere after it, reads the value the loop left.
    """
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.For) and name in target_names(node.target):
            stack.append(node.iter)
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and any(
            name in target_names(g.target) for g in node.generators
        ):
            stack.append(node.generators[0].iter)
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node
        stack.extend(ast.iter_child_nodes(node))
