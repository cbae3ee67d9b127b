"""What constructs a generated case uses (the report's feature coverage): the generator's
tags, what its source spells and its input types.
"""

from __future__ import annotations

import re

import numpy as np

from partition.fuzz.parts import Case
from partition.fuzz.records import record_types

_SOURCE_FEATURES = {
    "floor division //": r"\s//\s",
    "modulo %": r"\s%\s",
    "shift << / >>": r"\s(<<|>>)\s",
    "bitwise and / or / xor / invert": r"\s[&|^]\s|\(~",
    "min() / max()": r"\b(min|max)\(",
    "abs()": r"\babs\(",
    "x if c else y": r"\sif\s.*\selse\s",
    "** power": r"\*\*",
    "numpy scalar cast np.<type>(...)": r"np\.(u?int\d+|float\d+|bool_)\(",
    "int() / float() / bool()": r"\b(int|float|bool)\(",
    "negative index": r"\[\(-\d|\[-1 - ",
    "data-dependent index": r"\[\([^\]]*\[[^\]]*\] %",
    "np.where": r"np\.where\(",
    "np.clip": r"np\.clip\(",
    "np.minimum / np.maximum": r"np\.(minimum|maximum)\(",
    "np.abs": r"np\.abs\(",
    "reduction (sum/max/min/argmax/argmin)": r"np\.(sum|max|argmax|argmin)\(|\.(max|min)\(\)",
    "slice with a step": r"\[\d*:\d*:\d+\]",
    "slice update a[i:j] op= ...": r"\[\d+:\d+\] [-+*&|^]= ",
    "astype": r"\.astype\(",
    "np.dot / @ (1-D)": r"np\.dot\(|\s@\s",
    "np.zeros / np.ones / np.full / np.empty": r"np\.(zeros|ones|full|empty)\(",
    "range with a step or downward": r"range\([^)]*,[^)]*,",
    "nested loops": r"\n(\s{8,})for .*\n",
    "elif": r"\belif\b",
}


def describe(case: Case) -> list[str]:
    """The constructs a case uses: the generator's tags, what its source spells, its input types."""
    out = set(case.features)
    for name, pattern in _SOURCE_FEATURES.items():
        if re.search(pattern, case.source):
            out.add(name)
    for v in case.calls[0] if case.calls else ():
        if isinstance(v, np.ndarray):
            out.add(f"array {v.dtype.name}")
            out.add(f"{v.ndim}-D array")
            if v.size == 1:
                out.add("array of size 1")
            elif v.shape[-1] % 2 == 1:
                out.add("odd array length")
        elif isinstance(v, np.generic):
            out.add(f"numpy scalar {v.dtype.name}")
        elif record_types(v) is not None:
            out.add(str(record_types(v)))
        elif isinstance(v, list):
            out.add("list argument")
        elif isinstance(v, bool):
            out.add("Python bool argument")
        elif isinstance(v, int):
            out.add("Python int argument")
        elif isinstance(v, float):
            out.add("Python float argument")
    if case.floats:
        out.add("floats allowed")
    return sorted(out)
