"""``tt.onnx.export``: trace, decide which named dims stay symbolic, emit ONNX, check, write."""

from __future__ import annotations

import contextlib
import inspect
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor.graph import _pytree
from typedtensor.graph.shapecheck import input_shapes
from typedtensor.onnx import _ops
from typedtensor.onnx._trace import Poly, Trace, ViewSlice, fit, run_trace
from typedtensor.shapes import fmt_dim
from typedtensor.shapes.dims import Poly as DimPoly

_C = _loader.load_core()

OPSET = 18
_ONNX_TYPES = {"bool": 9, "uint8": 2, "int32": 6, "int64": 7, "float16": 10, "bfloat16": 16, "float32": 1, "float64": 11}


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ImportError("tt.onnx.export writes the model with the onnx package, which is not installed: "
                          "pip install onnx (and onnxruntime to run the exported model)") from None
    return onnx


def _dtype_name(d: Any) -> str:
    return str(getattr(d, "name", None) or str(d).rpartition(".")[2])


class _NeedsFixing(Exception):
    """A number the export needs is no polynomial of these dims: export them fixed."""

    def __init__(self, symbols: set[str], why: str) -> None:
        super().__init__(why)
        self.symbols = symbols
        self.why = why


# ---------------------------------------------------------------- which dims are symbolic


@dataclass
class _Dims:
    """The named dims of the inputs: where each one is, its example size, why some are fixed."""

    axes: dict[str, list[tuple[int, int]]]  # dim -> (input index, axis)
    base: dict[str, int]
    fixed: dict[str, str]  # dim -> why it is exported with its traced size
    expected: set[str]  # of those, the ones fixed by the weights (the function fails at another size): no warning


def _named_dims(fn: Callable[..., Any], args: tuple[Any, ...], tensors: list[Any], names: list[str],
                dynamic_axes: Mapping[str, Any] | None, dynamic: bool) -> _Dims:
    axes: dict[str, list[tuple[int, int]]] = {}
    if dynamic:
        annotated = input_shapes(getattr(fn, "forward", fn), args, {}, tensors)
        for i, shape in enumerate(annotated):
            if shape is None:
                continue
            for a, d in enumerate(shape.prefix):
                if isinstance(d, DimPoly) and len(d.terms()) == 1 and d.terms()[0][0] == 1 and len(d.terms()[0][1]) == 1 \
                        and d.terms()[0][1][0][1] == 1:
                    axes.setdefault(fmt_dim(d), []).append((i, a))
    for key, spec in (dynamic_axes or {}).items():
        if key not in names:
            raise ValueError(f"tt.onnx.export: dynamic_axes names an input {key!r}; the inputs are {names}")
        i = names.index(key)
        pairs = spec.items() if isinstance(spec, Mapping) else ((a, f"{key}_dim{a}") for a in spec)
        for a, dim_name in pairs:
            rank = len(tensors[i].shape)
            if not -rank <= int(a) < rank:
                raise ValueError(f"tt.onnx.export: dynamic_axes: input {key!r} has no axis {a}")
            axes.setdefault(str(dim_name), []).append((i, int(a) % rank))
    base: dict[str, int] = {}
    for dim_name, where in axes.items():
        sizes = {int(tensors[i].shape[a]) for i, a in where}
        if len(sizes) != 1:
            raise ValueError(f"tt.onnx.export: the example inputs give {dim_name} the sizes {sorted(sizes)}")
        base[dim_name] = sizes.pop()
    return _Dims(axes, base, {}, set())


def _resized(tensors: list[Any], dims: _Dims, sizes: dict[str, int]) -> list[Any]:
    """The example inputs with each named dim at ``sizes`` (values repeated along it)."""
    out = list(tensors)
    for dim_name, where in dims.axes.items():
        if sizes.get(dim_name, dims.base[dim_name]) == dims.base[dim_name]:
            continue
        for i, a in where:
            index = _C.arange(sizes[dim_name]) % max(dims.base[dim_name], 1)
            out[i] = out[i].index_select(a, index)
    return out


