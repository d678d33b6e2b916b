"""``optim.Optimizer``: parameter groups, per-parameter state and torch's state-dict layout.

Subclasses write ``_update(group, param, grad, state)``; ``step`` walks the groups under
``no_grad`` and calls it for every parameter that has a gradient, so updates are in-place tensor
ops that the autograd engine never records. An optimizer whose step is not per-parameter (LBFGS)
overrides ``step`` itself. Every ``step`` a subclass defines runs the step hooks (global and per
optimizer) and records that it ran, which the learning-rate schedulers check (torch's warning when
``scheduler.step()`` comes first).

``state`` is a ``defaultdict(dict)`` keyed by parameter, as in torch, so a hand-written optimizer
may write ``self.state[p]["buf"]`` without first creating the entry.

NOTE [ Compiled optimizer steps ]
``tt.compile`` of a function that calls ``loss.backward()`` and ``opt.step()`` traces the update
into the step's graph: parameters and state are captured tensors the function writes in place, so
they are write-backs (NOTE [ Write-backs ] in typedtensor/graph/compiled.py), and the fuser turns
each parameter's update into one elementwise kernel that writes the parameter and its state in
place (NOTE [ In-place write-backs ] in backend/src/graph/executor.cpp). The trace runs the step
once, and its Python control flow is frozen into the graph, so a traced step keeps out of it what
changes from step to step: state created on the first step is declared persistent (captured by
reference, not a constant of the graph), first-step branches (SGD's momentum buffer) are replaced by
the general update on zero state (the same numbers), and the step count stays a tensor from which
the graph computes, in float64 at every call, what depends on it (bias corrections, NAdam's momentum
product, Adagrad's decayed rate; RAdam selects its form with ``where``). The groups' options (the
learning rate an LR scheduler changes) are constants of the graph: the step guards them, and a call
that finds them changed traces again (NOTE [ Trace guards ] in typedtensor/graph/compiled.py). Eager
steps run exactly as before. An optimizer that does not declare ``_traced_first_step`` (a
hand-written one) is refused at a traced first step: one eager step first makes its state, which
the graph then reads and writes by reference.
"""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from typedtensor._runtime import _C, no_grad

Tensor = Any
StepHook = Callable[..., Any]


class _RequiredParameter:
    """Marks a hyper-parameter without a default (torch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _RequiredParameter()

_GLOBAL_PRE_HOOKS: OrderedDict[int, StepHook] = OrderedDict()
_GLOBAL_POST_HOOKS: OrderedDict[int, StepHook] = OrderedDict()


class RemovableHandle:
    """What the ``register_*_hook`` calls return: ``remove()`` takes the hook out again."""

    _next_id = 0

    def __init__(self, hooks: OrderedDict[int, Any]) -> None:
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def register_optimizer_step_pre_hook(hook: StepHook) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's ``step`` (torch's global hook)."""
    handle = RemovableHandle(_GLOBAL_PRE_HOOKS)
    _GLOBAL_PRE_HOOKS[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: StepHook) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    handle = RemovableHandle(_GLOBAL_POST_HOOKS)
    _GLOBAL_POST_HOOKS[handle.id] = hook
    return handle


def _is_tensor(x: object) -> bool:
    return isinstance(x, _C.Tensor)


