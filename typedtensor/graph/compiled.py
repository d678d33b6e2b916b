"""``tt.compile``: trace at the first call, optimise, cache per input signature, re-trace on change.

Tracing runs the function once, eagerly, on the example inputs while a tracer records every
primitive the backend applies. Python control flow (``if``, loops, ``.item()`` comparisons) is
therefore resolved at trace time: the graph holds the branch the example inputs took. The guard
(shapes, dtypes, devices, requires_grad of the tensor arguments, the values of every non-tensor
argument, grad mode and a Module's ``training`` flag) re-traces when any of these change, which is
what keeps a resolved branch valid for the inputs it is reused for. Tensors the function closes
over (a Module's parameters) are captured by reference: in-place updates are seen on the next call.

NOTE [ The compile cache ]
Each new signature traces a new graph, and a graph holds its buffers. So a compiled function keeps at
most ``cache_limit`` graphs (default 8), the least recently used dropped first: memory stays bounded
however many shapes it sees (unbounded, 3,000 shapes cost +455 MB). A function that traces more
signatures than that is re-compiling on every new shape (a "recompile storm": a data loader with
ragged batches, a Python number that changes each call): it warns once with ``RecompileWarning``,
which says how to avoid it. torch.compile stops re-compiling after 8 signatures (its
``recompile_limit``) and runs the function eagerly from then on; here the function goes on being
compiled and the cache keeps the recent graphs, so a workload that cycles through a few shapes
stays compiled.

NOTE [ Differentiable outputs ]
A graph's outputs carry no autograd history: its backward, where there is one, is traced into the
same graph (a training step that calls ``loss.backward()`` inside). ``model = torch.compile(model)``
followed by ``model(x).backward()`` outside -- torch's most common use, which torch serves by
tracing a separate backward graph (AOTAutograd) -- would therefore leave the parameters without
gradients. So a call whose trace computed no gradients but returned outputs that require grad (grad
mode on, inputs or parameters that require grad) is not served by a graph: the function runs
eagerly for that signature, with its autograd graph, and warns once (``EagerFallbackWarning``). The
same module under ``no_grad()``/``eval()`` runs its graph, and so does a compiled training step."""

from __future__ import annotations

import os
import sys
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime import no_grad as _no_grad
from typedtensor.graph import _pytree, shapecheck
from typedtensor.graph.ir import PASSES, Graph

_C = _loader.load_core()


