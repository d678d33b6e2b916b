"""Every module's ``repr`` reads like torch's for the same constructor arguments."""

from __future__ import annotations

from typing import Any

import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Linear", (3, 4), {}), ("Linear", (3, 4), {"bias": False}),
    ("Conv2d", (3, 8, 3), {}),
    ("Conv2d", (3, 8, (3, 5)), {"stride": 2, "padding": 1, "dilation": 2, "bias": False}),
    ("Conv2d", (4, 8, 3), {"padding": "same", "groups": 2}),
    ("MaxPool2d", (2,), {}), ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("AvgPool2d", (2,), {}), ("AvgPool2d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("AdaptiveAvgPool2d", ((1, 1),), {}), ("AdaptiveAvgPool2d", (5,), {}),
    ("BatchNorm1d", (4,), {}), ("BatchNorm2d", (4,), {"bias": False}),
    ("BatchNorm2d", (4,), {"eps": 1e-3, "momentum": None, "affine": False, "track_running_stats": False}),
    ("LayerNorm", (5,), {}), ("LayerNorm", ((2, 3),), {"eps": 1e-6, "elementwise_affine": False}),
    ("LayerNorm", (4,), {"bias": False}),
    ("Embedding", (10, 3), {}), ("Embedding", (10, 3), {"padding_idx": 0, "max_norm": 1.0, "norm_type": 1.0}),
    ("Dropout", (), {}), ("Dropout", (0.2,), {"inplace": True}), ("Dropout2d", (0.3,), {}),
    ("ReLU", (), {}), ("ReLU", (True,), {}), ("GELU", (), {}), ("GELU", ("tanh",), {}), ("Tanh", (), {}),
    ("Sigmoid", (), {}), ("SiLU", (), {}), ("SiLU", (True,), {}), ("LeakyReLU", (), {}), ("LeakyReLU", (0.2, True), {}),
    ("Softplus", (), {}), ("Softplus", (2.0, 10.0), {}), ("Softsign", (), {}), ("Softmax", (1,), {}), ("Softmax", (), {}),
    ("LogSoftmax", (-1,), {}), ("Flatten", (), {}), ("Flatten", (0, 2), {}), ("Identity", (), {}),
    ("CrossEntropyLoss", (), {}), ("CrossEntropyLoss", (), {"ignore_index": 0, "label_smoothing": 0.1, "reduction": "sum"}),
    ("NLLLoss", (), {}), ("MSELoss", (), {"reduction": "sum"}), ("L1Loss", (), {}), ("BCELoss", (), {}),
    ("BCEWithLogitsLoss", (), {}),
    ("MultiheadAttention", (8, 2), {}), ("MultiheadAttention", (8, 2), {"batch_first": True, "bias": False, "dropout": 0.1}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_repr_matches_torch(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    assert repr(getattr(tt.nn, name)(*args, **kwargs)) == repr(getattr(torch.nn, name)(*args, **kwargs))


def test_every_module_class_is_covered() -> None:
    covered = {c[0] for c in CASES} | {"Module", "Sequential", "ModuleList", "ModuleDict"}
    classes = {n for n in dir(tt.nn) if isinstance(getattr(tt.nn, n), type) and issubclass(getattr(tt.nn, n), tt.nn.Module)}
    assert classes <= covered, f"add these to CASES: {sorted(classes - covered)}"


def test_containers_print_like_torch() -> None:
    def build(nn: Any) -> Any:
        return nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.LeakyReLU(0.2, inplace=True),
            nn.ModuleList([nn.Linear(2, 3), nn.ModuleDict({"act": nn.ReLU(inplace=True)})]),
        )

    assert repr(build(tt.nn)) == repr(build(torch.nn))
