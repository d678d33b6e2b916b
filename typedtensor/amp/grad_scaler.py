"""Gradient scaling for float16 training (``torch.amp.GradScaler``).

A float16 gradient underflows to zero where its float32 value would not; multiplying the loss by a
large factor before ``backward`` keeps small gradients representable, and dividing the gradients by
the same factor before the optimizer's step restores their values. The factor is tuned as training
goes: a step whose gradients hold an inf or a NaN is skipped and the factor shrinks by
``backoff_factor``; after ``growth_interval`` clean steps in a row it grows by ``growth_factor``.
Semantics, messages and the state dict are torch's (2.13), so a training loop written for torch runs
unchanged.
"""

from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum
from typing import Any, cast

from typedtensor._runtime import _C, no_grad

Tensor = Any
Optimizer = Any

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where one optimizer is within the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _cuda_definitely_not_available() -> bool:
    from typedtensor._runtime import cuda

    return not cuda.is_available()


class _PerDevice:
    """Copies of one tensor, made on first request for each device (torch's _MultiDeviceReplicator)."""

    def __init__(self, master: Tensor) -> None:
        self.master = master
        self.per_device: dict[Any, Tensor] = {}

    def get(self, device: Any) -> Tensor:
        value = self.per_device.get(device)
        if value is None:
            value = self.master.to(device).clone() if device != self.master.device else self.master.clone()
            self.per_device[device] = value
        return value


def _non_finite_check_and_unscale_(grads: list[Tensor], found_inf: Tensor, inv_scale: Tensor) -> None:
    """Multiply each gradient by ``inv_scale`` in place and set ``found_inf`` to 1 when any holds an
    inf or a NaN (torch's ``_amp_foreach_non_finite_check_and_unscale_``)."""
    for grad in grads:
        if not bool(grad.isfinite().all().item()):
            found_inf.fill_(1.0)
        grad.mul_(inv_scale)


def _update_scale_(
    scale: Tensor, growth_tracker: Tensor, found_inf: Tensor,
    growth_factor: float, backoff_factor: float, growth_interval: int,
) -> None:
    """torch's ``_amp_update_scale_``: back off after an inf/NaN, grow after ``growth_interval`` clean
    steps (unless growing would overflow float32), else count the clean step."""
    if float(found_inf.item()) != 0.0:
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
        return
    successful = int(growth_tracker.item()) + 1
    if successful == growth_interval:
        grown = scale * growth_factor
        if bool(grown.isfinite().item()):
            scale.copy_(grown)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)


class GradScaler:
    """Scales the loss, unscales the gradients, skips steps with inf/NaN gradients and tunes the scale.

    ``device`` is ``"cuda"`` (the default, as torch's) or ``"cpu"``. A ``"cuda"`` scaler on a machine
    without a usable CUDA device warns and disables itself, as torch does; a disabled scaler passes
    everything through (``scale`` returns its argument, ``step`` calls ``optimizer.step``).
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and _cuda_definitely_not_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None  # made on the first scale(), on the loss's device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev: Any) -> None:
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = _C.full((), self._init_scale, dtype=_C.float32, device=dev)
        self._growth_tracker = _C.full((), self._init_growth_tracker, dtype=_C.int32, device=dev)

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples/iterables of tensors) times the scale factor;
        ``outputs`` itself when the scaler is disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * cast(Tensor, self._scale).to(outputs.device)

        stash: list[_PerDevice] = []

        def apply_scale(val: Any) -> Any:
            if isinstance(val, _C.Tensor):
                if not stash:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_PerDevice(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, abc.Iterable):
                scaled = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(scaled)
                return scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(
        self, optimizer: Optimizer, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool,
    ) -> dict[Any, Tensor]:
        per_device_inv_scale = _PerDevice(inv_scale)
        per_device_found_inf = _PerDevice(found_inf)
        per_device_grads: dict[Any, list[Tensor]] = defaultdict(list)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, _C.Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == _C.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    per_device_grads[grad.device].append(grad)
            for device, grads in per_device_grads.items():
                _non_finite_check_and_unscale_(
                    grads, per_device_found_inf.get(device), per_device_inv_scale.get(device),
                )
        return per_device_found_inf.per_device

    def unscale_(self, optimizer: Optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale factor in place (once per optimizer per
        ``update``), recording whether any of them holds an inf or a NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        scale = cast(Tensor, self._scale)
        # the reciprocal in float64, as torch: float32 division can be off by one ulp
        inv_scale = scale.double().reciprocal().float()
        found_inf = _C.full((), 0.0, dtype=_C.float32, device=scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer: Optimizer, optimizer_state: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if not sum(float(v.item()) for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer: Optimizer, *args: Any, **kwargs: Any) -> Any:
        """Unscale (unless ``unscale_`` already did) and run ``optimizer.step(*args, **kwargs)`` unless
        a gradient holds an inf or a NaN; returns what ``optimizer.step`` returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the scale for the next iteration: ``new_scale`` when given, else back off (a step
        was skipped) or grow (``growth_interval`` clean steps in a row)."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [
                found_inf.to(scale.device)
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for extra in found_infs[1:]:
                found_inf_combined = found_inf_combined + extra
            _update_scale_(
                scale, growth_tracker, found_inf_combined,
                self._growth_factor, self._backoff_factor, self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self) -> Tensor | None:
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a Python float; 1.0 when the scaler is disabled."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else float(scale.item())
        return 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale grows by after ``growth_interval`` clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the growth factor."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by after a skipped step."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the backoff factor."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many clean steps in a row make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set the growth interval."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            tracker = self._growth_tracker
            return self._init_growth_tracker if tracker is None else int(tracker.item())
        return 0

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False when made disabled, or a CUDA scaler without CUDA)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and ``_growth_tracker``
        (torch's keys); an empty dict when disabled."""
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state from ``state_dict()`` (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = cast(float, state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = cast(float, state_dict["growth_factor"])
        self._backoff_factor = cast(float, state_dict["backoff_factor"])
        self._growth_interval = cast(int, state_dict["growth_interval"])
        self._init_growth_tracker = cast(int, state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
