"""``F.affine_grid`` and ``F.grid_sample`` against torch: values and gradients (input and grid) in
every mode, padding mode and corner alignment, grids that leave the input, and the shape errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")
TF, F = tt.nn.functional, torch.nn.functional

RNG = np.random.default_rng(5)


def _grid(n: int, out: tuple[int, ...], nd: int, scale: float) -> np.ndarray:
    g = RNG.standard_normal((n, *out, nd)) * scale
    # exact corners and borders, where torch's clipping and reflection have their kinks
    g.reshape(-1, nd)[0] = 1.0
    g.reshape(-1, nd)[1] = -1.0
    g.reshape(-1, nd)[2] = 0.0
    return g


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(nd: int, mode: str, padding_mode: str, align_corners: bool) -> None:
    spatial, out = ((3, 4), (5, 2)) if nd == 2 else ((3, 4, 2), (2, 3, 4))
    x, g = RNG.standard_normal((2, 3, *spatial)), _grid(2, out, nd, 1.6)
    a, ga = tt.tensor(x, requires_grad=True), tt.tensor(g, requires_grad=True)
    b, gb = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    ours, ref = TF.grid_sample(a, ga, **kw), F.grid_sample(b, gb, **kw)
    assert tuple(ours.shape) == tuple(ref.shape) == (2, 3, *out)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(tuple(ref.shape))
    (ours * tt.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)
    if mode == "bilinear":  # nearest sampling is flat in the grid (torch's grid gradient is 0)
        np.testing.assert_allclose(ga.grad.numpy(), gb.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_grid_sample_float32_far_outside() -> None:
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    g = np.array([[[[1e6, -1e6], [-7.5, 3.25], [40.0, 0.5]]]], dtype=np.float32)
    for pad in ("zeros", "border", "reflection"):
        ours = TF.grid_sample(tt.tensor(x), tt.tensor(g), padding_mode=pad, align_corners=False)
        ref = F.grid_sample(torch.tensor(x), torch.tensor(g), padding_mode=pad, align_corners=False)
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 2, 3, 4)])
def test_affine_grid_matches_torch(size: tuple[int, ...], align_corners: bool) -> None:
    nd = len(size) - 2
    theta = RNG.standard_normal((2, nd, nd + 1))
    a, b = tt.tensor(theta, requires_grad=True), torch.tensor(theta, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # align_corners with a unit size warns, in both
        ours, ref = TF.affine_grid(a, size, align_corners=align_corners), F.affine_grid(b, size, align_corners=align_corners)
    assert tuple(ours.shape) == tuple(ref.shape) == (size[0], *size[2:], nd)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(tuple(ref.shape))
    (ours * tt.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_spatial_transformer_end_to_end() -> None:
    """affine_grid then grid_sample, gradients reaching theta through the grid."""
    x, theta = RNG.standard_normal((2, 3, 6, 7)), RNG.standard_normal((2, 2, 3)) * 0.5
    a, ta = tt.tensor(x, requires_grad=True), tt.tensor(theta, requires_grad=True)
    b, tb = torch.tensor(x, requires_grad=True), torch.tensor(theta, requires_grad=True)
    ours = TF.grid_sample(a, TF.affine_grid(ta, (2, 3, 4, 5), align_corners=False), align_corners=False)
    ref = F.grid_sample(b, F.affine_grid(tb, (2, 3, 4, 5), align_corners=False), align_corners=False)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    ours.square().sum().backward()
    ref.square().sum().backward()
    np.testing.assert_allclose(ta.grad.numpy(), tb.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_default_align_corners_warns_like_torch() -> None:
    x, g = tt.zeros(1, 1, 2, 2), tt.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        TF.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        TF.affine_grid(tt.zeros(1, 2, 3), (1, 1, 2, 2))


def test_grid_sample_errors() -> None:
    x = tt.zeros(2, 3, 4, 4)
    with pytest.raises(tt.ShapeError, match="grid_sample: expected grid and input to have the same batch size"):
        TF.grid_sample(x, tt.zeros(3, 2, 2, 2), align_corners=False)
    with pytest.raises(tt.ShapeError, match="grid_sample: expected grid to have size 2 in its last dimension"):
        TF.grid_sample(x, tt.zeros(2, 2, 2, 3), align_corners=False)
    with pytest.raises(tt.ShapeError, match="grid_sample: expected a 4-d or 5-d input"):
        TF.grid_sample(tt.zeros(3, 4, 4), tt.zeros(2, 2, 2), align_corners=False)
    with pytest.raises(tt.ShapeError, match="same number of dimensions"):
        TF.grid_sample(x, tt.zeros(2, 2, 2, 2, 3), align_corners=False)
    with pytest.raises(ValueError, match="expected mode to be"):
        TF.grid_sample(x, tt.zeros(2, 2, 2, 2), mode="cubic", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        TF.grid_sample(x, tt.zeros(2, 2, 2, 2), padding_mode="wrap", align_corners=False)
    with pytest.raises(NotImplementedError, match="'bicubic' is not supported; supported are 'bilinear' and 'nearest'"):
        TF.grid_sample(x, tt.zeros(2, 2, 2, 2), mode="bicubic", align_corners=False)


def test_affine_grid_errors() -> None:
    with pytest.raises(tt.ShapeError, match="affine_grid: expected a batch of 2D affine matrices of shape Nx2x3"):
        TF.affine_grid(tt.zeros(2, 3, 4), (2, 1, 4, 4), align_corners=False)
    with pytest.raises(tt.ShapeError, match="affine_grid: theta holds 3 matrices for a batch of 2"):
        TF.affine_grid(tt.zeros(3, 2, 3), (2, 1, 4, 4), align_corners=False)
    with pytest.raises(tt.ShapeError, match="affine_grid: only supports 4D and 5D sizes"):
        TF.affine_grid(tt.zeros(2, 2, 3), (2, 4, 4), align_corners=False)
    with pytest.raises(tt.ShapeError, match="non-zero, positive output size"):
        TF.affine_grid(tt.zeros(2, 2, 3), (2, 1, 0, 4), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        TF.affine_grid(tt.zeros(2, 2, 3, dtype=tt.int64), (2, 1, 4, 4), align_corners=False)
