"""``nn.Module``: the container of parameters, buffers and sub-modules, with torch's API.

Attribute assignment registers: a ``Parameter`` goes to ``_parameters``, a ``Module`` to
``_modules``, a tensor assigned to a name made by ``register_buffer`` to ``_buffers``. Every walk
(``named_parameters``, ``state_dict``, ``to``) goes through these three dicts, in insertion order,
so names are the dotted paths torch produces and checkpoints line up with torch's."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, NamedTuple, TypeVar

from typedtensor._runtime import _C, no_grad
from typedtensor.nn.parameter import Buffer, Parameter, is_lazy

T = TypeVar("T", bound="Module")
Tensor = Any  # the compiled class; untyped to mypy


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict(strict=False)`` skipped, as torch reports it."""

    missing_keys: list[str]
    unexpected_keys: list[str]


# the copies a running ``load_state_dict`` defers until every module has checked its entries
_PENDING_LOADS: ContextVar[list[tuple[Module, str, bool, Tensor]] | None] = ContextVar("_PENDING_LOADS", default=None)


def _shape(t: Any) -> list[int]:
    return [int(s) for s in t.shape]


class Module:
    """Base class of every layer; subclasses set attributes in ``__init__`` and write ``forward``."""

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent: set[str]
    _modules: dict[str, Module | None]

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())

    # ---- calling ----
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # ---- registration ----
    def _registries(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError(f"cannot assign to {type(self).__name__} before Module.__init__() call")
        return d["_parameters"], d["_buffers"], d["_modules"]

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Buffer):  # nn.Buffer registers itself, with its own persistence
            self.register_buffer(name, value, value.persistent)
            return
        if isinstance(value, Parameter):
            params, buffers, modules = self._registries()
            self.__dict__.pop(name, None)
            buffers.pop(name, None)
            modules.pop(name, None)
            params[name] = value
            return
        if isinstance(value, Module):
            params, buffers, modules = self._registries()
            self.__dict__.pop(name, None)
            params.pop(name, None)
            buffers.pop(name, None)
            modules[name] = value
            return
        d = self.__dict__
        if "_parameters" in d:
            if name in d["_parameters"]:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{type(value).__name__}' as parameter '{name}' (nn.Parameter or None expected)"
                    )
                d["_parameters"][name] = None
                return
            if name in d["_modules"]:
                if value is not None:
                    raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' (nn.Module or None expected)")
                d["_modules"][name] = None
                return
            if name in d["_buffers"]:
                if value is not None and not isinstance(value, _C.Tensor):
                    raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)")
                d["_buffers"][name] = value
                return
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            reg = d.get(registry)
            if reg is not None and name in reg:
                return reg[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            reg = self.__dict__.get(registry)
            if reg is not None and name in reg:
                del reg[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    @staticmethod
    def _check_name(kind: str, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"{kind} name can't be empty or contain \".\", got {name!r}")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._check_name("parameter", name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' as parameter '{name}' (nn.Parameter or None expected)")
        if name in self.__dict__ and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        self._registries()[0][name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._check_name("buffer", name)
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' as buffer '{name}' (Tensor or None expected)")
        if name in self.__dict__ or name in self._parameters or name in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._registries()[1][name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        self._check_name("module", name)
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if name in self.__dict__ and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._registries()[2][name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        mod: Module = self
        for part in target.split(".") if target else ():
            child = mod._modules.get(part)
            if child is None:
                raise AttributeError(f"{type(mod).__name__} has no submodule `{part}` (looking up '{target}')")
            mod = child
        return mod

    def get_parameter(self, target: str) -> Parameter:
        owner, _, name = target.rpartition(".")
        mod = self.get_submodule(owner)
        p = mod._parameters.get(name)
        if p is None:
            raise AttributeError(f"{type(mod).__name__} has no parameter `{name}` (looking up '{target}')")
        return p

    # ---- walks ----
    def named_modules(self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, c in self.named_children():
            yield c

    def _named_members(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else iter([(prefix, self)])
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{mod_prefix}.{name}" if mod_prefix else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes ----
    def train(self: T, mode: bool = True) -> T:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self: T) -> T:
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        if _C._graph_tracing():  # inside a compiled step: its gradients replace .grad after each call
            from typedtensor.graph.compiled import note_grad_reset

            note_grad_reset(self.parameters())
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                with no_grad():
                    g.zero_()

    def apply(self: T, fn: Callable[[Module], Any]) -> T:
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- devices and dtypes ----
    def _apply(self: T, fn: Callable[[Tensor], Tensor]) -> T:
        """Map every parameter and buffer through ``fn``; a parameter keeps its identity when ``fn``
        returns an alias of it (so optimisers built before ``.to`` stay valid)."""
        for mod in self.modules():
            for name, p in list(mod._parameters.items()):
                if p is None:
                    continue
                with no_grad():
                    new = fn(p)
                if new.dtype == p.dtype and new.device == p.device and new.is_set_to(p):
                    continue
                if is_lazy(p):  # still uninitialized: moved or cast in place, to materialize later
                    p.data = new
                    continue
                mod._parameters[name] = Parameter(new, p.requires_grad)
            for name, b in list(mod._buffers.items()):
                if b is not None:
                    with no_grad():
                        new = fn(b)
                    if is_lazy(b):
                        b.data = new
                    else:
                        mod._buffers[name] = new
        return self

    def to(self: T, *args: Any, **kwargs: Any) -> T:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``: dtype casts apply to floating tensors only."""
        cast_dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, _C.dtype):
                cast_dtype = a
            elif isinstance(a, _C.Tensor):
                cast_dtype = a.dtype
                device = a.device
            elif a is not None:
                device = a
        if cast_dtype is not None and not _is_floating_dtype(cast_dtype):
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={cast_dtype}")

        def move(t: Tensor) -> Tensor:
            if device is not None:
                t = t.to(device)
            if cast_dtype is not None and t.is_floating_point():
                t = t.to(cast_dtype)
            return t

        return self._apply(move)

    def cuda(self: T, device: Any = None) -> T:
        return self.to("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))

    def cpu(self: T) -> T:
        return self.to("cpu")

    def float(self: T) -> T:
        return self.to(_C.float32)

    def double(self: T) -> T:
        return self.to(_C.float64)

    def half(self: T) -> T:
        return self.to(_C.float16)

    # ---- state dicts ----
    def state_dict(self, destination: dict[str, Tensor] | None = None, prefix: str = "", keep_vars: bool = False) -> dict[str, Tensor]:
        """Parameters and persistent buffers by dotted name, detached (sharing storage) unless ``keep_vars``."""
        out: dict[str, Tensor] = OrderedDict() if destination is None else destination
        for mod_prefix, mod in self.named_modules(prefix=prefix.rstrip(".")):
            for name, p in mod._parameters.items():
                if p is not None:
                    out[f"{mod_prefix}.{name}" if mod_prefix else name] = p if keep_vars else p.detach()
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent:
                    out[f"{mod_prefix}.{name}" if mod_prefix else name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict: Mapping[str, Tensor], strict: bool = True, assign: bool = False) -> IncompatibleKeys:
        """Copy ``state_dict`` into this module's tensors after validating every entry first.

        As in torch, each module reads its own entries in ``_load_from_state_dict`` (given the
        entries under its prefix), so a module may override it to accept an older layout (drop or
        rename a key, then call ``super()``). Unlike torch, nothing is copied when any check fails:
        a shape mismatch always raises (naming the entry and both shapes); missing or unexpected
        names raise when ``strict``."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}")
        metadata = getattr(state_dict, "_metadata", None)
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        pending: list[tuple[Module, str, bool, Tensor]] = []

        # a module reached by two paths is loaded from both, as in torch; state_dict lists it under
        # the first only, so the second path's names are not missing
        seen: set[int] = set()

        def load(module: Module, local: dict[str, Tensor], prefix: str) -> None:
            again = id(module) in seen
            seen.add(id(module))
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local, prefix, local_metadata, True, [] if again else missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = f"{prefix}{name}."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)

        token = _PENDING_LOADS.set(pending)
        try:
            load(self, OrderedDict(state_dict), "")
        finally:
            _PENDING_LOADS.reset(token)
        if strict:
            head = []
            if unexpected:
                head.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                head.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
            errors[:0] = head
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors)
            )
        with no_grad():
            for mod, name, is_param, value in pending:
                mod._copy_loaded(name, is_param, value, assign)
        return IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(
        self,
        state_dict: dict[str, Tensor],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """torch's per-module step of ``load_state_dict``: this module's own parameters and
        persistent buffers from the entries named ``prefix + name``, checked (a missing name into
        ``missing_keys``, a wrong type or shape into ``error_msgs``) and copied; with ``strict``,
        an entry under ``prefix`` that names neither one of them nor a child goes into
        ``unexpected_keys``. Under ``load_state_dict`` the copies wait until every module has
        been checked."""
        local: dict[str, tuple[Tensor, bool]] = {}
        for name, p in self._parameters.items():
            if p is not None:
                local[name] = (p, True)
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                local[name] = (b, False)
        accepted: list[tuple[str, bool, Tensor]] = []
        for name, (current, is_param) in local.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, _C.Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected a Tensor, got {type(value).__name__}.')
            elif _shape(value) != _shape(current):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {_shape(value)} from checkpoint, "
                    f"the shape in current model is {_shape(current)}."
                )
            else:
                accepted.append((name, is_param, value))
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    first = key[len(prefix):].split(".", 1)[0]
                    if first not in self._modules and first not in local:
                        unexpected_keys.append(key)
        pending = _PENDING_LOADS.get()
        if pending is not None:
            pending.extend((self, name, is_param, value) for name, is_param, value in accepted)
            return
        with no_grad():
            for name, is_param, value in accepted:
                self._copy_loaded(name, is_param, value, bool(local_metadata.get("assign_to_params_buffers", False)))

    def _copy_loaded(self, name: str, is_param: bool, value: Tensor, assign: bool) -> None:
        if assign:
            if is_param:
                old = self._parameters[name]
                self._parameters[name] = Parameter(value, old.requires_grad if old is not None else True)
            else:
                self._buffers[name] = value
            return
        current = self._parameters[name] if is_param else self._buffers[name]
        assert current is not None  # only tensors that are set are loaded
        current.copy_(value)

    # ---- printing ----
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, child in self._modules.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        if not lines:
            return f"{type(self).__name__}()"
        if not self._modules and len(lines) == 1:
            return f"{type(self).__name__}({lines[0]})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _is_floating_dtype(dt: Any) -> bool:
    return dt in (_C.float16, _C.bfloat16, _C.float32, _C.float64)
