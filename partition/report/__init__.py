"""Reports of a plan, all from plan.json data: the terminal summary, report.md, report.html,
the `--json` output and live progress on stderr.

report.html is prepared in parts (graph_view, tasks, bars, timeline,
alternatives, verification) that `render_html` puts together; the verification
results it shows are read from the build tree by `load_verification`.
"""

from __future__ import annotations

from partition.report import progress
from partition.report.graph_view import layout_order
from partition.report.html import regenerate, render_html
from partition.report.jsonout import SCHEMA_PATH, plan_output
from partition.report.markdown import markdown
from partition.report.terminal import explain_text, summary
from partition.report.timeline import timeline
from partition.report.verification import RESULT_FORMAT, load_verification

__all__ = [
    "RESULT_FORMAT",
    "SCHEMA_PATH",
    "explain_text",
    "layout_order",
    "load_verification",
    "markdown",
    "plan_output",
    "progress",
    "regenerate",
    "render_html",
    "summary",
    "timeline",
]
