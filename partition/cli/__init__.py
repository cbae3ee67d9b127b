"""Command line: parses arguments and wires the pipeline stages together, nothing more.

`parser` holds the grammar, `commands` the profile/plan/explain/report/boards commands,
`verify` the commands over a build tree (sim, synth, lint, cosim, measure).
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from partition.cli.commands import cmd_boards, cmd_explain, cmd_plan, cmd_profile, cmd_report
from partition.cli.parser import build_parser, split_app_args
from partition.cli.verify import cmd_cosim, cmd_measure, cmd_verify
from partition.errors import PartitionError
from partition.procs import adopt_orphans, end_descendants

__all__ = ["build_parser", "main"]


class Terminated(BaseException):  # a signal, like KeyboardInterrupt: not an error
    """SIGTERM, turned into an exception so that every `finally` and child-killing handler runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    if threading.current_thread() is not threading.main_thread():
        return _main(argv)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    adopt_orphans()
    try:
        return _main(argv)
    finally:
        adopt_orphans(False)  # (main() may run inside another program: leave it as it was)
        signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, app_args = split_app_args(argv)
    parser = build_parser()
    args = parser.parse_args(ours)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "profile":
            return cmd_profile(args, app_args)
        if args.command == "plan":
            return cmd_plan(args, app_args)
        if args.command == "explain":
            return cmd_explain(args, app_args)
        if args.command == "report":
            return cmd_report(args)
        if args.command == "boards":
            return cmd_boards(args)
        if args.command in ("sim", "synth", "lint"):
            return cmd_verify(args)
        if args.command == "cosim":
            return cmd_cosim(args, app_args)
        if args.command == "measure":
            return cmd_measure(args)
    except PartitionError as e:
        print(f"partition: error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        end_descendants()
        print("partition: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        end_descendants()
        print("partition: terminated (SIGTERM)", file=sys.stderr)
        return 143
    except Exception as e:  # a bug in partition itself, not in the user's input
        if os.environ.get("PARTITION_DEBUG"):
            raise
        print(
            f"partition: internal error: {type(e).__name__}: {e}\n"
            "  this is a bug in partition; run again with PARTITION_DEBUG=1 for the traceback and report it",
            file=sys.stderr,
        )
        return 70
    return 2