#: Graphs a compiled function keeps by default (NOTE [ The compile cache ]).
DEFAULT_CACHE_LIMIT = 8


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn`` called from the caller of this function that names the
    innermost frame outside the typedtensor package (the user's call)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level


@dataclass
class _TraceNotes:
    """What library code tells a trace under way about Python state it froze or reset."""

    guards: list[tuple[Callable[[], Any], Any]] = field(default_factory=list)  # NOTE [ Trace guards ]
    grad_resets: set[int] = field(default_factory=set)  # ids of tensors whose .grad the function reset


_TRACES: list[_TraceNotes] = []  # the traces under way, innermost last


def add_trace_guard(read: Callable[[], Any]) -> None:
    """NOTE [ Trace guards ]
    Called while ``tt.compile`` traces: the graph is valid only while ``read()`` returns what it
    returns now (Python state the trace froze into the graph, such as an optimizer's learning rate,
    which an LR scheduler changes between steps). A call that finds another value traces the
    function again and keeps the new graph in the old one's place (torch.compile guards alike).
    Outside a trace it does nothing."""
    if _TRACES:
        _TRACES[-1].guards.append((read, read()))


def note_grad_reset(tensors: Any) -> None:
    """Called while ``tt.compile`` traces a function that resets these tensors' gradients
    (``opt.zero_grad()`` inside a training step): after each call their ``.grad`` is the graph's
    gradient, not the gradient added to what ``.grad`` held before the call."""
    if _TRACES:
        _TRACES[-1].grad_resets.update(id(t) for t in tensors)


class RecompileWarning(UserWarning):
    """A compiled function keeps tracing new input signatures (NOTE [ The compile cache ])."""


class EagerFallbackWarning(UserWarning):
    """A compiled function's outputs are differentiated outside it, so it runs eagerly (NOTE
    [ Differentiable outputs ])."""


def _is_tensor(x: Any) -> bool:
    return isinstance(x, _C.Tensor)


@dataclass
class _Entry:
    graph: Graph | None  # None: the function runs eagerly (NOTE [ Differentiable outputs ])
    out_structure: Any
    n_out: int  # the function's own outputs; then parameter gradients, then write-backs
    grad_params: list[int] = field(default_factory=list)  # which params those gradients belong to
    ir_log: list[tuple[str, str]] = field(default_factory=list)
    # NOTE [ Write-backs ]: (graph output, argument position or None, captured tensor or None) for
    # every argument and captured tensor the function writes in place: copied into it after each call
    writebacks: list[tuple[int, int | None, Any]] = field(default_factory=list)
    guards: list[tuple[Callable[[], Any], Any]] = field(default_factory=list)  # NOTE [ Trace guards ]
    assign_grads: list[bool] = field(default_factory=list)  # per grad_params: .grad = g, not += g


class CompiledFunction:
    """A function (or Module) compiled into graphs, one per input signature."""

    def __init__(
        self,
        fn: Callable[..., Any],
        passes: Sequence[str] | None,
        freeze: bool,
        check_shapes: bool,
        log_ir: bool,
        params: Sequence[Any] | None = None,
        cache_limit: int = DEFAULT_CACHE_LIMIT,
    ) -> None:
        for p in passes if passes is not None else ():
            if p not in PASSES:
                raise ValueError(f"tt.compile: unknown pass {p!r} (known: {', '.join(PASSES)})")
        if isinstance(cache_limit, bool) or not isinstance(cache_limit, int) or cache_limit < 1:
            raise ValueError(f"tt.compile: cache_limit must be a positive int, got {cache_limit!r}")
        self.fn = fn
        self.passes: tuple[str, ...] = tuple(PASSES if passes is None else passes)
        self.freeze = freeze
        self.check_shapes = check_shapes
        self.log_ir = log_ir
        self._params = list(params) if params is not None else None
        self.cache_limit = cache_limit
        self._cache: OrderedDict[Any, _Entry] = OrderedDict()  # least recently used first
        self.traces = 0
        self._warned: set[type[UserWarning]] = set()
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)

    # ---- guards ----
    def _signature(self, structure: Any, tensors: list[Any]) -> Any:
        sig = tuple((tuple(t.shape), str(t.dtype), str(t.device), bool(t.requires_grad)) for t in tensors)
        training = getattr(self.fn, "training", None)
        grads = tuple(bool(p.requires_grad) for p in self.params())
        # a trace holds the casts autocast made while it ran (docs/amp.md): another autocast state retraces
        autocast = tuple((bool(_C._autocast_is_enabled(d)), str(_C._autocast_get_dtype(d))) for d in ("cpu", "cuda"))
        return (_pytree.guard_key(structure), sig, bool(_C.is_grad_enabled()), training, grads, _aliases(tensors),
                autocast)

    def params(self) -> list[Any]:
        """The tensors whose ``.grad`` a traced ``backward()`` sets: ``params=`` or a Module's."""
        if self._params is not None:
            return self._params
        parameters = getattr(self.fn, "parameters", None)
        return list(parameters()) if callable(parameters) else []

    def graph_for(self, *args: Any, **kwargs: Any) -> Graph:
        """The optimised graph these arguments run (tracing it if needed)."""
        graph = self._entry(args, kwargs)[0].graph
        if graph is None:
            raise RuntimeError("tt.compile: these arguments run the function eagerly, without a graph: its outputs "
                               "require grad and are differentiated outside it (NOTE [ Differentiable outputs ])")
        return graph

    def ir_log(self, *args: Any, **kwargs: Any) -> list[tuple[str, str]]:
        """[(stage, IR text)] from the trace through each pass (compile with log_ir=True)."""
        return list(self._entry(args, kwargs)[0].ir_log)

    def cache_size(self) -> int:
        return len(self._cache)

    def reset(self) -> None:
        """Forgets every graph (e.g. after rebinding a parameter to a new tensor)."""
        self._cache.clear()

    # ---- tracing ----
    def _entry(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[_Entry, list[Any]]:
        tensors: list[Any] = []
        structure = _pytree.flatten((args, kwargs), _is_tensor, tensors)
        key = self._signature(structure, tensors)
        entry = self._cache.get(key)
        if entry is not None and all(read() == seen for read, seen in entry.guards):
            self._cache.move_to_end(key)
            return entry, tensors
        # a new signature, or a guard changed (NOTE [ Trace guards ]): the new graph takes the old one's
        # place, so only a new signature can grow the cache
        entry = self._trace(structure, tensors, args, kwargs)
        self._cache[key] = entry
        self._cache.move_to_end(key)
        if len(self._cache) > self.cache_limit:
            self._cache.popitem(last=False)
            self._storm()
        return entry, tensors

    def _name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or type(self.fn).__name__

    def _warn_once(self, category: type[UserWarning], message: str) -> None:
        """Each kind of warning once per compiled function, attributed to the first caller outside
        typedtensor: a compiled function is reached directly, or through a compiled module's
        ``__call__`` and ``forward``, so no fixed stacklevel names the user's line."""
        if category in self._warned:
            return
        self._warned.add(category)
        warnings.warn(message, category, stacklevel=_user_stacklevel())

    def _storm(self) -> None:
        """Warn once that this function keeps re-compiling (NOTE [ The compile cache ])."""
        self._warn_once(RecompileWarning, (
            f"tt.compile: {self._name()} has been traced for {self.traces} different input signatures (shapes, "
            f"dtypes, devices, requires_grad or non-tensor arguments); only the {self.cache_limit} most recently used "
            "graphs are kept (cache_limit=). Each new signature traces and optimises the function again: pad inputs to "
            "a few fixed shapes, pass changing numbers as tensors, or leave this function uncompiled."))

    def _trace(self, structure: Any, tensors: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Entry:
        self.traces += 1
        params = self.params()
        # The trace runs the function eagerly once, but its results are discarded: every call, the
        # first included, returns what the graph computes (so the first call tests the graph too).
        stashed = [p.grad for p in params]  # a traced backward() sets .grad from None ...
        for p in params:
            p.grad = None
        tracer = _C._GraphTracer()
        aliases = tracer.begin([t.contiguous() for t in tensors])
        t_args, t_kwargs = _pytree.unflatten(structure, aliases)
        notes = _TraceNotes()
        _TRACES.append(notes)
        try:
            result = self.fn(*t_args, **t_kwargs)
            out_tensors: list[Any] = []
            out_structure = _pytree.flatten(result, _is_tensor, out_tensors)
            n_out = len(out_tensors)
            grad_params = [i for i, p in enumerate(params) if p.grad is not None]
            new_grads = [params[i].grad for i in grad_params]
            eager = not grad_params and bool(_C.is_grad_enabled()) and any(t.requires_grad for t in out_tensors)
            if eager:  # NOTE [ Differentiable outputs ]
                tracer.abort()
            else:
                raw = tracer.finish(out_tensors + new_grads)  # ... and becomes an extra output
        except BaseException:
            tracer.abort()
            for p, g in zip(params, stashed, strict=True):
                p.grad = g
            raise
        finally:
            _TRACES.pop()
        for p, g in zip(params, stashed, strict=True):  # ... and the graph's run accumulates it
            p.grad = g
        if eager:
            self._warn_eager()
            return _Entry(None, out_structure, n_out)
        graph = Graph(raw)
        for k, i in enumerate(grad_params):
            if graph.value(graph.outputs[n_out + k]).kind != "node":
                raise NotImplementedError(f"tt.compile: the gradient of parameter {i} was not computed by the traced function")
        writebacks = _writebacks(graph, tracer.writebacks())
        if self.freeze:
            if any(t is not None for _, _, t in writebacks):
                raise ValueError("tt.compile: freeze=True turns captured tensors into constants, but this function writes "
                                 "one in place (BatchNorm's running statistics in training mode, an optimizer step); "
                                 "compile it without freeze")
            graph.freeze()
        log: list[tuple[str, str]] = []
        if self.log_ir:
            log.append(("trace", str(graph)))
        if self.check_shapes:
            fn = getattr(self.fn, "forward", self.fn)
            graph.symbolic = shapecheck.propagate(graph, shapecheck.input_shapes(fn, args, kwargs, tensors))
        for p in self.passes:
            graph.run_pass(p)
            if self.log_ir:
                log.append((p, str(graph)))
        assign = [id(params[i]) in notes.grad_resets for i in grad_params]
        return _Entry(graph, out_structure, n_out, grad_params, log, writebacks, notes.guards, assign)

    @staticmethod
    def _accumulate(params: list[Any], which: list[int], grads: list[Any], assign: list[bool]) -> None:
        with _no_grad():
            for i, g, fresh in zip(which, grads, assign, strict=True):
                p = params[i]
                if p.grad is None or fresh:
                    p.grad = g
                else:
                    p.grad.add_(g)

    def _warn_eager(self) -> None:
        """NOTE [ Differentiable outputs ]"""
        self._warn_once(EagerFallbackWarning, (
            f"tt.compile: the outputs of {self._name()} require grad and are differentiated outside the compiled "
            "function; it runs eagerly for such calls, so that backward() reaches its inputs and parameters. Compile "
            "the whole training step (the forward, loss.backward() and opt.step() in one function) to run it as a "
            "graph."))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        entry, tensors = self._entry(args, kwargs)
        if entry.graph is None:  # NOTE [ Differentiable outputs ]
            return self.fn(*args, **kwargs)
        outs = entry.graph(*[t if t.is_contiguous() else t.contiguous() for t in tensors])
        if entry.grad_params:
            self._accumulate(self.params(), entry.grad_params, outs[entry.n_out : entry.n_out + len(entry.grad_params)],
                             entry.assign_grads)
        if entry.writebacks:
            with _no_grad():
                for pos, arg, captured in entry.writebacks:
                    target = tensors[arg] if arg is not None else captured
                    if not _written_in_place(target, outs[pos]):
                        target.copy_(outs[pos])
        return _pytree.unflatten(entry.out_structure, outs[: entry.n_out])


def _written_in_place(target: Any, out: Any) -> bool:
    """Whether the graph already wrote ``out`` into ``target``'s memory (NOTE [ In-place
    write-backs ] in backend/src/graph/executor.cpp): then there is nothing to copy."""
    return bool(out is target or (out.untyped_storage_ptr() == target.untyped_storage_ptr()
                                  and out.storage_offset() == target.storage_offset()))


def _aliases(tensors: list[Any]) -> tuple[Any, ...]:
    """For every tensor argument i over the same memory as an earlier one j: i, j and where each
    lies in that memory. Part of the guard: a function that writes one argument in place reads the
    write through the other only when they alias, and the graph traced for one layout is wrong for
    another (torch.compile guards alike)."""
    first: dict[int, int] = {}
    out: list[Any] = []
    for i, t in enumerate(tensors):
        ptr = t.untyped_storage_ptr()
        if ptr:  # a size-0 tensor has no memory to share
            j = first.setdefault(ptr, i)
            if j != i:
                u = tensors[j]
                out.append((i, j, t.storage_offset(), tuple(t.stride()), u.storage_offset(), tuple(u.stride())))
    return tuple(out)


def _writebacks(graph: Graph, raw: list[tuple[int, int]]) -> list[tuple[int, int | None, Any]]:
    """NOTE [ Write-backs ]
    In-place writes inside a compiled function are functionalized (NOTE [ Functionalization ] in
    backend/src/graph/trace.cpp): the graph computes the written values out of place. Where the
    written tensor lives on after the call -- an argument, or a tensor the function closed over
    (BatchNorm's running statistics, a parameter an optimizer step updates) -- its final value is an
    extra graph output, copied into it after every call, as torch.compile does -- or, where a fused
    kernel computes that value last, written there by the kernel itself (NOTE [ In-place
    write-backs ] in backend/src/graph/executor.cpp). The trace restores
    what its eager run wrote, so the first call updates each tensor once, like the later ones."""
    inputs = graph.inputs
    out: list[tuple[int, int | None, Any]] = []
    for vid, pos in raw:
        info = graph.value(vid)
        out.append((pos, inputs.index(vid), None) if info.kind == "input" else (pos, None, info.data))
    return out


def compile(
    fn: Callable[..., Any] | None = None,
    passes: Sequence[str] | None = None,
    *,
    freeze: bool = False,
    check_shapes: bool = True,
    log_ir: bool = False,
    params: Sequence[Any] | None = None,
    cache_limit: int = DEFAULT_CACHE_LIMIT,
) -> Any:
    """Compile ``fn`` (a function or Module) into optimised graphs.

    ``passes`` picks and orders the pipeline (default ``tt.graph.PASSES``: simplify, fold, cse, dce,
    relu_pool, pool_sums, conv_pool, split_sums, hoist_scalars, fuse, epilogue, memplan); ``passes=[]``
    runs the captured graph as traced. ``freeze=True`` turns captured tensors into
    constants (their values at trace time), so constant folding can go through them.

    A training step: when ``fn`` calls ``loss.backward()``, the backward pass is traced into the same
    graph; the gradients of ``params`` (default: a Module's parameters) become extra outputs that are
    accumulated into each parameter's ``.grad`` after every call, as eager mode would. Usable as ``@tt.compile`` or
    ``@tt.compile(passes=[...])``.

    ``cache_limit`` bounds the graphs kept, one per input signature, least recently used dropped
    first; tracing more signatures than that warns once (``RecompileWarning``; NOTE [ The compile
    cache ]).

    A Module compiles into an ``OptimizedModule`` (typedtensor/graph/optimized_module.py), a Module
    as torch's. Outputs differentiated outside the compiled function run it eagerly (NOTE
    [ Differentiable outputs ])."""
    if fn is None:
        return lambda f: compile(f, passes, freeze=freeze, check_shapes=check_shapes, log_ir=log_ir, params=params,
                                 cache_limit=cache_limit)
    compiled = CompiledFunction(fn, passes, freeze, check_shapes, log_ir, params, cache_limit)
    from typedtensor.nn.module import Module

    if isinstance(fn, Module):
        from typedtensor.graph.optimized_module import OptimizedModule

        return OptimizedModule(fn, compiled)
    return compiled