class _Tracer:
    """Traces at given sizes of the named dims, each size once."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], tensors: list[Any], dims: _Dims) -> None:
        self.fn, self.args, self.tensors, self.dims = fn, args, tensors, dims
        self.cache: dict[tuple[tuple[str, int], ...], Trace | BaseException] = {}

    def at(self, sizes: dict[str, int]) -> Trace:
        key = tuple(sorted(sizes.items()))
        if key not in self.cache:
            leaves = _resized(self.tensors, self.dims, sizes)
            structure = _pytree.flatten((self.args, {}), lambda x: isinstance(x, _C.Tensor), [])
            args, _ = _pytree.unflatten(structure, leaves)
            try:
                self.cache[key] = run_trace(self.fn, args, sizes)
            except Exception as exc:
                self.cache[key] = exc
        found = self.cache[key]
        if isinstance(found, BaseException):
            raise found
        return found


def _same_constants(a: Trace, b: Trace) -> str | None:
    """Why two traces' constants differ (a shape or a value the function computed), or None."""
    for v, info in a.values.items():
        if info.kind not in ("capture", "const"):
            continue
        other = b.values[v]
        if tuple(info.shape) != tuple(other.shape):
            return f"a constant the function makes has shape {list(info.shape)}, then {list(other.shape)}"
        if info.data is not None and other.data is not None and info.data.numel() <= 1 << 20 \
                and info.data.data_ptr() != other.data.data_ptr() and not _equal(info.data, other.data):
            return f"a constant the function computes (shape {list(info.shape)}) changes with it"
    return None


def _check_constants_ignore_the_inputs(tracer: _Tracer, base: Trace) -> None:
    """Traces again with the inputs' values rolled: a constant that changes was computed from them
    outside the backend's primitives, and the exported graph would hold the example's values."""
    rolled = []
    for t in tracer.tensors:
        flat = t.reshape(-1)
        rolled.append(flat.roll(1, 0).reshape(*t.shape) if flat.numel() > 1 else t)
    structure = _pytree.flatten((tracer.args, {}), lambda x: isinstance(x, _C.Tensor), [])
    args, _ = _pytree.unflatten(structure, rolled)
    try:
        other = run_trace(tracer.fn, args, dict(tracer.dims.base))
    except Exception:
        return
    if other.structure != base.structure:
        return
    for v, info in base.values.items():
        if info.kind in ("capture", "const") and info.data is not None and other.values[v].data is not None \
                and info.data.data_ptr() != other.values[v].data.data_ptr() \
                and tuple(info.shape) == tuple(other.values[v].shape) and not _equal(info.data, other.values[v].data):
            raise ValueError(
                f"tt.onnx.export: the traced graph holds a tensor of shape {list(info.shape)} computed from the inputs "
                "outside the backend's primitives (tensor indexing such as table[ids] does this): the exported model "
                "would use the example's values; write it with the op (tt.nn.functional.embedding(ids, table), "
                "index_select, gather)")


def _equal(a: Any, b: Any) -> bool:
    a, b = a.detach(), b.detach()
    if _dtype_name(a.dtype) == "bfloat16":
        a, b = a.float(), b.float()
    return bool(np.array_equal(a.numpy(), b.numpy(), equal_nan=a.is_floating_point()))


class _Fits:
    """Every number of the base trace as a polynomial of the free dims, or None where it is not one."""

    def __init__(self, tracer: _Tracer, dims: _Dims) -> None:
        self.tracer, self.dims = tracer, dims
        self.free = [d for d in dims.base if d not in dims.fixed]
        self.base = tracer.at(dict(dims.base))
        self.polys: dict[tuple[Any, ...], Poly | None] = {}
        self._fit()

    def _sizes(self, moved: Sequence[str], by: int = 1) -> dict[str, int]:
        return {d: n + (by if d in moved else 0) for d, n in self.dims.base.items()}

    def _fit(self) -> None:
        if not self.free:
            self.polys = {k: Poly.const(v) for k, v in self.base.facts.items()}
            return
        corners: dict[frozenset[str], Trace] = {}
        for r in range(len(self.free) + 1):
            for subset in _subsets(self.free, r):
                corners[frozenset(subset)] = self.tracer.at(self._sizes(subset))
        check = self.tracer.at(self._sizes(self.free, 2))
        at_check = {d: self.dims.base[d] + 2 for d in self.free}
        for key in self.base.facts:
            if not all(key in t.facts for t in corners.values()) or key not in check.facts:
                self.polys[key] = None
                continue
            p = fit({c: t.facts[key] for c, t in corners.items()}, self.free, self.dims.base)
            self.polys[key] = p if p({**self.dims.base, **at_check}) == check.facts[key] else None

    def poly(self, key: tuple[Any, ...]) -> Poly:
        p = self.polys.get(key)
        if p is not None:
            return p
        moving = set()
        for d in self.free:
            probe = self.tracer.at(self._sizes([d]))
            if probe.facts.get(key) != self.base.facts.get(key):
                moving.add(d)
        raise _NeedsFixing(moving or set(self.free), f"a size the graph computes ({key[0]}) is not a polynomial of it")


