"""Output formats: mypy-like text, a JSON array, GitHub workflow commands and SARIF 2.1.0.

Each format imports what it needs (``json``, ``urllib.parse``, the explanations) when it runs: the
text a warm run prints needs none of them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .report import Report

TOOL_NAME: Final = "typedtensor-check"
SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
#: The repository's home; pyproject.toml's [project.urls] names the same one (a test keeps them equal).
REPOSITORY_URL: Final = "https://github.com/typedtensor/typedtensor"
#: Each rule's ``helpUri`` is this page with the code as its anchor (SARIF wants an absolute URI).
DOCS_URL: Final = f"{REPOSITORY_URL}/blob/main/docs/checker.md"


def text(reports: Sequence[Report], summary: bool = True, files: int = 0) -> str:
    lines = []
    for r in reports:
        if r.severity == "note":
            lines.append(f"{r.path}:{r.line}:{r.column}: note: {r.message}")
        else:
            lines.append(f"{r.path}:{r.line}:{r.column}: {r.severity}: {r.message}  [{r.code}]")
    if summary:
        errors = sum(r.severity == "error" for r in reports)
        paths = len({r.path for r in reports if r.severity == "error"})
        if errors:
            lines.append(f"Found {errors} error{'s' * (errors != 1)} in {paths} "
                         f"file{'s' * (paths != 1)} (checked {files} source file{'s' * (files != 1)})")
        else:
            lines.append(f"Success: no issues found in {files} source file{'s' * (files != 1)}")
    return "\n".join(lines) + ("\n" if lines else "")


def json_array(reports: Sequence[Report]) -> str:
    import json

    return json.dumps([r.to_json() for r in reports], indent=2) + "\n"


def _gh_escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_prop(s: str) -> str:
    return _gh_escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(reports: Sequence[Report]) -> str:
    """Workflow commands (``::error file=...::message``), shown as annotations on a PR's diff."""
    out = []
    for r in reports:
        kind = {"error": "error", "warning": "warning", "note": "notice"}[r.severity]
        props = (f"file={_gh_escape_prop(r.path)},line={r.line},col={r.column},"
                 f"endLine={r.end_line},endColumn={r.end_column},title={_gh_escape_prop(r.code)}")
        out.append(f"::{kind} {props}::{_gh_escape_data(r.message + '  [' + r.code + ']')}")
    return "\n".join(out) + ("\n" if out else "")


def _artifact(path: str) -> dict[str, str]:
    """A relative path is relative to the source root (what code scanning expects); an absolute one
    becomes a file URI."""
    from urllib.parse import quote

    posix = path.replace("\\", "/")
    if os.path.isabs(path):
        return {"uri": "file://" + quote(posix if posix.startswith("/") else "/" + posix)}
    return {"uri": quote(posix), "uriBaseId": "%SRCROOT%"}


def sarif(reports: Sequence[Report], version: str = "0") -> str:
    """A SARIF 2.1.0 log with one run, one rule per code used (GitHub code scanning reads it)."""
    import json

    from .explain import explanations

    codes = sorted({r.code for r in reports} | set(explanations()))
    rules: list[dict[str, Any]] = []
    for code in codes:
        info = explanations().get(code)
        summary = info.summary if info else code
        rules.append({
            "id": code,
            "name": code,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": info.detail if info else summary},
            "helpUri": f"{DOCS_URL}#{code}",
            "defaultConfiguration": {"level": "note" if code in ("reveal", "show-shape") else "error"},
        })
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for r in reports:
        results.append({
            "ruleId": r.code,
            "ruleIndex": index[r.code],
            "level": r.severity,
            "message": {"text": r.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _artifact(r.path),
                    "region": {
                        "startLine": r.line, "startColumn": r.column,
                        "endLine": r.end_line, "endColumn": r.end_column,
                    },
                }
            }],
        })
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": version,
                "rules": rules,
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return json.dumps(log, indent=2) + "\n"


FORMATS: Final[dict[str, Callable[..., str]]] = {
    "text": text, "json": json_array, "github": github, "sarif": sarif,
}
