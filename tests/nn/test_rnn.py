"""nn.RNN / LSTM / GRU and their cells against torch on the same weights: outputs, final states and
every gradient, for layers, directions, batch_first, projections, initial states, unbatched and
packed inputs; state dicts in both directions; the fused CPU kernel (NOTE [ Fused recurrent layers ]
in backend/src/cpu/rnn.cpp) against the composite of ordinary ops; the layers inside tt.compile."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor.nn import rnn as tt_rnn

torch = pytest.importorskip("torch")
tnn = torch.nn

F64 = {"rtol": 1e-9, "atol": 1e-10}
F32 = {"rtol": 2e-4, "atol": 2e-5}


def _pair(name: str, dtype: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """A torch module and ours with torch's weights (the state dict goes torch -> typedtensor)."""
    torch.manual_seed(0)
    ref = getattr(tnn, name)(*args, **kwargs).to(dtype)
    ours = getattr(tt.nn, name)(*args, **kwargs)
    ours = ours.double() if dtype == torch.float64 else ours
    ours.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    return ref, ours


def _t(a: np.ndarray, grad: bool = False) -> tuple[Any, Any]:
    return tt.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def _flat(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)):
        return [y for i in x for y in _flat(i)]
    return [x]


def _close(ours: Any, ref: Any, tol: dict[str, float]) -> None:
    for a, b in zip(_flat(ours), _flat(ref), strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)


def _run_both(ref: Any, ours: Any, x: np.ndarray, hx: Any, tol: dict[str, float]) -> None:
    """Forward on both, then backward of a random weighting of every output; compare it all."""
    xo, xr = _t(x, grad=True)
    hxo = hxr = None
    if hx is not None:
        pairs = [_t(h, grad=True) for h in (hx if isinstance(hx, tuple) else (hx,))]
        hxo = tuple(p[0] for p in pairs) if isinstance(hx, tuple) else pairs[0][0]
        hxr = tuple(p[1] for p in pairs) if isinstance(hx, tuple) else pairs[0][1]
    out_o, out_r = ours(xo, hxo), ref(xr, hxr)
    _close(out_o, out_r, tol)
    rng = np.random.default_rng(1)
    loss_o: Any = 0
    loss_r: Any = 0
    for a, b in zip(_flat(out_o), _flat(out_r), strict=True):
        w = rng.standard_normal(tuple(b.shape)).astype(x.dtype)
        loss_o = loss_o + (a * tt.tensor(w)).sum()
        loss_r = loss_r + (b * torch.tensor(w)).sum()
    loss_o.backward()
    loss_r.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy(), **tol)
    if hx is not None:
        for a, b in zip(_flat(hxo), _flat(hxr), strict=True):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **tol)
    theirs = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs[name].grad.numpy(), **tol, err_msg=name)


SEQUENCE_CONFIGS = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"batch_first": True, "proj_size": 3}),
    ("LSTM", {"num_layers": 2, "bias": False, "bidirectional": True, "proj_size": 2}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {"bias": False}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}),
    ("RNN", {"bias": False, "batch_first": True}),
]


def _hidden(name: str, kwargs: dict[str, Any], batch: tuple[int, ...], rng: Any, dtype: Any) -> Any:
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h = rng.standard_normal((layers, *batch, kwargs.get("proj_size") or 6)).astype(dtype)
    if name == "LSTM":
        return h, rng.standard_normal((layers, *batch, 6)).astype(dtype)
    return h


@pytest.mark.parametrize(("name", "kwargs"), SEQUENCE_CONFIGS, ids=[f"{n}-{sorted(k.items())}" for n, k in SEQUENCE_CONFIGS])
@pytest.mark.parametrize("with_state", [False, True])
def test_sequence_module_matches_torch_float64(name: str, kwargs: dict[str, Any], with_state: bool) -> None:
    ref, ours = _pair(name, torch.float64, 5, 6, **kwargs)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 7, 5) if kwargs.get("batch_first") else (7, 4, 5))
    hx = _hidden(name, kwargs, (4,), rng, np.float64) if with_state else None
    _run_both(ref, ours, x, hx, F64)