def _subsets(items: Sequence[str], r: int) -> Iterator[tuple[str, ...]]:
    import itertools

    return itertools.combinations(items, r)


def _resolve(tracer: _Tracer, dims: _Dims) -> None:
    """Fixes the dims that cannot vary (NOTE [ Symbolic dims by tracing at several sizes ])."""
    base = tracer.at(dict(dims.base))
    for d in list(dims.base):
        if dims.base[d] == 1:
            dims.fixed[d] = "its example size is 1, which traces broadcasting, not the general case"
            continue
        sizes = {**dims.base, d: dims.base[d] + 1}
        try:
            probe = tracer.at(sizes)
        except Exception as exc:
            dims.fixed[d] = f"the function fails when it is {sizes[d]} instead of {dims.base[d]} ({type(exc).__name__}: {str(exc)[:160]})"
            dims.expected.add(d)
            continue
        if probe.structure != base.structure:
            dims.fixed[d] = "the traced graph changes with its size (control flow on the size?)"
            continue
        why = _same_constants(base, probe)
        if why:
            dims.fixed[d] = why


# ---------------------------------------------------------------- the ONNX graph


class Builder:
    """ONNX nodes and initializers, with fresh names and shared constants."""

    def __init__(self, onnx: Any) -> None:
        self.onnx = onnx
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._names: set[str] = set()
        self._consts: dict[Any, str] = {}

    def fresh(self, hint: str) -> str:
        name, n = hint, 0
        while name in self._names:
            n += 1
            name = f"{hint}_{n}"
        self._names.add(name)
        return name

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        out = self.fresh(f"{op.lower()}_out")
        self.nodes.append(self.onnx.helper.make_node(op, inputs, [out], name=self.fresh(op), **attrs))
        return out

    def const(self, array: np.ndarray, name: str | None = None, dtype: str | None = None) -> str:
        key = None
        if name is None and array.size <= 64:
            key = (str(array.dtype), dtype, array.shape, array.tobytes())
            if key in self._consts:
                return self._consts[key]
        out = self.fresh(name or "const")
        t = self.onnx.numpy_helper.from_array(np.ascontiguousarray(array), out)
        self.initializers.append(t)
        if key is not None:
            self._consts[key] = out
        return out

    def tensor(self, t: Any, name: str) -> str:
        """An initializer holding a typedtensor tensor (bfloat16 as its raw bits)."""
        t = t.detach().contiguous()
        dt = _dtype_name(t.dtype)
        out = self.fresh(name)
        if dt == "bfloat16":
            bits = (np.ascontiguousarray(t.float().numpy()).view(np.uint32) >> 16).astype("<u2")
            proto = self.onnx.helper.make_tensor(out, _ONNX_TYPES[dt], list(t.shape), bits.tobytes(), raw=True)
        else:
            proto = self.onnx.numpy_helper.from_array(np.ascontiguousarray(t.numpy()), out)
        self.initializers.append(proto)
        return out


