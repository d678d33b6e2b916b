"""The DESIGN §2 error codes, registered with mypy at import, and the one reporting helper."""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from typedtensor.shapes.issue import CODES, Issue

SHAPE: Final = ErrorCode("shape", "Tensor shapes do not line up (typedtensor)", "typedtensor")

# Creating an ErrorCode registers it, so `--disable-error-code shape-matmul`, config files and
# `# type: ignore[shape-matmul]` all know it; disabling `shape` disables every sub-code.
CODE_BY_NAME: Final[dict[str, ErrorCode]] = {
    name: ErrorCode(name, description, "typedtensor", sub_code_of=SHAPE) for name, description in CODES.items()
}


def code_of(issue: Issue) -> ErrorCode:
    return CODE_BY_NAME.get(issue.code, SHAPE)


def report(api: CheckerPluginInterface, issue: Issue, context: Context, notes: tuple[str, ...] = ()) -> None:
    """Report a registry `Issue` as `error: <message>  [shape-...]`, with notes attached to it
    (a note given `parent_error` is hidden together with its error by `# type: ignore[...]`)."""
    code = code_of(issue)
    info = api.fail(issue.message, context, code=code)
    for text in notes:
        api.msg.note(text, context, code=code, parent_error=info)
