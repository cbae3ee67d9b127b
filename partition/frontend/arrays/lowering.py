"""The whole-array lowering of one function, composed of its parts.

`ArrayLowering` is what the function's lowerer holds as `arr`: array
expressions (`ArrayExpressions`), elementwise operations (`Elementwise`),
reductions and products (`Reductions`), run-time windows (`Windows`), numpy library calls (`Library`, `DirectCalls`) and np.linalg's solvers (`LinalgSolvers`), medians and percentiles (`Ordering`), arrays numpy creates in expressions (`Created`), flattening and sorting (`Reordered`), gathers and boolean-mask selections (`Selections`), the names bound to arrays
(`Bindings`) and the statements that store arrays (`ArrayStatements`). This
module only composes them and holds the state they share within a round.
"""

from __future__ import annotations

from partition.dtypes import DType
from partition.frontend.arrays.bindings import Bindings
from partition.frontend.arrays.created import Created
from partition.frontend.arrays.direct import DirectCalls
from partition.frontend.arrays.elementwise import Elementwise
from partition.frontend.arrays.expressions import ArrayExpressions
from partition.frontend.arrays.library import Library
from partition.frontend.arrays.linalg import LinalgSolvers
from partition.frontend.arrays.order import Ordering
from partition.frontend.arrays.rebinding import Rebinding
from partition.frontend.arrays.reductions import Reductions
from partition.frontend.arrays.reordered import Reordered
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.scans import Scans
from partition.frontend.arrays.selections import Selections
from partition.frontend.arrays.statements import ArrayStatements
from partition.frontend.arrays.values import Region, View
from partition.frontend.arrays.windows import Windows


class ArrayLowering(
    ArrayExpressions,
    Elementwise,
    Reductions,
    Bindings,
    Rebinding,
    ArrayStatements,
    Windows,
    Created,
    Reordered,
    Scans,
    Selections,
    Library,
    DirectCalls,
    LinalgSolvers,
    Ordering,
):
    """The whole-array part of a `Lowerer` (it reads and extends the lowerer's tables)."""

    def __init__(self, lw: ScalarLowering):
        self.lw = lw
        self.versions: dict[str, list[tuple[DType, tuple[int, ...]]]] = {}
        self.snapshots: set[str] = set()  # scalars holding the dynamic indices of bound views
        self.bound_in: dict[str, Region | None] = {}  # by variable key: the innermost region it was bound in
        self.saved = {}  # rebound arguments (Rebinding)
        self.copy_sources = {}
        self.owners = {}
        self.sourced = set()

    def new_round(self) -> None:
        self.versions = {}
        self.snapshots = set()
        self.bound_in = {}
        self.saved = {}
        self.copy_sources = {}
        self.owners = {}
        self.sourced = set()

    @staticmethod
    def is_view(x: object) -> bool:
        return isinstance(x, View)
