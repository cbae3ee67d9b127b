"""The bundled example apps: every other `.py` file of this folder is one.

Each is an ordinary script (`python examples/NAME.py`) and the input of
`partition plan examples/NAME.py`; the tests (tests/example_trees.py) and the benchmarks
take the list of them from `NAMES`, so adding an example is adding its file here.
"""

from pathlib import Path

DIR = Path(__file__).resolve().parent
NAMES = tuple(sorted(p.stem for p in DIR.glob("*.py") if p.name != "__init__.py"))
