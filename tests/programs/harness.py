"""Runs a ported program once on torch and once on typedtensor, with the same weights, data and
random draws, and records every loss it computes.

A program here is a public training script ported with its imports pointed at typedtensor
(see README.md). For the torch run the harness copies the program into a scratch directory and
points the imports back at torch; nothing else in the text changes. Around each run it installs:

- **the same initial weights**: at the first call (or ``forward``) of any module, the state dict
  of every root module built so far (a module that no other one contains) is recorded in the
  torch run and loaded, root by root and in construction order, in the typedtensor run, so each program starts
  from torch's initialisation;
- **the same random draws**: ``randn``/``rand``/``randint``/``randperm`` (and their ``_like``
  forms), ``multinomial``, ``Tensor.bernoulli_`` (torchvision's stochastic depth),
  ``F.dropout``/``dropout2d`` masks, the attention-weight dropout of
  ``F.scaled_dot_product_attention`` and ``RandomSampler`` orders come from one numpy generator
  with the same seed in both runs (each library keeps its own generator otherwise), and Python's
  ``random`` starts from that seed in each run;
- **the losses**: ``Tensor.backward`` records the value of each scalar it starts from, and stops
  the program (``StopRun``) once the wanted number has been recorded; the indices ``multinomial``
  draws (a language model's samples) are recorded too.

A program may be several command lines run one after the other in one directory (``Program.then``:
training resumed from the checkpoint the first one wrote, then sampling from it): the weights are
synced once, at the first module call of the first, and the draws and losses run on across them.

A third run, on torch again with every initial weight moved by one float32 ulp, measures how far
float32 rounding alone moves the losses of that program: the comparison's yardstick (``Comparison``
says what is checked against it).
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import re
import runpy
import shlex
import shutil
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
STANDINS = HERE / "standins"
_IMPORT_LINE = re.compile(r"^(\s*)(import|from)(\s+)typedtensor\b", re.MULTILINE)


class StopRun(BaseException):
    """Raised from ``backward`` once enough losses are recorded (BaseException: programs catch Exception)."""


@dataclass(frozen=True)
class Program:
    """One ported program: its directory, the script run as ``__main__`` and its command line."""

    name: str
    script: str
    argv: tuple[str, ...]
    losses: int
    before: tuple[str, ...] = ()  # scripts run first in the same directory (e.g. a data generator)
    then: tuple[str, ...] = ()  # command lines run after the script, as the same run (``shlex`` syntax)
    directory: str = ""  # the program's folder here, where several entries run one program (default: name)
    prepare: Callable[[Path], None] | None = None  # writes the synthetic data files into the run directory
    per_step: int = 1  # losses computed per optimizer step (dcgan: D on real, D on fake, G)
    env: tuple[tuple[str, str], ...] = ()  # environment variables set for the run
    # appended to every command line of the torch runs: a flag whose torch path cannot run under the
    # harness (nanoGPT's --compile: inductor refuses the harness's patched functions), so typedtensor's
    # run with the flag is compared with torch's without it
    torch_extra: tuple[str, ...] = ()


@dataclass
class RunResult:
    losses: list[float]
    initial_state: list[tuple[str, dict[str, np.ndarray]]] = field(default_factory=list)
    stopped: bool = False
    draws: list[list[int]] = field(default_factory=list)  # what each multinomial call returned, flattened


def to_torch_source(text: str) -> str:
    """The torch twin of a ported file: only its import statements change back."""
    return _IMPORT_LINE.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}torch", text)


def _copy_tree(src: Path, dst: Path, lib: str) -> None:
    for path in src.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py" and lib == "torch":
            target.write_text(to_torch_source(path.read_text()))
        else:
            shutil.copyfile(path, target)


# ---------------------------------------------------------------- the two libraries
class _Lib:
    """What the harness touches in one library."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "torch":
            import torch
            import torch.nn.functional
            import torch.utils.data

            self.top: ModuleType = torch
            self.Module: type = torch.nn.Module
            self.Tensor: type = torch.Tensor
            self.F: ModuleType = torch.nn.functional
            self.samplers = [torch.utils.data.RandomSampler]
        else:
            import typedtensor
            import typedtensor.nn
            import typedtensor.nn.functional

            self.top = typedtensor
            self.Module = typedtensor.nn.Module
            self.Tensor = typedtensor.Tensor
            self.F = typedtensor.nn.functional
            data = importlib_optional("typedtensor.data")
            self.samplers = [s for s in (getattr(data, "RandomSampler", None),) if s is not None]

    def from_numpy(self, array: np.ndarray, dtype: Any = None) -> Any:
        t = self.top.from_numpy(np.array(array, order="C", copy=True))  # (ascontiguousarray makes 0-d 1-d)
        return t if dtype is None else t.to(dtype)

    def to_numpy(self, t: Any) -> np.ndarray:
        return np.array(t.detach().cpu().numpy(), copy=True)


