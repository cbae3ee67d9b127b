"""Calls of a method whose kernel is that of a plain function over its object's attributes.

A method becomes a kernel (`partition.frontend.methods`) as a plain function whose leading
arguments are the attributes of `self` it uses and whose result is the method's own result
followed by the attributes it assigns (spec entry "method"). At each call the runtime reads
those attributes from the object, so they pass the same guards as any argument (a miss runs
the method itself on the CPU); an array attribute the kernel writes in place is the object's
own array, written back as any argument is; after the call the assigned attributes are set
on the object, as Python's assignments in the method would have.
"""

from __future__ import annotations

import inspect
from typing import Any


class MethodCall:
    """The "method" entry of a kernel: expanding a call, and finishing it on the object."""

    __slots__ = ("assigned", "attrs", "cls", "params", "return_tuple", "returns")

    def __init__(self, d: dict[str, Any]):
        self.cls = str(d["class"])
        self.params = [str(p) for p in d["params"]]
        self.attrs = [str(a) for a in d["attrs"]]
        self.assigned = [str(a) for a in d["assigned"]]
        self.returns = int(d["returns"])
        self.return_tuple = bool(d["return_tuple"])
        if not self.params or any(a not in self.attrs for a in self.assigned):
            raise ValueError("a method needs its parameters, and assigns only attributes it uses")

    def expand(
        self, signature: inspect.Signature | None, args: tuple, kwargs: dict
    ) -> tuple[Any, tuple] | str:
        """(self, the plain function's arguments) for a call of the method, or why the call
        cannot use the kernel."""
        if kwargs or len(args) != len(self.params):
            if signature is None:
                return "the call does not match the method's signature"
            try:
                b = signature.bind(*args, **kwargs)
            except TypeError:
                return "the call does not match the method's signature"
            b.apply_defaults()
            try:
                args = tuple(b.arguments[name] for name in self.params)
            except KeyError:
                return "the call does not match the method's signature"
        obj = args[0]
        if type(obj).__name__ != self.cls:
            return f"{self.params[0]} is a {type(obj).__name__}, the kernel is {self.cls}'s method"
        try:
            state = tuple(getattr(obj, a) for a in self.attrs)
        except AttributeError as e:
            return f"{self.params[0]} has no attribute {e.name}"
        return obj, (*state, *args[1:])

    def finish(self, obj: Any, result: Any) -> Any:
        """Set the assigned attributes from the kernel's result; the method's own result."""
        if not self.assigned:
            return result
        items = tuple(result)
        own, state = items[: self.returns], items[self.returns :]
        for a, v in zip(self.assigned, state):
            setattr(obj, a, v)
        if not self.returns:
            return None
        return own if self.return_tuple else own[0]
