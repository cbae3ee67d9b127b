"""The profiler on arguments that are records: tuples, namedtuples (collections and typing),
dataclass instances and lists of tuples: their signatures (kind, class, fields, each field's
range), their samples (decoded to stand-ins of the same class name and fields), the replay on
those stand-ins, and edge vectors that vary each field.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import pytest
from test_profile import APPS, profile_quietly

from partition.profile.model import Profile, decode_value
from partition.profile.signature import SigAcc


@pytest.fixture(scope="module")
def records() -> Profile:
    prof, out = profile_quietly(APPS / "records.py", baseline=False, echo=True)
    assert out == "ok\n"
    return prof


def test_record_signatures(records: Profile) -> None:
    f = records.functions
    assert f["shift"].arg_sigs[0] == {
        "type": "namedtuple",
        "pytype": "Point",
        "fields": ["x", "y"],
        "items": [{"type": "int", "min": 0, "max": 2}, {"type": "int", "min": -1, "max": 3}],
    }
    assert f["shift"].return_sig == {
        "type": "tuple",
        "items": [
            {"type": "namedtuple", "pytype": "Point", "fields": ["x", "y"],
             "items": [{"type": "int", "min": 5, "max": 7}, {"type": "int", "min": -1, "max": 3}]},
            {"type": "int", "min": -1, "max": 5},
        ],
    }  # fmt: skip
    assert f["quantise"].arg_sigs[1] == {
        "type": "namedtuple",  # typing.NamedTuple is a namedtuple
        "pytype": "Quant",
        "fields": ["scale", "zero_point"],
        "items": [{"type": "float", "min": 0.05, "max": 0.05}, {"type": "int", "min": -1, "max": 1}],
    }
    assert f["area"].arg_sigs[0] == {
        "type": "dataclass",
        "pytype": "Rect",
        "fields": ["x", "y", "w", "h"],
        "items": [
            {"type": "int", "min": 0, "max": 2},
            {"type": "int", "min": 0, "max": 0},
            {"type": "int", "min": 3, "max": 5},
            {"type": "int", "min": 4, "max": 4},
        ],
    }
    assert f["window"].arg_sigs[0] == {
        "type": "tuple",
        "items": [{"type": "int", "min": 3, "max": 3}, {"type": "int", "min": 5, "max": 5}],
    }
    assert f["bbox"].arg_sigs[0] == {
        "type": "list",
        "elem": {"type": "tuple", "items": [{"type": "int", "min": -2, "max": 7}, {"type": "int", "min": 1, "max": 3}]},
        "len": 3,
    }  # fmt: skip


def test_record_samples_decode_to_stand_ins(records: Profile) -> None:
    observed = [s for s in records.functions["area"].samples if not s.edge]
    r = decode_value(observed[1].args[0])
    assert type(r).__name__ == "Rect" and (r.x, r.y, r.w, r.h) == (1, 0, 4, 4)  # Rect(1, 0, 5 - 1, 4)
    p = decode_value(records.functions["shift"].samples[0].args[0])
    assert type(p).__name__ == "Point" and p == (0, -1) and (p.x, p.y) == (0, -1)
    res = decode_value(records.functions["shift"].samples[0].result)
    assert res[0].x == 5 and res[1] == -1
    # the function ran again on the stand-ins: its locals have ranges, and edge vectors
    # vary each field as a scalar argument (the observed minimum, then the maximum)
    assert records.functions["area"].local_ranges["s"]["max"] == 20
    edge = [decode_value(s.args[0]) for s in records.functions["area"].samples if s.edge]
    assert [tuple(vars(e).values()) for e in edge] == [(0, 0, 3, 4), (2, 0, 5, 4)]
    edge = [decode_value(s.args[0]) for s in records.functions["window"].samples if s.edge]
    assert edge == []  # (3, 5) every time: nothing new to try


def test_record_signatures_mix_and_merge() -> None:
    P = namedtuple("P", "a b")

    @dataclass
    class D:
        a: int
        b: float

    acc, other = SigAcc(), SigAcc()
    acc.observe(P(1, 2), True)
    other.observe(P(-4, 9), False)
    acc.merge(other)
    assert acc.to_sig()["items"] == [
        {"type": "int", "min": -4, "max": 1},
        {"type": "int", "min": 2, "max": 9},
    ]
    acc.observe(D(1, 2.0), True)
    acc.observe((1, 2), True)
    assert acc.to_sig() == {"type": "mixed", "types": ["dataclass[D]", "namedtuple[P]", "tuple[2]"]}
    big = namedtuple("Big", [f"f{i}" for i in range(17)])
    acc = SigAcc()
    acc.observe(big(*range(17)), True)
    assert acc.to_sig() == {"type": "object", "pytype": "Big"}  # too many fields for registers