class Context:
    """What an emitter (typedtensor/onnx/_ops.py) may ask: names, dtypes, numbers as polynomials."""

    def __init__(self, b: Builder, fits: _Fits, sym_source: dict[str, tuple[str, int]]) -> None:
        self.b = b
        self.fits = fits
        self.trace = fits.base
        self.values = fits.base.values
        self.sym_source = sym_source  # dim -> (input name, axis) that holds it at run time
        self.current = -1  # the index of the node being emitted
        self.names: dict[int, str] = {}
        self._users: set[int] = set()
        self._dims: dict[str, str] = {}
        self.widened: set[int] = set()  # bfloat16 values an emitter sees as float32 (_emit_widened)

    def dtype(self, vid: int) -> str:
        return "float32" if vid in self.widened else _dtype_name(self.values[vid].dtype)

    @staticmethod
    def onnx_type(dtype: str) -> int:
        return _ONNX_TYPES[dtype]

    def scalar(self, value: float | int, dtype: str) -> str:
        if dtype == "bfloat16":
            return self.b.node("Cast", [self.b.const(np.array(value, np.float32))], to=_ONNX_TYPES["bfloat16"])
        return self.b.const(np.array(value, _ops.NP_DTYPES[dtype]))

    def ints(self, values: Sequence[int], scalar: bool = False) -> str:
        return self.b.const(np.array(values[0] if scalar else list(values), np.int64))

    def zero_index(self) -> str:
        return self.ints([0], scalar=True)

    def as_bool(self, x: str, dtype: str) -> str:
        return x if dtype == "bool" else self.b.node("Cast", [x], to=_ONNX_TYPES["bool"])

    def view(self, k: int) -> ViewSlice | None:
        return self.trace.views.get(k)

    def used(self, vid: int) -> bool:
        return vid in self._users

    def fact(self, key: tuple[Any, ...]) -> Poly:
        return self.fits.poly(key)

    def shape_polys(self, vid: int) -> list[Poly]:
        return [self.fact(("shape", vid, a)) for a in range(len(self.values[vid].shape))]

    def dim(self, p: Poly) -> str:
        """A 1-element int64 tensor holding ``p`` at run time."""
        c = p.constant()
        if c is not None:
            return self.ints([c])
        key = str(p)
        if key not in self._dims:
            total = ""
            for names, coeff in p.terms:
                term = self.ints([coeff]) if not names or coeff != 1 else ""
                for n in names:
                    src, axis = self.sym_source[n]
                    s = self._dims.get(n) or self.b.node("Shape", [src], start=axis, end=axis + 1)
                    self._dims[n] = s
                    term = self.b.node("Mul", [term, s]) if term else s
                total = self.b.node("Add", [total, term]) if total else term
            self._dims[key] = total
        return self._dims[key]

    def shape_tensor(self, polys: Sequence[Poly]) -> str:
        consts = [p.constant() for p in polys]
        if all(c is not None for c in consts):
            return self.ints([int(c) for c in consts if c is not None])
        key = "shape:" + ",".join(str(p) for p in polys)
        if key not in self._dims:
            self._dims[key] = self.b.node("Concat", [self.dim(p) for p in polys], axis=0)
        return self._dims[key]

    def dim_tensor_product(self, polys: Sequence[Poly]) -> str:
        """A 0-d int64 tensor: the product of the dims."""
        total = Poly.const(1)
        for p in polys:
            total = _mul(total, p)
        c = total.constant()
        if c is not None:
            return self.ints([c], scalar=True)
        return self.b.node("Squeeze", [self.dim(total), self.ints([0])])


def _mul(a: Poly, b: Poly) -> Poly:
    out: dict[tuple[str, ...], int] = {}
    for na, ca in a.terms:
        for nb, cb in b.terms:
            key = tuple(sorted(na + nb))
            out[key] = out.get(key, 0) + ca * cb
    return Poly.make(out)


def _param_names(module: Any) -> dict[tuple[int, tuple[int, ...], tuple[int, ...], str], str]:
    names: dict[tuple[int, tuple[int, ...], tuple[int, ...], str], str] = {}
    for getter in ("named_parameters", "named_buffers"):
        fn = getattr(module, getter, None)
        if callable(fn):
            for name, t in fn():
                if t is not None:
                    names.setdefault((t.data_ptr(), tuple(t.shape), tuple(t.stride()), _dtype_name(t.dtype)), name)
    return names


def _widens(c: Context, n: Any) -> bool:
    """A bfloat16 elementwise op: the backend runs it on bfloat16 tensors directly (widening inside
    its kernel), but onnxruntime's CPU provider has no bfloat16 arithmetic, so the exported model
    computes it in float32 between Casts -- the same roundings (MatMul and Conv: _ops._in_float32)."""
    return n.op in _ops.ELEMENTWISE_PRIMS and any(v >= 0 and c.dtype(v) == "bfloat16" for v in n.inputs)


