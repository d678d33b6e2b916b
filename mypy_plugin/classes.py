"""A hook on the user's `nn.Module` subclasses themselves (not on their calls).

NOTE [ An untyped __init__ checks nothing ]
mypy does not check the body of a function without annotations (`def __init__(self):`) unless
`check_untyped_defs` is set, and every attribute that body assigns is `Any`: `self.fc =
nn.Linear(784, 10)` leaves `self.fc(x)` in an annotated `forward` an `Any`, so no layer of the
model is checked, silently. mypy's own hint for this (`annotation-unchecked`) is shown only for an
annotation inside the unchecked body, which a model's `__init__` rarely has. So a Module subclass
with an annotated method and an unannotated `__init__` gets the same kind of note, with the same
code (`--disable-error-code annotation-unchecked` silences both).
"""

from __future__ import annotations

from mypy.errorcodes import ANNOTATION_UNCHECKED
from mypy.nodes import Decorator, FuncDef, OverloadedFuncDef
from mypy.plugin import ClassDefContext

from .members import record_registrations
from .names import PACKAGE

UNTYPED_INIT = (
    '"{cls}.__init__" has no annotations: mypy skips its body, so every layer it sets is "Any" and '
    'no call of one is checked; add "-> None" or set check_untyped_defs = True'
)


def module_class_hook(ctx: ClassDefContext) -> None:
    """A Module subclass, while mypy analyses it: the names its methods register (NOTE [ Registered
    attributes ] in members.py), and the note of NOTE [ An untyped __init__ checks nothing ]."""
    if ctx.cls.info.fullname.startswith(PACKAGE + "."):
        return  # the stubs' own classes register nothing and are annotated
    record_registrations(ctx.cls.info)
    _untyped_init(ctx)


def _untyped_init(ctx: ClassDefContext) -> None:
    if ctx.api.options.check_untyped_defs:
        return
    info = ctx.cls.info
    init = info.names.get("__init__")
    if init is None or not isinstance(init.node, FuncDef) or not init.node.is_dynamic():
        return
    if not any(_annotated(sym.node) for name, sym in info.names.items() if name != "__init__"):
        return
    note = getattr(ctx.api, "note", None)  # the semantic analyser has it; its plugin interface does not say so
    if note is not None:
        note(UNTYPED_INIT.format(cls=info.name), init.node, code=ANNOTATION_UNCHECKED)


def _annotated(node: object) -> bool:
    if isinstance(node, Decorator):
        node = node.func
    if isinstance(node, (FuncDef, OverloadedFuncDef)):
        return not node.is_dynamic()
    return False
