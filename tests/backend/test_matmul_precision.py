"""``set_float32_matmul_precision`` (NOTE [ float32 matmul precision ] in backend/src/cpu/gemm.cpp):
the setting's semantics as torch 2.13's, and "medium" float32 products on the bfloat16 GEMM checked
against an oracle (float64 products of the bfloat16-rounded operands) and against torch's."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_precision() -> Iterator[None]:
    """The setting is process-wide (in both libraries): every test leaves it at the default."""
    yield
    tt.set_float32_matmul_precision("highest")
    torch.set_float32_matmul_precision("highest")


@pytest.fixture
def medium(blas: str) -> str:
    """"medium" in both libraries, under each BLAS this machine has."""
    tt.set_float32_matmul_precision("medium")
    torch.set_float32_matmul_precision("medium")
    return blas


def _bf16(x: np.ndarray) -> np.ndarray:
    """x rounded to bfloat16 (nearest even), as float64."""
    return torch.from_numpy(np.ascontiguousarray(x)).bfloat16().double().numpy()  # type: ignore[no-any-return]


def _values(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _on_bf16_gemm() -> bool:
    return bool(tt.backends.cpu.blas_has_bf16_gemm())


def _torch_rounds_under_medium() -> bool:
    """torch takes its bfloat16 GEMM under "medium" only where oneDNN has native bfloat16 (AVX-512
    bf16 or AMX); on an AVX2 CPU its "medium" products stay float32, and are no oracle for ours.
    MKL's bfloat16 GEMM runs on AVX2 too, so ours round there all the same."""
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


# ---------------------------------------------------------------- the setting


def test_default_and_round_trip() -> None:
    assert tt.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    for p in ("high", "medium", "highest"):
        tt.set_float32_matmul_precision(p)
        torch.set_float32_matmul_precision(p)
        assert tt.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == p


def test_unknown_precision_warns_and_changes_nothing() -> None:
    tt.set_float32_matmul_precision("medium")
    with pytest.warns(UserWarning, match="has no effect"):
        tt.set_float32_matmul_precision("low")
    assert tt.get_float32_matmul_precision() == "medium"


@pytest.mark.parametrize("precision", ["highest", "high", "medium"])
def test_allow_tf32_is_the_precision_seen_from_cuda(precision: str) -> None:
    tt.set_float32_matmul_precision(precision)
    torch.set_float32_matmul_precision(precision)
    assert tt.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32 == (precision != "highest")


@pytest.mark.parametrize("allow", [True, False])
def test_setting_allow_tf32_sets_the_precision(allow: bool) -> None:
    """From the default (torch refuses to answer after "medium" then allow_tf32: a mix of its two
    APIs; here allow_tf32 = X always means "high" or "highest")."""
    tt.set_float32_matmul_precision("high" if not allow else "highest")
    tt.backends.cuda.matmul.allow_tf32 = allow
    torch.backends.cuda.matmul.allow_tf32 = allow
    assert tt.get_float32_matmul_precision() == torch.get_float32_matmul_precision()


# ---------------------------------------------------------------- "medium" products

# (name, typedtensor op, torch op, operand shapes): plain, transposed and sliced operands,
# broadcast batches, a matrix-vector product and the linear layer's bias (gemm_accumulate)
CASES: list[tuple[str, Callable[..., Any], Callable[..., Any], list[tuple[int, ...]]]] = [
    ("mm", lambda a, b: a @ b, lambda a, b: a @ b, [(33, 130), (130, 47)]),
    ("mm_bt", lambda a, b: a @ b.t(), lambda a, b: a @ b.t(), [(33, 130), (47, 130)]),
    ("mm_at", lambda a, b: a.t() @ b, lambda a, b: a.t() @ b, [(130, 33), (130, 47)]),
    ("mm_slice", lambda a, b: a[:, 5:105] @ b[::2], lambda a, b: a[:, 5:105] @ b[::2], [(33, 130), (200, 47)]),
    ("bmm", lambda a, b: a.bmm(b), lambda a, b: a.bmm(b), [(4, 17, 64), (4, 64, 29)]),
    ("matmul_broadcast", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4, 17, 64), (64, 29)]),
    ("matmul_batch_broadcast", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 1, 17, 64), (4, 64, 29)]),
    ("mv", lambda a, b: a @ b, lambda a, b: a @ b, [(40, 96), (96,)]),
    ("linear", lambda x, w, b: tt.nn.functional.linear(x, w, b), lambda x, w, b: torch.nn.functional.linear(x, w, b),
     [(8, 21, 96), (50, 96), (50,)]),
]


def _oracle(name: str, arrays: list[np.ndarray]) -> np.ndarray:
    """The float64 product of the bfloat16-rounded operands (a bias is added unrounded)."""
    r = [_bf16(a) for a in arrays]
    if name == "mm_bt":
        return r[0] @ r[1].T
    if name == "mm_at":
        return r[0].T @ r[1]
    if name == "mm_slice":
        return _bf16(arrays[0][:, 5:105]) @ _bf16(arrays[1][::2])
    if name == "bmm":
        return np.matmul(r[0], r[1])
    if name == "linear":
        return r[0] @ r[1].T + arrays[2].astype(np.float64)
    return np.matmul(r[0], r[1])