@pytest.mark.parametrize(("name", "kwargs"), SEQUENCE_CONFIGS[::3], ids=[n for n, _ in SEQUENCE_CONFIGS[::3]])
def test_sequence_module_matches_torch_float32(name: str, kwargs: dict[str, Any]) -> None:
    ref, ours = _pair(name, torch.float32, 5, 6, **kwargs)
    x = np.random.default_rng(3).standard_normal((4, 9, 5) if kwargs.get("batch_first") else (9, 4, 5)).astype(np.float32)
    _run_both(ref, ours, x, None, F32)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(name: str, batch_first: bool) -> None:
    kwargs = {"num_layers": 2, "bidirectional": True, "batch_first": batch_first}
    ref, ours = _pair(name, torch.float64, 3, 6, **kwargs)
    rng = np.random.default_rng(4)
    _run_both(ref, ours, rng.standard_normal((5, 3)), None, F64)
    _run_both(ref, ours, rng.standard_normal((5, 3)), _hidden(name, kwargs, (), rng, np.float64), F64)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_fused_kernel_matches_the_composite(name: str) -> None:
    kwargs: dict[str, Any] = {"num_layers": 2, "bidirectional": True}
    if name == "LSTM":
        kwargs["proj_size"] = 4
    ref, ours = _pair(name, torch.float64, 5, 6, **kwargs)
    x = np.random.default_rng(5).standard_normal((6, 3, 5))
    got = []
    for fused in (True, False):
        xo = tt.tensor(x, requires_grad=True)
        ours.zero_grad()
        with tt_rnn.use_fused(fused):
            out, _ = ours(xo)
        out.pow(2).sum().backward()
        got.append([out.detach().numpy(), xo.grad.numpy(), *(p.grad.numpy() for p in ours.parameters())])
    for a, b in zip(*got, strict=True):
        np.testing.assert_allclose(a, b, **F64)
    ours.zero_grad()
    _run_both(ref, ours, x, None, F64)


# ---------------------------------------------------------------------------------------------
# packed sequences


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("fused", [True, False])
def test_packed_input_matches_torch(name: str, fused: bool) -> None:
    kwargs = {"num_layers": 2, "bidirectional": True, "batch_first": True}
    ref, ours = _pair(name, torch.float64, 3, 6, **kwargs)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 5, 3))
    lengths = [3, 5, 1, 4]  # unsorted: enforce_sorted=False sorts, and the results come back in this order
    xo, xr = _t(x, grad=True)
    po = tt.nn.utils.rnn.pack_padded_sequence(xo, lengths, batch_first=True, enforce_sorted=False)
    pr = tnn.utils.rnn.pack_padded_sequence(xr, lengths, batch_first=True, enforce_sorted=False)
    assert po.batch_sizes.tolist() == pr.batch_sizes.tolist() == [4, 3, 3, 2, 1]
    assert po.sorted_indices.tolist() == pr.sorted_indices.tolist()
    hx = _hidden(name, kwargs, (4,), rng, np.float64)
    hxo = tuple(tt.tensor(h) for h in hx) if isinstance(hx, tuple) else tt.tensor(hx)
    hxr = tuple(torch.tensor(h) for h in hx) if isinstance(hx, tuple) else torch.tensor(hx)
    with tt_rnn.use_fused(fused):
        out_o, h_o = ours(po, hxo)
    out_r, h_r = ref(pr, hxr)
    assert isinstance(out_o, tt.nn.utils.rnn.PackedSequence)
    _close(out_o.data, out_r.data, F64)
    _close(h_o, h_r, F64)
    pad_o, len_o = tt.nn.utils.rnn.pad_packed_sequence(out_o, batch_first=True, total_length=6)
    pad_r, len_r = tnn.utils.rnn.pad_packed_sequence(out_r, batch_first=True, total_length=6)
    assert len_o.tolist() == len_r.tolist() == lengths
    _close(pad_o, pad_r, F64)
    w = rng.standard_normal(tuple(pad_r.shape))
    ((pad_o * tt.tensor(w)).sum() + _flat(h_o)[0].sum()).backward()
    ((pad_r * torch.tensor(w)).sum() + _flat(h_r)[0].sum()).backward()
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy(), **F64)
    theirs = dict(ref.named_parameters())
    for pname, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs[pname].grad.numpy(), **F64, err_msg=pname)


