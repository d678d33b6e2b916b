"""The DESIGN §2 error codes, registered with mypy at import, and the one reporting helper."""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from typedtensor._suppress import OWN, is_suppressed
from typedtensor.shapes.issue import CODES, Issue

SHAPE: Final = ErrorCode("shape", "Tensor shapes do not line up (typedtensor)", "typedtensor")

# Creating an ErrorCode registers it, so `--disable-error-code shape-matmul`, config files and
# `# type: ignore[shape-matmul]` all know it; disabling `shape` disables every sub-code.
CODE_BY_NAME: Final[dict[str, ErrorCode]] = {
    name: ErrorCode(name, description, "typedtensor", sub_code_of=SHAPE) for name, description in CODES.items()
}


# The lints beyond shape equality (NOTE [ Layout lints ] in typedtensor/shapes/layout.py), with the
# checker's codes; not sub-codes of `shape` (they are not shape mismatches), each its own switch.
LINT_CODES: Final[dict[str, ErrorCode]] = {
    "view-noncontiguous": ErrorCode(
        "view-noncontiguous", "view on a tensor whose layout cannot take the new shape (typedtensor)", "typedtensor"
    ),
    "squeeze-no-dim": ErrorCode(
        "squeeze-no-dim", "squeeze() without a dim on a tensor with a size that may be 1 (typedtensor)", "typedtensor"
    ),
}


def code_of(issue: Issue) -> ErrorCode:
    return CODE_BY_NAME.get(issue.code, SHAPE)


def report(api: CheckerPluginInterface, issue: Issue, context: Context, notes: tuple[str, ...] = ()) -> None:
    """Report a registry `Issue` as `error: <message>  [shape-...]`, with notes attached to it
    (a note given `parent_error` is hidden together with its error by `# type: ignore[...]`)."""
    code = code_of(issue)
    if _suppressed(api, code.code, context.line):
        return
    info = api.fail(issue.message, context, code=code)
    for text in notes:
        api.msg.note(text, context, code=code, parent_error=info)


_SOURCE: list[tuple[object, list[str]]] = []


def _suppressed(api: CheckerPluginInterface, code: str, line: int) -> bool:
    """NOTE [ The checker's comment ]
    `# typedtensor: ignore[...]` (the checker's own form, DESIGN §6) silences the plugin's
    reports too, with the checker's meaning (typedtensor/_suppress.py): both tools then agree on
    every line. mypy reads only `# type: ignore`, so the plugin looks at the line of each error it
    is about to report (errors are rare: only a reporting call reads the source, through mypy's
    own cached reader). mypy's own `arg-type`/`assignment`/`return-value` errors do not pass
    here: only `# type: ignore[...]` silences those."""
    if line is None or line < 1:
        return False
    lines = _source_lines(api)
    if lines is None or line > len(lines):
        return False
    return is_suppressed(code, lines[line - 1], OWN)


def _source_lines(api: CheckerPluginInterface) -> list[str] | None:
    """The lines of the file being checked, read once per parsed file (the cache entry holds the
    file's tree: a re-parse under the daemon is a new tree, so an edit is seen)."""
    tree = getattr(api, "tree", None)
    if tree is not None and _SOURCE and _SOURCE[0][0] is tree:
        return _SOURCE[0][1]
    read = getattr(api.msg.errors, "read_source", None)
    lines: list[str] | None = None
    if read is not None:
        lines = read(api.path)
    if lines is None:
        try:
            with open(api.path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError):
            return None
    if tree is not None:
        _SOURCE[:] = [(tree, lines)]
    return lines


def report_lint(api: CheckerPluginInterface, code: str, message: str, context: Context) -> None:
    """Report a lint (`LINT_CODES`), unless its line's `# typedtensor: ignore[...]` says not to."""
    error_code = LINT_CODES[code]
    if not _suppressed(api, code, context.line):
        api.fail(message, context, code=error_code)
