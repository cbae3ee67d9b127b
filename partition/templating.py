"""Filling the templates under templates/: the one Jinja2 environment and `render`.

Every generated text comes from a Jinja2 template under templates/ (the only
text built in Python is expression printing, in `partition.codegen.cexpr`).
`render` is the one way to fill a template, so every generator gets the same
settings: undefined variables are errors, block tags leave no stray blank
lines, and files end with a newline.

It lives outside partition.codegen because the stages below code generation
use it too (the RTL backend, the reports, graph.dot, the fuzzer), and
codegen assembles the build tree from all of them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from partition.resources import resource_dir


@lru_cache(maxsize=1)
def template_env() -> jinja2.Environment:
    """The shared Jinja2 environment over the installation's templates/ folder."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    """Fill template `name` (a path under templates/, e.g. "hls/kernel.cpp.j2")."""
    return template_env().get_template(name).render(**context)
