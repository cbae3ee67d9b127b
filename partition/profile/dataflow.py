"""Data edges: which task produced each value another task consumes, and how many bytes moved.

Values are followed by object identity. A task's return value (each element of
a returned tuple) and every argument it modifies in place become "produced"
by that task. When a task is called, each argument is looked up: a produced
value gives an edge producer -> task; any other value was made by the code
that passes it (the calling task, or `<main>` at the top level), giving an
edge caller -> task (the recorder counts those per call site, without this
table). A produced value that no task ever consumes went back to the code
that called its producer: an edge producer -> caller when it is forgotten (the
object died, the table evicted it, or the run ended).

Identity is only meaningful while the object lives, so the tables must never
mistake a new object for a dead one that had the same `id`:

* ndarrays are keyed by their base array (views count as their base) and held
  by weak reference; an entry whose referent died is stale: a lookup that
  finds one forgets it, and the table is swept of them as it grows;
* other values (floats, large ints, lists, tuples) cannot be weakly
  referenced, so a bounded table holds strong references (oldest evicted
  first), which keeps their ids valid while they are in it.

Small ints, bools and None are shared singletons in CPython: their identity
says nothing about where they came from, so they are not followed (they count
as made by the passing code).

A record is a list: [referent (weakref or object), producer, producer's
caller, bytes, label, consumed].
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from partition.profile.model import Edge
from partition.profile.records import instance_fields

_ndarray = np.ndarray
_ref = weakref.ref
OTHERS_MAX = 1024  # strongly held produced values (not arrays)
_MAX_LABELS = 4


def nbytes_fast(v: Any, top: bool = True) -> int:
    """Bytes a value occupies; lists are measured by their first element (assumed homogeneous),
    an object of the app's class (a method's self) by its attributes (what its kernel moves)."""
    tp = type(v)
    if tp is _ndarray or isinstance(v, _ndarray):
        return v.nbytes
    if tp is float or tp is int:
        return 8
    if tp is bool:
        return 1
    if isinstance(v, np.generic):
        return v.dtype.itemsize if v.dtype.kind in "biuf" else 0
    if tp is list:
        return len(v) * nbytes_fast(v[0]) if v else 0
    if tp is tuple:
        return sum(nbytes_fast(x, False) for x in v)
    if top:
        attrs = instance_fields(v)
        if attrs is not None:
            return sum(nbytes_fast(getattr(v, a, None), False) for a in attrs)
    return 0


def root_array(a: np.ndarray) -> np.ndarray:
    """The array that owns `a`'s memory (follows view bases)."""
    b = a.base
    while isinstance(b, _ndarray):
        a = b
        b = a.base
    return a


class DataFlow:
    """Producer tables and the aggregated producer -> consumer edges."""

    def __init__(self, others_max: int = OTHERS_MAX) -> None:
        self.arrays: dict[int, list[Any]] = {}
        self.others: dict[int, list[Any]] = {}
        self.others_max = others_max
        self.sweep_at = 4096
        self.edges: dict[tuple[str, str, str], list[int]] = {}
        self.closed = False

    def edge(self, src: str, dst: str, label: str, nbytes: int, count: int = 1, direct: int = 0) -> None:
        k = (src, dst, label)
        e = self.edges.get(k)
        if e is None:
            self.edges[k] = [nbytes, count, direct]
        else:
            e[0] += nbytes
            e[1] += count
            e[2] += direct

    def _forget(self, rec: list[Any]) -> None:
        if not rec[5]:
            self.edge(rec[1], rec[2], rec[4], rec[3])

    # ----------------------------------------------------------- consuming

    def lookup(self, v: Any) -> list[Any] | None:
        """The live record of a produced value, or None."""
        if type(v) is _ndarray or isinstance(v, _ndarray):
            root = root_array(v)
            rec = self.arrays.get(id(root))
            if rec is not None and rec[0]() is not root:
                del self.arrays[id(root)]  # stale: a dead array had this id
                self._forget(rec)
                return None
            return rec
        rec = self.others.get(id(v))
        if rec is not None and rec[0] is v:
            return rec
        return None

    def consume_produced(self, rec: list[Any], dst: str, label: str, nbytes: int, v: Any = None) -> None:
        """`dst` consumes the produced value `v` (rec is its record).

        The bytes count as direct when `v` is the very array its producer
        returned (not a view of it, not an argument it modified in place): on
        the board that array is the producer's device buffer, which the runtime
        hands to the consumer kernel without a copy.
        """
        rec[5] = True
        direct = nbytes if isinstance(rec[0], _ref) and rec[4].startswith("return") and rec[0]() is v else 0
        self.edge(rec[1], dst, label, nbytes, direct=direct)

    # ----------------------------------------------------------- producing

    def produce(self, v: Any, src: str, caller: str, label: str) -> None:
        """Task `src`, called by `caller`, made `v` (returned it, or modified it in place)."""
        tp = type(v)
        if tp is _ndarray or isinstance(v, _ndarray):
            root = v if v.base is None else root_array(v)
            key = id(root)
            old = self.arrays.get(key)
            if old is not None and not old[5]:
                self.edge(old[1], old[2], old[4], old[3])
            self.arrays[key] = [_ref(root), src, caller, v.nbytes, label, False]
            if len(self.arrays) > self.sweep_at:
                self.sweep()
            return
        if v is None or tp is bool or (tp is int and -5 <= v <= 256):
            return
        if tp is tuple:
            roots: set[int] = set()  # elements that are views of one array are one value
            for i, x in enumerate(v):
                if isinstance(x, _ndarray):
                    root = x if x.base is None else root_array(x)
                    if id(root) in roots:
                        rec = self.arrays[id(root)]
                        rec[3] += x.nbytes
                        rec[4] += f",{i}"
                        continue
                    roots.add(id(root))
                self.produce(x, src, caller, f"{label}[{i}]")
            return
        nb = nbytes_fast(v)
        if nb == 0:
            return
        key = id(v)
        old = self.others.pop(key, None)
        if old is not None:
            self._forget(old)
        self.others[key] = [v, src, caller, nb, label, False]
        if len(self.others) > self.others_max:
            self._evict()

    def sweep(self) -> None:
        """Forget the entries of arrays that died (the table grew past `sweep_at`)."""
        dead = [k for k, rec in self.arrays.items() if rec[0]() is None]
        for k in dead:
            self._forget(self.arrays.pop(k))
        self.sweep_at = max(4096, 2 * len(self.arrays))

    def _evict(self) -> None:
        n = len(self.others) - self.others_max // 2
        for k in list(itertools.islice(self.others, n)):
            self._forget(self.others.pop(k))

    # ------------------------------------------------------------- result

    def finish(self) -> list[Edge]:
        """Forget every remaining value and return the aggregated edges, sorted by (src, dst)."""
        self.closed = True
        for rec in self.arrays.values():
            self._forget(rec)
        for rec in self.others.values():
            self._forget(rec)
        self.arrays.clear()
        self.others.clear()
        agg: dict[tuple[str, str], list[Any]] = {}
        for (src, dst, label), (nb, count, direct) in self.edges.items():
            a = agg.setdefault((src, dst), [0, 0, set(), 0])
            a[0] += nb
            a[1] += count
            a[2].add(label)
            a[3] += direct
        out = []
        for (src, dst), (nb, count, labels, direct) in sorted(agg.items()):
            shown = sorted(labels)
            what = ", ".join(shown[:_MAX_LABELS]) + (", …" if len(shown) > _MAX_LABELS else "")
            out.append(
                Edge(src=src, dst=dst, bytes=int(nb), count=int(count), what=what, direct_bytes=int(direct))
            )
        return out