def test_padding_helpers_match_torch() -> None:
    rng = np.random.default_rng(7)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 5, 2)]
    ours, theirs = [tt.tensor(s) for s in seqs], [torch.tensor(s) for s in seqs]
    U, TU = tt.nn.utils.rnn, tnn.utils.rnn
    for kw in ({}, {"batch_first": True}, {"padding_value": -1.0, "padding_side": "left"},
               {"batch_first": True, "padding_side": "left", "padding_value": 2.5}):
        _close(U.pad_sequence(ours, **kw), TU.pad_sequence(theirs, **kw), F64)
    packed_o, packed_r = U.pack_sequence(ours, enforce_sorted=False), TU.pack_sequence(theirs, enforce_sorted=False)
    _close(packed_o.data, packed_r.data, F64)
    assert packed_o.batch_sizes.tolist() == packed_r.batch_sizes.tolist()
    assert packed_o.unsorted_indices.tolist() == packed_r.unsorted_indices.tolist()
    for a, b in zip(U.unpack_sequence(packed_o), TU.unpack_sequence(packed_r), strict=True):
        _close(a, b, F64)
    padded_o, padded_r = U.pad_sequence(ours), TU.pad_sequence(theirs)
    lengths = torch.tensor([3, 5, 2])
    for a, b in zip(U.unpad_sequence(padded_o, tt.tensor([3, 5, 2])), TU.unpad_sequence(padded_r, lengths), strict=True):
        _close(a, b, F64)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        U.pack_sequence(ours)
    with pytest.raises(ValueError, match="total_length"):
        U.pad_packed_sequence(packed_o, total_length=2)


def test_packing_is_differentiable() -> None:
    x = np.random.default_rng(8).standard_normal((4, 3, 2))
    xo, xr = _t(x, grad=True)
    po = tt.nn.utils.rnn.pack_padded_sequence(xo, [4, 2, 1])
    pr = tnn.utils.rnn.pack_padded_sequence(xr, [4, 2, 1])
    (po.data * tt.tensor(np.arange(14.0).reshape(7, 2))).sum().backward()
    (pr.data * torch.tensor(np.arange(14.0).reshape(7, 2))).sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy())


# ---------------------------------------------------------------------------------------------
# cells


CELL_CONFIGS = [("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False}),
                ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"})]


@pytest.mark.parametrize(("name", "kwargs"), CELL_CONFIGS, ids=[f"{n}-{sorted(k.items())}" for n, k in CELL_CONFIGS])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_cell_matches_torch(name: str, kwargs: dict[str, Any], batched: bool, with_state: bool) -> None:
    ref, ours = _pair(name, torch.float64, 5, 6, **kwargs)
    rng = np.random.default_rng(9)
    batch = (3,) if batched else ()
    hx: Any = None
    if with_state:
        hx = rng.standard_normal((*batch, 6))
        if name == "LSTMCell":
            hx = (hx, rng.standard_normal((*batch, 6)))
    _run_both(ref, ours, rng.standard_normal((*batch, 5)), hx, F64)


def test_lstm_cell_loop_float32_matches_torch() -> None:
    """time_sequence_prediction's pattern: two LSTMCells stepped over a sequence, then a Linear."""
    torch.manual_seed(1)
    cells = [tnn.LSTMCell(1, 8), tnn.LSTMCell(8, 8)]
    ours = [tt.nn.LSTMCell(1, 8), tt.nn.LSTMCell(8, 8)]
    for o, r in zip(ours, cells, strict=True):
        o.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in r.state_dict().items()})
    x = np.random.default_rng(10).standard_normal((3, 12)).astype(np.float32)

    def run(lib: Any, mods: list[Any], inp: Any) -> Any:
        h1 = c1 = h2 = c2 = lib.zeros(3, 8)
        total = 0
        for step in inp.split(1, dim=1):
            h1, c1 = mods[0](step, (h1, c1))
            h2, c2 = mods[1](h1, (h2, c2))
            total = total + h2.sum()
        return total

    a, b = run(tt, ours, tt.tensor(x)), run(torch, cells, torch.tensor(x))
    a.backward()
    b.backward()
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-5)
    np.testing.assert_allclose(ours[0].weight_hh.grad.numpy(), cells[0].weight_hh.grad.numpy(), **F32)