def _emit_widened(c: Context, n: Any, emit: Any, ins: list[str]) -> list[str]:
    f32 = _ONNX_TYPES["float32"]
    wide = [c.b.node("Cast", [x], to=f32) if v >= 0 and c.dtype(v) == "bfloat16" else x for v, x in zip(n.inputs, ins, strict=True)]
    back = [v for v in n.outputs if _dtype_name(c.values[v].dtype) == "bfloat16"]
    c.widened.update(v for v in n.inputs if v >= 0 and c.dtype(v) == "bfloat16")
    c.widened.update(back)
    try:
        outs = emit(c, n, wide)
    finally:
        c.widened.clear()
    return [c.b.node("Cast", [o], to=_ONNX_TYPES["bfloat16"]) if o and v in back else o
            for v, o in zip(n.outputs, outs, strict=True)]


def _value_info(onnx: Any, name: str, dtype: str, dims: Sequence[Poly | None]) -> Any:
    shape: list[Any] = []
    for p in dims:
        c = p.constant() if p is not None else None
        shape.append(c if c is not None else (p.symbol() or str(p)) if p is not None else None)
    return onnx.helper.make_tensor_value_info(name, _ONNX_TYPES[dtype], shape)


def _build(onnx: Any, fits: _Fits, dims: _Dims, names: list[str], output_names: list[str], module: Any,
           doc: str) -> Any:
    trace = fits.base
    b = Builder(onnx)
    for reserved in names + output_names:
        b.fresh(reserved)
    sym_source: dict[str, tuple[str, int]] = {}
    for d in fits.free:
        for i, a in dims.axes[d]:
            if fits.polys.get(("shape", trace.graph.inputs[i], a)) == Poly.make({(d,): 1}):
                sym_source.setdefault(d, (names[i], a))
    c = Context(b, fits, sym_source)
    for n in trace.nodes:
        c._users.update(v for v in n.inputs if v >= 0)
    c._users.update(trace.graph.outputs)
    params = _param_names(module)
    for i, v in enumerate(trace.graph.inputs):
        c.names[v] = names[i]
    for v, info in trace.values.items():
        if info.kind in ("capture", "const") and v in c._users:
            t = info.data
            key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), _dtype_name(t.dtype))
            c.names[v] = b.tensor(t, params.get(key, f"const_{v}"))
    for k, n in enumerate(trace.nodes):
        emit = _ops.EMITTERS.get(n.op)
        if emit is None or n.opaque:
            raise NotImplementedError(f"tt.onnx.export: primitive {n.op!r} has no ONNX form yet")
        c.current = k
        ins = [c.names[v] if v >= 0 else "" for v in n.inputs]
        outs = _emit_widened(c, n, emit, ins) if _widens(c, n) else emit(c, n, ins)
        for v, name in zip(n.outputs, outs, strict=True):
            if name:
                c.names[v] = name
    inputs = [_value_info(onnx, names[i], c.dtype(v), [fits.polys.get(("shape", v, a)) for a in range(len(trace.values[v].shape))])
              for i, v in enumerate(trace.graph.inputs)]
    outputs = []
    for name, v in zip(output_names, trace.graph.outputs, strict=True):
        b.nodes.append(onnx.helper.make_node("Identity", [c.names[v]], [name], name=b.fresh("output")))
        outputs.append(_value_info(onnx, name, c.dtype(v), [fits.polys.get(("shape", v, a)) for a in range(len(trace.values[v].shape))]))
    graph = onnx.helper.make_graph(b.nodes, "typedtensor", inputs, outputs, b.initializers, doc_string=doc)
    from typedtensor import __version__

    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)],
                                   producer_name="typedtensor", producer_version=__version__)
    model.ir_version = min(model.ir_version, 10)  # what onnxruntime releases of this opset read
    symbolic = [d for d in fits.free if d in sym_source]
    onnx.helper.set_model_props(model, {"typedtensor.symbolic_dims": ",".join(symbolic),
                                        **{f"typedtensor.fixed.{d}": why for d, why in dims.fixed.items()}})
    return model


@contextlib.contextmanager
def _eval_mode(module: Any) -> Iterator[None]:
    training = getattr(module, "training", None)
    if training is None or not callable(getattr(module, "train", None)):
        yield
        return
    module.train(False)
    try:
        yield
    finally:
        module.train(training)


