"""Random draws written over the backend's generators: ``normal``, ``multinomial``, the in-place
fills (``normal_``, ``uniform_``, ``exponential_``, ``random_``, ``bernoulli_``) and the generator
objects' Python side (``Generator.seed``, ``tt.seed``, ``get_rng_state`` / ``set_rng_state``).

Every draw takes torch's ``generator=`` (a ``tt.Generator``; NOTE [ Generators ] in
backend/include/typedtensor/ops.h) and comes from the backend's ``rand`` / ``randn`` / ``randint``
/ ``bernoulli``, so it runs on the tensor's device. On the CPU the generator is torch's and the
draws here take its numbers in torch's order (NOTE [ torch's CPU streams ] in
backend/src/cpu/random.cpp): ``exponential_`` from double uniforms, ``multinomial`` by torch's two
methods, so under one seed they give torch's values.
"""

from __future__ import annotations

import os
from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

Generator = _C.Generator
default_generator = _C.default_generator


def _generator_seed(self: Any) -> int:
    """Seed the generator from the operating system's entropy and return the seed (torch's ``seed()``)."""
    s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    self.manual_seed(s)
    return s


Generator.seed = _generator_seed


def seed() -> int:
    """Seed the global generator non-deterministically and return the seed (``torch.seed``)."""
    s = int(_generator_seed(default_generator))
    _C.manual_seed(s)  # the device generator too, as manual_seed does
    return s


def get_rng_state() -> Any:
    """The global CPU generator's state, a uint8 tensor (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the global CPU generator's state from ``get_rng_state()`` (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)


def _float_dtype(*values: Any) -> Any:
    """The floating dtype torch draws ``normal`` in: the tensors' promoted dtype, else the default."""
    tensors = [v for v in values if isinstance(v, _C.Tensor)]
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    if not dtype.is_floating_point:
        raise TypeError(f"normal expects floating point mean and std tensors, got {dtype}")
    return dtype


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           device: Any = None, requires_grad: bool = False) -> Any:
    """``mean + std * z`` with ``z`` standard normal: numbers and a ``size``, or tensors (their
    broadcast shape, differentiable in both, as torch's)."""
    if not isinstance(mean, _C.Tensor) and not isinstance(std, _C.Tensor):
        if size is None:
            raise TypeError("normal(): numbers for mean and std need a size")
        if std < 0:
            raise ValueError(f"normal expects std >= 0.0, but found std {std}")
        check("normal", mean=float(mean), std=float(std), size=size)
        shape = (size,) if isinstance(size, int) else tuple(size)
        # torch fills with normal_(mean, std): the scaling fused into the draw, as normal_ here
        out = _C._randn_scaled(shape, float(mean), float(std), generator=generator, dtype=dtype, device=device)
        return out.requires_grad_(True) if requires_grad else out
    if size is not None:
        raise TypeError("normal(): a tensor mean or std gives the shape; size is for numbers only")
    check("normal", mean=mean, std=std)
    if isinstance(std, _C.Tensor) and bool((std < 0).any()):
        raise ValueError("normal expects all elements of std >= 0.0")
    ref = mean if isinstance(mean, _C.Tensor) else std
    work = _float_dtype(mean, std)
    shape = _C.broadcast_shapes(*(tuple(v.shape) for v in (mean, std) if isinstance(v, _C.Tensor)))
    z = _C.randn(*shape, generator=generator, dtype=work, device=ref.device)
    return z * std + mean


def _need_float(op: str, t: Any) -> None:
    if not t.is_floating_point():
        raise TypeError(f"{op} expects a floating point tensor, got {t.dtype}")


def _filled(self: Any, values: Any) -> Any:
    return self.copy_(values)