@pytest.mark.parametrize("name, op, ref, shapes", CASES, ids=[c[0] for c in CASES])
def test_medium_rounds_operands_to_bf16(medium: str, name: str, op: Callable[..., Any], ref: Callable[..., Any],
                                        shapes: list[tuple[int, ...]]) -> None:
    arrays = [_values(*s, seed=i) for i, s in enumerate(shapes)]
    got = op(*(tt.from_numpy(a) for a in arrays))
    assert got.dtype == tt.float32
    out = got.numpy().astype(np.float64)
    exact = np.matmul(*(a.astype(np.float64) for a in arrays[:2])) if name in ("mm", "bmm") else None
    if not _on_bf16_gemm():  # OpenBLAS: "medium" changes nothing (float32 products)
        with warnings.catch_warnings():
            tt.set_float32_matmul_precision("highest")
        want = op(*(tt.from_numpy(a) for a in arrays)).numpy()
        np.testing.assert_array_equal(out, want)
        return
    oracle = _oracle(name, arrays)
    k = shapes[0][-1]
    # float32 accumulation of k products of bfloat16 values: a few float32 ulps of the sums of |terms|
    scale = np.matmul(*(np.abs(_bf16(a)) for a in arrays[:2])) if name in ("mm", "bmm", "mv") else np.abs(oracle) + k
    np.testing.assert_array_less(np.abs(out - oracle), 4 * k * 2.0**-24 * scale + 1e-30)
    if exact is not None:  # and it is not the float32 product: the operands were rounded
        assert np.abs(out - exact).max() > 1e-3
    if name == "mv" or not _torch_rounds_under_medium():  # torch 2.13 keeps its matrix-vector products in float32
        return
    # torch computes the same sums in another order
    want = ref(*(torch.from_numpy(a) for a in arrays)).numpy()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4 * np.sqrt(k))


def test_medium_gradients_of_a_linear_layer(medium: str) -> None:
    """The backward's products (input and weight gradients) are float32 products too, both rounded.
    torch 2.13 rounds the input gradient's operands but not the weight gradient's (g^T x stays
    float32 there): its "medium" depends on which of its GEMM paths a product takes."""
    x, w, b = _values(16, 64), _values(32, 64, seed=1), _values(32, seed=2)
    g = _values(16, 32, seed=3)
    tx, tw, tb = (tt.tensor(v, requires_grad=True) for v in (x, w, b))
    rx, rw, rb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    tt.nn.functional.linear(tx, tw, tb).backward(tt.from_numpy(g))
    torch.nn.functional.linear(rx, rw, rb).backward(torch.from_numpy(g))
    np.testing.assert_allclose(tb.grad.numpy(), rb.grad.numpy(), rtol=1e-6, atol=1e-5)
    if not _on_bf16_gemm():  # float32 products
        np.testing.assert_allclose(tx.grad.numpy(), g.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(tw.grad.numpy(), g.astype(np.float64).T @ x, rtol=1e-5, atol=1e-5)
        return
    np.testing.assert_allclose(tx.grad.numpy(), _bf16(g) @ _bf16(w), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tw.grad.numpy(), _bf16(g).T @ _bf16(x), rtol=1e-5, atol=1e-5)
    if _torch_rounds_under_medium():
        np.testing.assert_allclose(tx.grad.numpy(), rx.grad.numpy(), rtol=1e-5, atol=1e-4)


def test_medium_leaves_convolution_in_float32(medium: str) -> None:
    """torch 2.13's convolutions are not affected by the matmul precision; neither are ours."""
    x, w = _values(2, 8, 12, 12), _values(16, 8, 3, 3, seed=1)
    got = tt.nn.functional.conv2d(tt.from_numpy(x), tt.from_numpy(w)).numpy()
    tt.set_float32_matmul_precision("highest")
    want = tt.nn.functional.conv2d(tt.from_numpy(x), tt.from_numpy(w)).numpy()
    np.testing.assert_array_equal(got, want)


def test_highest_is_float32(blas: str) -> None:
    a, b = _values(33, 130), _values(130, 47, seed=1)
    out = (tt.from_numpy(a) @ tt.from_numpy(b)).numpy()
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


def test_medium_compiled_step_agrees_with_eager(medium: str) -> None:
    """The graph's GEMM epilogues (a layer's bias and activation fused into the product) round the
    operands as the eager products do."""
    x, w1, b1, w2 = _values(64, 96), _values(96, 128, seed=1), _values(128, seed=2), _values(128, 8, seed=3)

    def step(x: Any, w1: Any, b1: Any, w2: Any) -> Any:
        return (tt.tanh(x @ w1 + b1) @ w2).sum(-1)

    args = [tt.from_numpy(v) for v in (x, w1, b1, w2)]
    eager = step(*args).numpy()
    compiled = tt.compile(step)(*args).numpy()
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-4)  # sums in another order
    if _on_bf16_gemm():
        h = np.tanh(_bf16(x) @ _bf16(w1) + b1)
        np.testing.assert_allclose(eager, (_bf16(h) @ _bf16(w2)).sum(-1), rtol=1e-4, atol=1e-4)