# ---------------------------------------------------------------------------------------------
# parameters, state dicts, construction


@pytest.mark.parametrize(("name", "kwargs"), SEQUENCE_CONFIGS + CELL_CONFIGS,
                         ids=[f"{n}-{sorted(k.items())}" for n, k in SEQUENCE_CONFIGS + CELL_CONFIGS])
def test_parameter_names_shapes_and_init_are_torchs(name: str, kwargs: dict[str, Any]) -> None:
    ref = getattr(tnn, name)(5, 6, **kwargs)
    ours = getattr(tt.nn, name)(5, 6, **kwargs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in ref.named_parameters()]
    bound = 1 / np.sqrt(6)
    values = np.concatenate([p.detach().numpy().ravel() for p in ours.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.std() > 0.8 * bound / np.sqrt(3)  # uniform on [-b, b] has std b / sqrt(3)
    assert repr(ours) == repr(ref)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_state_dict_goes_from_typedtensor_to_torch(name: str) -> None:
    kwargs: dict[str, Any] = {"num_layers": 2, "bidirectional": True}
    if name == "LSTM":
        kwargs["proj_size"] = 3
    ours = getattr(tt.nn, name)(4, 5, **kwargs).double()
    ref = getattr(tnn, name)(4, 5, **kwargs).double()
    result = ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()}, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    x = np.random.default_rng(11).standard_normal((3, 2, 4))
    _close(ours(tt.tensor(x)), ref(torch.tensor(x)), F64)


def test_torch_attributes_and_helpers() -> None:
    lstm = tt.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    ref = tnn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    assert lstm._flat_weights_names == ref._flat_weights_names
    assert [[tuple(p.shape) for p in ws] for ws in lstm.all_weights] == [[tuple(p.shape) for p in ws] for ws in ref.all_weights]
    lstm.flatten_parameters()
    assert lstm.get_expected_hidden_size(tt.zeros(7, 5, 3), None) == (4, 5, 2)
    assert lstm.get_expected_cell_size(tt.zeros(7, 5, 3), None) == (4, 5, 4)
    assert isinstance(lstm, tt.nn.RNNBase) and isinstance(tt.nn.GRUCell(2, 3), tt.nn.RNNCellBase)
    assert tt.nn.modules.rnn.LSTM is tt.nn.LSTM


def test_construction_errors_are_torchs() -> None:
    for kwargs, error in (({"proj_size": 6}, ValueError), ({"dropout": 1.5}, ValueError), ({"num_layers": 0}, ValueError),
                          ({"batch_first": 1}, TypeError)):
        with pytest.raises(error):
            tnn.LSTM(3, 6, **kwargs)
        with pytest.raises(error):
            tt.nn.LSTM(3, 6, **kwargs)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        tt.nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        tt.nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        tt.nn.LSTM(3, 4, dropout=0.5)


def test_shape_errors_name_the_module() -> None:
    lstm = tt.nn.LSTM(3, 4, batch_first=True)
    with pytest.raises(tt.ShapeError, match=r"LSTM\.forward: input has 5 features"):
        lstm(tt.zeros(2, 7, 5))
    with pytest.raises(tt.ShapeError, match=r"h_0 must be \[1, 2, 4\]"):
        lstm(tt.zeros(2, 7, 3), (tt.zeros(1, 3, 4), tt.zeros(1, 2, 4)))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D"):
        lstm(tt.zeros(2, 7, 3, 1))
    with pytest.raises(tt.ShapeError, match=r"GRUCell\.forward: hx must be"):
        tt.nn.GRUCell(3, 4)(tt.zeros(2, 3), tt.zeros(3, 4))


def test_dropout_between_layers_only_in_training() -> None:
    lstm = tt.nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = tt.randn(5, 2, 3)
    a, _ = lstm(x)
    b, _ = lstm(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    lstm.eval()
    c, _ = lstm(x)
    d, _ = lstm(x)
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())


def test_fused_primitive_checks_its_arguments() -> None:
    xp, h0, c0, w = tt.zeros(6, 8), tt.zeros(3, 2), tt.zeros(3, 2), tt.zeros(8, 2)
    out, h, c = tt._C._rnn_layer("lstm", xp, h0, c0, w, None, None, [3, 2, 1], False)
    assert tuple(out.shape) == (6, 2) and tuple(h.shape) == (3, 2) and tuple(c.shape) == (3, 2)
    with pytest.raises(ValueError, match="non-increasing"):
        tt._C._rnn_layer("lstm", xp, h0, c0, w, None, None, [3, 1, 2], False)
    with pytest.raises(ValueError, match="the first step has 2 rows but the state has 3"):
        tt._C._rnn_layer("lstm", tt.zeros(4, 8), h0, c0, w, None, None, [2, 2], False)
    with pytest.raises(tt.ShapeError):
        tt._C._rnn_layer("lstm", tt.zeros(5, 8), h0, c0, w, None, None, [3, 2, 1], False)
    with pytest.raises(ValueError, match="needs c0"):
        tt._C._rnn_layer("lstm", xp, h0, None, w, None, None, [3, 2, 1], False)
    with pytest.raises(TypeError, match="float32 or float64"):
        tt._C._rnn_layer("tanh", tt.zeros(6, 2, dtype=tt.int64), tt.zeros(3, 2, dtype=tt.int64), None,
                         tt.zeros(2, 2, dtype=tt.int64), None, None, [3, 2, 1], False)


# ---------------------------------------------------------------------------------------------
# devices and graph capture


def test_emulated_cuda_takes_the_composite() -> None:
    if tt.cuda.is_available():
        pytest.skip("a real CUDA device is present: tests/backend/test_cuda.py covers devices")
    gru = tt.nn.GRU(3, 4, num_layers=2, bidirectional=True).double()
    x = tt.tensor(np.random.default_rng(12).standard_normal((5, 2, 3)))
    want, h_want = gru(x)
    tt._C._testing_emulate_cuda(True)
    try:
        gpu = gru.cuda()
        got, h_got = gpu(x.cuda())
        assert got.is_cuda
        got, h_got = got.cpu(), h_got.cpu()
    finally:
        tt._C._testing_emulate_cuda(False)
    _close(got, want, F64)
    _close(h_got, h_want, F64)


def test_lstm_training_step_inside_compile() -> None:
    torch.manual_seed(2)
    ref = tnn.LSTM(4, 6, num_layers=2, batch_first=True)
    ours = tt.nn.LSTM(4, 6, num_layers=2, batch_first=True)
    ours.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(13).standard_normal((3, 5, 4)).astype(np.float32)
    params = list(ours.parameters())

    def step(inp: Any) -> Any:
        out, (h, _) = ours(inp)
        loss = out.pow(2).mean() + h.sum()
        loss.backward()
        return loss.detach()

    compiled = tt.compile(step, params=params)
    got = compiled(tt.tensor(x)).item()
    assert "rnn_layer" in str(compiled.graph_for(tt.tensor(x)).text())
    out, (h, _) = ref(torch.tensor(x))
    want = out.pow(2).mean() + h.sum()
    want.backward()
    assert abs(got - want.item()) <= 1e-5 * max(1.0, abs(want.item()))
    theirs = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs[name].grad.numpy(), **F32, err_msg=name)


def test_saved_graph_reloads_the_primitive(tmp_path: Any) -> None:
    gru = tt.nn.GRU(3, 4, bidirectional=True)
    x = tt.randn(6, 2, 3)

    def fn(inp: Any) -> Any:
        return gru(inp)[0]

    cf = tt.compile(fn)
    with tt.no_grad():  # an inference graph (in grad mode the GRU's outputs would need autograd: eager)
        want = cf(x)
    path = tmp_path / "gru.ttg"
    tt.jit.save(cf, path)
    got = tt.jit.load(path)(x)
    got = got[0] if isinstance(got, (list, tuple)) else got
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