def normal_(self: Any, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with ``normal(mean, std)`` draws."""
    _need_float("normal_", self)
    if std < 0:
        raise ValueError(f"normal_ expects std >= 0.0, but found std {std}")
    # mean and std applied in the backend as torch's kernel applies them (a fused multiply-add)
    return _filled(self, _C._randn_scaled(tuple(self.shape), mean, std, generator=generator, dtype=self.dtype,
                                          device=self.device))


def uniform_(self: Any, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with draws uniform on ``[from_, to)`` (torch's ``from``, a Python keyword, is ``from_``
    as in torch's own stubs)."""
    _need_float("uniform_", self)
    if from_ > to:
        raise ValueError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    # scaled in the backend as torch's kernel scales its draws (NOTE [ torch's CPU streams ])
    return _filled(self, _C._rand_range(tuple(self.shape), from_, to, generator=generator, dtype=self.dtype,
                                        device=self.device))


def exponential_(self: Any, lambd: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with exponential draws of rate ``lambd``: ``-1 / lambd * log1p(-u)`` with ``u`` a double
    uniform, rounded to the tensor's dtype (torch's CPU kernel)."""
    _need_float("exponential_", self)
    if not lambd > 0:
        raise ValueError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _C.rand(*self.shape, generator=generator, dtype=_C.float64, device=self.device)
    return _filled(self, (u.neg().log1p() * (-1.0 / lambd)).to(self.dtype))


# the largest integer each dtype holds exactly: random_()'s default upper bound (torch's)
_RANDOM_TOP = {"float16": 1 << 11, "bfloat16": 1 << 8, "float32": 1 << 24, "float64": 1 << 53, "uint8": 1 << 8,
               "int32": 1 << 31, "int64": (1 << 63) - 1, "bool": 2}


def random_(self: Any, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Any:
    """Fill with integers uniform on ``[from_, to)``; ``random_(n)`` is ``[0, n)``; ``random_()``
    covers every integer the dtype holds exactly from 0."""
    low, high = (0, from_) if to is None and from_ != 0 else (from_, to)
    if high is None:
        high = _RANDOM_TOP[self.dtype.name]
    if low >= high:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    draws = _C.randint(low, high, tuple(self.shape), generator=generator, device=self.device)
    return _filled(self, draws.to(self.dtype))


def bernoulli(input: Any, p: Any = None, *, generator: Any = None) -> Any:
    """``Tensor.bernoulli``: ones with probability ``p`` (a number), else each entry's own value."""
    if p is not None and not isinstance(p, _C.Tensor):
        if not 0 <= p <= 1:
            raise ValueError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        p = float(p)  # a double draw below p, as torch's
    return _C.bernoulli(input, p, generator=generator)


def bernoulli_(self: Any, p: Any = 0.5, *, generator: Any = None) -> Any:
    """Fill with ones drawn with probability ``p`` (a number or a tensor broadcast to ``self``)."""
    work = self.dtype if self.is_floating_point() else _C.float32
    if isinstance(p, _C.Tensor):
        probs = p.to(work).expand(*self.shape).contiguous()
        return _filled(self, _C.bernoulli(probs, generator=generator).to(self.dtype))
    if not 0 <= p <= 1:
        raise ValueError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _filled(self, _C.bernoulli(self, float(p), generator=generator))


def multinomial(input: Any, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Any:
    """``num_samples`` category indices per row of ``input`` (``[n]`` or ``[m, n]`` non-negative
    weights), by torch's two methods: one draw, or draws without replacement, are the largest
    ``weight / exponential`` keys (an exponential per weight, in the weights' dtype); several draws
    with replacement invert each row's cumulative distribution (summed in the weights' dtype and
    divided by its total) at double uniforms, drawn row by row."""
    check("multinomial", input=input, num_samples=num_samples)
    if not input.is_floating_point():
        raise TypeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    n = input.shape[-1]
    rows = input if input.ndim == 2 else input.unsqueeze(0)
    if bool((rows < 0).any()) or not bool(rows.isfinite().all()):
        raise ValueError("multinomial: probability tensor contains either inf, nan or element < 0")
    if bool((rows.sum(-1) <= 0).any()):
        raise ValueError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    work = rows.detach()
    if not replacement or num_samples == 1:
        if num_samples > n:
            raise ValueError("multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        # fewer positive weights than samples: the zero-weight categories follow (torch's)
        q = exponential_(_C.empty(*work.shape, dtype=work.dtype, device=work.device), 1.0, generator=generator)
        keys = work / q
        picks = keys.argmax(-1, keepdim=True) if num_samples == 1 else keys.topk(num_samples, -1).indices
    else:
        cdf = work.cumsum(-1)
        cdf = cdf / cdf[:, -1:]
        u = _C.rand(rows.shape[0], num_samples, generator=generator, dtype=_C.float64, device=rows.device)
        # the first category whose cumulative probability reaches u (torch's binary search)
        picks = (cdf.to(_C.float64).unsqueeze(1) < u.unsqueeze(2)).long().sum(-1).clamp(max=n - 1)
    return picks if input.ndim == 2 else picks.squeeze(0)


__all__ = [
    "Generator", "bernoulli", "bernoulli_", "default_generator", "exponential_", "get_rng_state", "multinomial",
    "normal", "normal_", "random_", "seed", "set_rng_state", "uniform_",
]