def _step_with_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        for hook in (*_GLOBAL_PRE_HOOKS.values(), *self._step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(self, *args, **kwargs)
        self._opt_called = True
        for hook in (*self._step_post_hooks.values(), *_GLOBAL_POST_HOOKS.values()):
            hook(self, args, kwargs)
        return out

    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    defaults: dict[str, Any]
    param_groups: list[dict[str, Any]]
    state: defaultdict[Tensor, dict[str, Any]]
    _state_like_params = True  # each state tensor has its parameter's shape (not so for LBFGS)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _step_with_hooks(step)  # type: ignore[method-assign]

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._step_pre_hooks: OrderedDict[int, StepHook] = OrderedDict()
        self._step_post_hooks: OrderedDict[int, StepHook] = OrderedDict()
        self._opt_called = False
        if _is_tensor(params):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but got a Tensor")
        if isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs; use a list instead")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (``{"params": [...], "lr": ...}``); unspecified options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if _is_tensor(params):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs; use a list instead")
        else:
            params = list(params)
        for p in params:
            if not _is_tensor(p):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop every gradient (``set_to_none``, torch's default) or zero it in place."""
        if _C._graph_tracing():  # inside a compiled step: its gradients replace .grad after each call
            from typedtensor.graph.compiled import note_grad_reset

            note_grad_reset(p for group in self.param_groups for p in group["params"])
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    with no_grad():
                        g.zero_()

    def register_step_pre_hook(self, hook: StepHook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before this optimizer's steps; it may return new (args, kwargs)."""
        handle = RemovableHandle(self._step_pre_hooks)
        self._step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: StepHook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after this optimizer's steps."""
        handle = RemovableHandle(self._step_post_hooks)
        self._step_post_hooks[handle.id] = hook
        return handle

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            from typedtensor._runtime import enable_grad

            with enable_grad():
                loss = closure()
        if _C._graph_tracing():  # the hyper-parameters are frozen into the graph: re-trace when they change
            from typedtensor.graph.compiled import add_trace_guard

            add_trace_guard(self._hyperparameters)
        with no_grad():
            for group in self.param_groups:
                self._prepare_group(group)
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state.get(p)
                    if state is None:  # an entry appears only once the update keeps something (torch's layout)
                        state = {}
                        self._update(group, p, grad, state)
                        if state and not self._traced_first_step and _C._graph_tracing():
                            raise NotImplementedError(
                                f"tt.compile: {type(self).__name__} creates its state at its first step, which a "
                                "compiled step would redo at every call; run one step eagerly before compiling "
                                "the training step (NOTE [ Compiled optimizer steps ])")
                        if state:
                            self.state[p] = state
                    else:
                        self._update(group, p, grad, state)
        return loss

    def _hyperparameters(self) -> list[Any]:
        """What a traced step reads from the groups (NOTE [ Trace guards ] in typedtensor/graph/compiled.py):
        every option but the parameters, and which parameters."""
        return [({k: v for k, v in g.items() if k != "params"}, [id(p) for p in g["params"]]) for g in self.param_groups]

    #: Whether a traced first step is the general step on persistent zero state (NOTE [ Compiled
    #: optimizer steps ]); an optimizer that does not say so is refused there.
    _traced_first_step = False

    def _prepare_group(self, group: dict[str, Any]) -> None:
        """Hook run once per group and step (e.g. to validate hyper-parameters)."""

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        raise NotImplementedError

    # ---- state dicts (torch's layout: params by index across groups) ----
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``, as torch writes it."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict of this layout (ours or torch's, with its tensors converted)."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("optimizer state_dict must be a dict with 'state' and 'param_groups'")
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for i, (mine, theirs) in enumerate(zip(self.param_groups, saved, strict=False)):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group ({i}) that doesn't match the size of optimizer's group: "
                    f"{len(theirs['params'])} vs {len(mine['params'])} parameters"
                )
        by_index = {
            idx: p for mine, theirs in zip(self.param_groups, saved, strict=False) for idx, p in zip(theirs["params"], mine["params"], strict=False)
        }
        new_state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            k = int(key)
            if k not in by_index:
                raise ValueError(f"optimizer state_dict has state for parameter {k}, which no group lists")
            p = by_index[k]
            new_state[p] = {name: self._cast_state(p, name, v) for name, v in value.items()}
        for mine, theirs in zip(self.param_groups, saved, strict=False):
            for name, v in theirs.items():
                if name != "params":
                    mine[name] = copy.deepcopy(v)
        self.state = new_state

    @classmethod
    def _cast_state(cls, param: Tensor, name: str, value: Any, nested: bool = False) -> Any:
        """State tensors follow the parameter's dtype (torch's rule; ``step`` counters stay as they
        are); lists and dicts of tensors (LBFGS's history) are cast element by element."""
        if isinstance(value, dict):
            return {k: cls._cast_state(param, k, v, True) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(cls._cast_state(param, name, v, True) for v in value)
        if name == "step" and isinstance(value, (int, float)) and not nested and cls._state_like_params:
            return _C.tensor(float(value), dtype=_C.float32)  # an older state dict's plain counter
        if not _is_tensor(value):
            return copy.deepcopy(value)
        if name != "step" and value.is_floating_point():
            if cls._state_like_params and not nested and value.ndim > 0 and [int(s) for s in value.shape] != [int(s) for s in param.shape]:
                raise ValueError(
                    f"optimizer state '{name}' has shape {list(value.shape)}, but its parameter has {list(param.shape)}"
                )
            return value.to(param.dtype).clone()
        return value.clone()

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {k}: {group[k]}" for k in sorted(group) if k != "params")
        lines.append(")")
        return "\n".join(lines)


Optimizer.step = _step_with_hooks(Optimizer.step)  # type: ignore[method-assign]