def importlib_optional(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@contextlib.contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    had = name in vars(obj) if isinstance(obj, type) else hasattr(obj, name)
    old = getattr(obj, name, None)
    setattr(obj, name, value)
    try:
        yield
    finally:
        if had:
            setattr(obj, name, old)
        else:
            with contextlib.suppress(AttributeError):
                delattr(obj, name)


# ---------------------------------------------------------------- shared random draws
def _size(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, ...]:
    """``randn(2, 3)``, ``randn((2, 3))`` and ``randn(size=(2, 3))`` all mean shape (2, 3)."""
    if "size" in kwargs:
        args = (kwargs.pop("size"),)
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


class SharedRandom:
    """The random functions a program calls, drawn from one seeded numpy generator."""

    def __init__(self, lib: _Lib, seed: int) -> None:
        self.lib = lib
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.draws: list[list[int]] = []
        self.sdpa = lib.F.scaled_dot_product_attention

    def _out(self, array: np.ndarray, kwargs: dict[str, Any], default: Any) -> Any:
        t = self.lib.from_numpy(array, kwargs.get("dtype") or default)
        device = kwargs.get("device")
        if device is not None:
            t = t.to(device)
        if kwargs.get("requires_grad"):
            t.requires_grad_(True)
        return t

    def randn(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("generator", None)
        return self._out(self.rng.standard_normal(_size(args, kwargs)).astype(np.float32), kwargs, None)

    def rand(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("generator", None)
        return self._out(self.rng.random(_size(args, kwargs)).astype(np.float32), kwargs, None)

    def randn_like(self, t: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("dtype", t.dtype)
        return self._out(self.rng.standard_normal(tuple(t.shape)).astype(np.float32), kwargs, None)

    def rand_like(self, t: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("dtype", t.dtype)
        return self._out(self.rng.random(tuple(t.shape)).astype(np.float32), kwargs, None)

    def randint(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("generator", None)
        if "size" in kwargs:
            size = tuple(kwargs.pop("size"))
            bounds = args
        else:
            bounds, size = args[:-1], tuple(args[-1])
        low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
        return self._out(self.rng.integers(int(low), int(high), size), kwargs, self.lib.top.int64)

    def randperm(self, n: int, **kwargs: Any) -> Any:
        kwargs.pop("generator", None)
        return self._out(self.rng.permutation(int(n)), kwargs, self.lib.top.int64)

    def multinomial(self, input: Any, num_samples: int, replacement: bool = False, **kwargs: Any) -> Any:
        """torch's semantics (rows of non-negative weights; without replacement a drawn category is
        not drawn again), by inverting each row's cumulative distribution at a shared uniform draw."""
        kwargs.pop("generator", None)
        weights = self.lib.to_numpy(input).astype(np.float64)
        rows = weights.reshape(-1, weights.shape[-1])
        out = np.empty((rows.shape[0], int(num_samples)), dtype=np.int64)
        for r, row in enumerate(rows):
            w = row.copy()
            for s in range(int(num_samples)):
                cdf = np.cumsum(w)
                i = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
                if i == len(w):  # u * total rounded up to the total: the last category that has weight
                    i = int(np.flatnonzero(w)[-1])
                out[r, s] = i
                if not replacement:
                    w[out[r, s]] = 0.0
        result = out.reshape(*weights.shape[:-1], int(num_samples))
        self.draws.append([int(i) for i in result.reshape(-1)])
        return self.lib.from_numpy(result).to(input.device)

    def scaled_dot_product_attention(
        self, query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0,
        is_causal: bool = False, scale: float | None = None, **kwargs: Any,
    ) -> Any:
        """The library's own attention without dropout; with it, the same composition in both runs
        (scores, mask, softmax, then the shared dropout mask on the weights, as torch's math path)."""
        if dropout_p == 0.0:
            return self.sdpa(query, key, value, attn_mask=attn_mask, dropout_p=0.0, is_causal=is_causal, scale=scale, **kwargs)
        s = 1.0 / float(query.size(-1)) ** 0.5 if scale is None else scale
        att = (query @ key.transpose(-2, -1)) * s
        rows, cols = int(query.size(-2)), int(key.size(-2))
        if is_causal:
            allowed = self.lib.from_numpy(np.tril(np.ones((rows, cols), dtype=bool))).to(query.device)
            att = att.masked_fill(allowed.logical_not(), float("-inf"))
        if attn_mask is not None:
            if attn_mask.dtype == self.lib.top.bool:
                att = att.masked_fill(attn_mask.logical_not(), float("-inf"))
            else:
                att = att + attn_mask
        att = self._masked(self.lib.F.softmax(att, dim=-1), dropout_p, True, False, tuple(att.shape))
        return att @ value

    def bernoulli_(self, t: Any, p: Any = 0.5, **kwargs: Any) -> Any:
        """``Tensor.bernoulli_``: each element 1 where its shared uniform draw is below ``p`` (a float
        or a tensor of probabilities), else 0."""
        kwargs.pop("generator", None)
        prob = p if isinstance(p, (int, float)) else self.lib.to_numpy(p)
        keep = (self.rng.random(tuple(t.shape)) < prob).astype(np.float32)
        with self.lib.top.no_grad():
            t.copy_(self.lib.from_numpy(keep).to(t.dtype).to(t.device))
        return t

    def _masked(self, input: Any, p: float, training: bool, inplace: bool, mask_shape: tuple[int, ...]) -> Any:
        if not training or p == 0.0:
            return input
        keep = (self.rng.random(mask_shape) >= p).astype(np.float32)
        scale = np.float32(0.0) if p == 1.0 else np.float32(1.0 / (1.0 - p))
        mask = self.lib.from_numpy(keep * scale, input.dtype)
        return input.mul_(mask) if inplace else input * mask

    def dropout(self, input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
        return self._masked(input, p, training, inplace, tuple(input.shape))

    def dropout2d(self, input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
        # torch's feature dropout: one draw per (sample, channel), whatever the rank (a 2-D input warns)
        shape = tuple(input.shape)
        if len(shape) not in (3, 4):
            warnings.warn(f"dropout2d: Received a {len(shape)}-D input to dropout2d", stacklevel=2)
        return self._masked(input, p, training, inplace, shape[:2] + (1,) * (len(shape) - 2))

    def sampler_iter(self, sampler: Any) -> Iterator[int]:
        n = len(sampler.data_source)
        total = sampler.num_samples
        if sampler.replacement:
            while total > 0:
                chunk = min(total, 32)
                yield from (int(i) for i in self.rng.integers(0, n, chunk))
                total -= chunk
            return
        while total > 0:
            for i in self.rng.permutation(n)[:total]:
                yield int(i)
            total -= n

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        lib = self.lib
        with contextlib.ExitStack() as stack:
            for name in ("randn", "rand", "randn_like", "rand_like", "randint", "randperm", "multinomial"):
                stack.enter_context(_patched(lib.top, name, getattr(self, name)))
            for name in ("dropout", "dropout2d", "scaled_dot_product_attention"):
                stack.enter_context(_patched(lib.F, name, getattr(self, name)))
            shared = self

            def sampler_iter(sampler: Any) -> Iterator[int]:
                return shared.sampler_iter(sampler)

            for cls in lib.samplers:
                stack.enter_context(_patched(cls, "__iter__", sampler_iter))

            def bernoulli_(tensor: Any, p: Any = 0.5, **kwargs: Any) -> Any:
                return shared.bernoulli_(tensor, p, **kwargs)

            stack.enter_context(_patched(lib.Tensor, "bernoulli_", bernoulli_))
            # Python's own generator (siamese_network's dataset draws its pairs with ``random``)
            state = random.getstate()
            random.seed(shared.seed)
            try:
                yield
            finally:
                random.setstate(state)


# ---------------------------------------------------------------- weights and losses
class _Recorder:
    """Tracks the modules a run builds, syncs their weights at the first forward, records losses."""

    def __init__(
        self, lib: _Lib, wanted: int, load: list[tuple[str, dict[str, np.ndarray]]] | None, perturb: bool,
    ) -> None:
        self.lib = lib
        self.wanted = wanted
        self.load = load
        self.perturb = perturb
        self.modules: list[Any] = []
        self.synced = False
        self.losses: list[float] = []
        self.initial_state: list[tuple[str, dict[str, np.ndarray]]] = []

    def roots(self) -> list[Any]:
        inner: set[int] = set()
        for m in self.modules:
            for child in m.modules():
                if child is not m:
                    inner.add(id(child))
        # a compiled model (torch.compile's OptimizedModule) stands for the module it wraps
        return [m._modules.get("_orig_mod") or m for m in self.modules if id(m) not in inner]

    def sync(self) -> None:
        self.synced = True
        roots = [m for m in self.roots() if len(m.state_dict()) > 0]
        self.initial_state = [
            (type(m).__name__, {k: self.lib.to_numpy(v) for k, v in m.state_dict().items()}) for m in roots
        ]
        params = [{name for name, _ in m.named_parameters()} for m in roots]
        if self.load is None:
            return
        names = [n for n, _ in self.load]
        mine = [type(m).__name__ for m in roots]
        if names != mine:
            raise AssertionError(f"the runs built different root modules: {names} (reference) vs {mine}")
        rng = np.random.default_rng(0)
        for module, (_, state), names in zip(roots, self.load, params, strict=True):
            converted = {}
            for key, array in state.items():
                if self.perturb and key in names:  # weights only: buffers (masks, statistics) stay exact
                    direction = np.where(rng.random(array.shape) < 0.5, -np.inf, np.inf).astype(array.dtype)
                    array = np.nextafter(array, direction)
                converted[key] = self.lib.from_numpy(array)
            module.load_state_dict(converted)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        rec = self
        module_init = self.lib.Module.__init__
        module_call = self.lib.Module.__call__
        backward = self.lib.Tensor.backward

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            module_init(self, *args, **kwargs)
            rec.modules.append(self)
            # a program may call ``self.forward(x)`` rather than ``self(x)`` (mnist_forward_forward
            # does): the first forward syncs the weights too, however it is reached
            for cls in type(self).__mro__:
                if cls is not rec.lib.Module and "forward" in vars(cls) and cls not in wrapped:
                    wrapped.add(cls)
                    stack.enter_context(_patched(cls, "forward", syncing_forward(vars(cls)["forward"])))

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not rec.synced:
                rec.sync()
            return module_call(self, *args, **kwargs)

        def syncing_forward(forward: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(forward)
            def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                if not rec.synced:
                    rec.sync()
                return forward(self, *args, **kwargs)

            return wrapper

        def record_backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self.numel() == 1:
                if len(rec.losses) >= rec.wanted:  # a later command line (Program.then) goes on training
                    raise StopRun
                rec.losses.append(float(self.detach().cpu().reshape(-1)[0].item()))
                if len(rec.losses) >= rec.wanted:
                    raise StopRun
            return backward(self, *args, **kwargs)

        wrapped: set[type] = set()
        with contextlib.ExitStack() as stack:
            stack.enter_context(_patched(self.lib.Module, "__init__", init))
            stack.enter_context(_patched(self.lib.Module, "__call__", call))
            stack.enter_context(_patched(self.lib.Tensor, "backward", record_backward))
            yield


# ---------------------------------------------------------------- one run
def run_program(
    program: Program,
    lib_name: str,
    workdir: Path,
    *,
    load: list[tuple[str, dict[str, np.ndarray]]] | None = None,
    perturb: bool = False,
    seed: int = 1234,
) -> RunResult:
    """Runs ``program`` on ``lib_name`` ("torch" or "typedtensor") in ``workdir`` (created here)."""
    lib = _Lib(lib_name)
    workdir.mkdir(parents=True)
    _copy_tree(HERE / (program.directory or program.name), workdir, lib_name)
    _copy_tree(STANDINS, workdir, lib_name)
    if program.prepare is not None:
        program.prepare(workdir)
    recorder = _Recorder(lib, program.losses, load, perturb)
    shared = SharedRandom(lib, seed)
    old_cwd, old_argv, old_path = os.getcwd(), sys.argv, list(sys.path)
    old_env = {k: os.environ.get(k) for k, _ in program.env}
    # process-wide settings a program may change (nanoGPT sets allow_tf32, which is the float32
    # matmul precision in both libraries): restored, so one program's choice does not reach the next
    old_precision = lib.top.get_float32_matmul_precision()
    old_cudnn_tf32 = lib.top.backends.cudnn.allow_tf32
    before = set(sys.modules)
    stopped = False
    try:
        os.environ.update(dict(program.env))
        os.chdir(workdir)
        sys.path.insert(0, str(workdir))
        for script in program.before:
            sys.argv = [script]
            runpy.run_path(str(workdir / script), run_name="__main__")
        with recorder.installed(), shared.installed():
            for argv in ([program.script, *program.argv], *(shlex.split(line) for line in program.then)):
                sys.argv = argv + list(program.torch_extra if lib_name == "torch" else ())
                try:
                    runpy.run_path(str(workdir / argv[0]), run_name="__main__")
                except StopRun:  # the losses are all there; what comes after (sampling) still runs
                    stopped = True
    finally:
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.chdir(old_cwd)
        sys.argv = old_argv
        sys.path[:] = old_path
        lib.top.set_float32_matmul_precision(old_precision)
        lib.top.backends.cudnn.allow_tf32 = old_cudnn_tf32
        for name in set(sys.modules) - before:
            mod = sys.modules.get(name)
            file = getattr(mod, "__file__", None) or ""
            if file.startswith(str(workdir)):
                del sys.modules[name]
    return RunResult(recorder.losses, recorder.initial_state, stopped, shared.draws)


# ---------------------------------------------------------------- the comparison
@dataclass
class Comparison:
    """The three runs' losses. What is checked, and against what:

    - the first loss (the first forward, before any update): typedtensor against torch within ten
      times torch's one-ulp spread there, and never closer than a few float32 ulps;
    - the losses of the last step (20 optimizer steps in): within ten times the largest one-ulp
      spread torch showed over the run.

    Where the program samples (``multinomial``), its draws must be torch's, unless torch's one-ulp
    run already drew differently (then rounding alone decides a draw, and it is reported).

    The losses in between are reported, not checked: an adaptive optimizer turns float32 rounding
    into full-size differences as soon as a gradient element that cancels to nearly zero changes
    sign (Adam's first step moves every weight by about ``lr * sign(g)``), and which elements flip
    depends on the order of summation, not on the weights; torch's own one-ulp run shows the same
    jumps a few steps later (dcgan's discriminator: 4e-4 in one weight after one step, 1e-3 in the
    losses by the fifth)."""

    torch: list[float]
    torch_perturbed: list[float]
    ours: list[float]
    per_step: int = 1
    torch_draws: list[list[int]] = field(default_factory=list)
    torch_perturbed_draws: list[list[int]] = field(default_factory=list)
    ours_draws: list[list[int]] = field(default_factory=list)

    def noise(self, i: int) -> float:
        """How far one ulp of initial weights moved torch's own losses, up to loss ``i``."""
        return max(abs(a - b) for a, b in zip(self.torch[: i + 1], self.torch_perturbed[: i + 1], strict=True))

    def tolerance(self, i: int) -> float:
        return 10.0 * self.noise(i) + 4e-7 * max(1.0, abs(self.torch[i]))

    def checked(self) -> list[int]:
        last = len(self.torch)
        return sorted({0, *range(max(0, last - self.per_step), last)})

    def failures(self) -> list[str]:
        out = []
        end = len(self.torch) - 1
        for i in self.checked():
            ref, got = self.torch[i], self.ours[i]
            tol = self.tolerance(end if i > 0 else 0)
            if not abs(got - ref) <= tol:
                out.append(
                    f"loss {i + 1}: typedtensor {got!r} vs torch {ref!r} (|diff| {abs(got - ref):.3g} > tolerance {tol:.3g}; "
                    f"torch's one-ulp spread {self.noise(end if i > 0 else 0):.3g})"
                )
        if self.ours_draws != self.torch_draws and self.torch_perturbed_draws == self.torch_draws:
            out.append(f"multinomial draws: typedtensor {self.ours_draws} vs torch {self.torch_draws}")
        return out


def compare(program: Program, tmp: Path) -> Comparison:
    """The program's losses on torch, on torch from weights one ulp away, and on typedtensor."""
    ref = run_program(program, "torch", tmp / "torch")
    if len(ref.losses) < program.losses:
        raise AssertionError(f"{program.name}: torch computed {len(ref.losses)} losses, fewer than {program.losses}")
    ours = run_program(program, "typedtensor", tmp / "typedtensor", load=ref.initial_state)
    if len(ours.losses) != len(ref.losses):
        raise AssertionError(
            f"{program.name}: typedtensor computed {len(ours.losses)} losses where torch computed {len(ref.losses)}"
        )
    pert = run_program(program, "torch", tmp / "torch-ulp", load=ref.initial_state, perturb=True)
    return Comparison(ref.losses, pert.losses, ours.losses, program.per_step, ref.draws, pert.draws, ours.draws)