def _input_names(fn: Callable[..., Any], args: tuple[Any, ...], count: int) -> list[str]:
    try:
        params = list(inspect.signature(getattr(fn, "forward", fn)).parameters)
    except (TypeError, ValueError):
        params = []
    names: list[str] = []
    for i, a in enumerate(args):
        leaves: list[Any] = []
        _pytree.flatten(a, lambda x: isinstance(x, _C.Tensor), leaves)
        base = params[i] if i < len(params) and params[i] not in ("self", "args", "kwargs") else f"input{i}"
        names += [base] if len(leaves) == 1 else [f"{base}_{j}" for j in range(len(leaves))]
    return names[:count] if len(names) >= count else [f"input{i}" for i in range(count)]


def export(model_or_fn: Callable[..., Any], example_inputs: Any, f: str | os.PathLike[str] | IO[bytes] | None = None, *,
           input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None,
           dynamic_axes: Mapping[str, Any] | None = None, dynamic: bool = True, opset_version: int = OPSET) -> Any:
    """Export a module or function to ONNX (opset 18) from its traced graph; returns the ``onnx.ModelProto``
    and writes it to ``f`` when given (docs/graph-mode.md, "ONNX export").

    The named dims of the forward's annotations (``x: Tensor[Batch, In]``) become symbolic ONNX dims
    (``dim_param="Batch"``), so the model accepts other sizes of them; ``dynamic_axes`` (torch's
    form: ``{"x": {0: "batch"}}`` or ``{"x": [0]}``) adds dims, ``dynamic=False`` fixes all. A dim
    that cannot vary is exported with its traced size and a warning saying why (NOTE [ Symbolic
    dims by tracing at several sizes ]). A Module is traced in eval mode, without gradients."""
    onnx = _onnx()
    if opset_version != OPSET:
        raise ValueError(f"tt.onnx.export writes opset {OPSET}; opset_version={opset_version} is not supported")
    args = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    tensors: list[Any] = []
    _pytree.flatten((args, {}), lambda x: isinstance(x, _C.Tensor), tensors)
    names = list(input_names) if input_names is not None else _input_names(model_or_fn, args, len(tensors))
    if len(names) != len(tensors) or len(set(names)) != len(names):
        raise ValueError(f"tt.onnx.export: {len(tensors)} tensor inputs need as many distinct input_names, got {names}")
    with _eval_mode(model_or_fn):
        dims = _named_dims(model_or_fn, args, tensors, names, dynamic_axes, dynamic)
        tracer = _Tracer(model_or_fn, args, tensors, dims)
        base = tracer.at(dict(dims.base))
        _check_constants_ignore_the_inputs(tracer, base)
        n_out = len(base.graph.outputs)
        outs = list(output_names) if output_names is not None else (["output"] if n_out == 1 else [f"output{i}" for i in range(n_out)])
        if len(outs) != n_out or set(outs) & set(names) or len(set(outs)) != n_out:
            raise ValueError(f"tt.onnx.export: {n_out} outputs need as many distinct output_names, not input names; got {outs}")
        _resolve(tracer, dims)
        while True:
            try:
                fits = _Fits(tracer, dims)
            except Exception as exc:
                free = [d for d in dims.base if d not in dims.fixed]
                for d in free:
                    dims.fixed[d] = f"tracing with {', '.join(free)} changed together fails ({type(exc).__name__}: {str(exc)[:120]})"
                continue
            try:
                doc = f"exported from {getattr(model_or_fn, '__qualname__', type(model_or_fn).__name__)}"
                model = _build(onnx, fits, dims, names, outs, model_or_fn, doc)
                break
            except _NeedsFixing as need:
                for d in need.symbols:
                    dims.fixed[d] = need.why
    for d, why in dims.fixed.items():
        if d in dims.expected:
            continue
        warnings.warn(f"tt.onnx.export: {d} is exported with its traced size {dims.base[d]}: {why}", stacklevel=2)
    onnx.checker.check_model(model)
    if f is not None:
        onnx.save_model(model, f if not isinstance(f, os.PathLike) else os.fspath(f))
    return model


__all__ = ["export"]
