"""The one exception type the CLI turns into a clean message and a non-zero exit.

Stages raise `PartitionError` for anything the user can fix (a missing file, a
bad board, an impossible budget); the message must name the file, line or value
and say what to do. Any other exception escaping a stage is a bug in the tool.
"""

from __future__ import annotations


class PartitionError(Exception):
    """A user-facing error: message says what is wrong and what to do."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class AppFailed(PartitionError):
    """The profiled application itself failed; its own traceback was already shown."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=3)
