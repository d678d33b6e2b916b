"""torch's import paths that real programs use resolve in typedtensor, to the same objects as the
short paths, and the small modules behind them answer as torch's do on this machine."""

from __future__ import annotations

import importlib
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.nn as nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "path",
    [
        "typedtensor.accelerator", "typedtensor.backends", "typedtensor.backends.cudnn", "typedtensor.backends.cuda",
        "typedtensor.backends.mps", "typedtensor.backends.mkldnn", "typedtensor.backends.openmp",
        "typedtensor.distributed", "typedtensor.multiprocessing", "typedtensor.serialization",
        "typedtensor.nn.parallel", "typedtensor.nn.utils", "typedtensor.nn.modules", "typedtensor.nn.modules.conv",
        "typedtensor.utils.data", "typedtensor.utils.data.dataloader", "typedtensor.utils.data.dataset",
        "typedtensor.utils.data.sampler", "typedtensor.utils.data.distributed",
    ],
)
def test_import_path(path: str) -> None:
    importlib.import_module(path)


def test_torch_nn_module_files_resolve_to_typedtensor_nn_classes() -> None:
    from typedtensor.nn.modules._paths import TORCH_FILES

    found = 0
    for file, names in TORCH_FILES.items():
        ours = importlib.import_module(f"typedtensor.nn.modules.{file}")
        theirs = importlib.import_module(f"torch.nn.modules.{file}")
        for name in names:
            assert hasattr(theirs, name), f"torch.nn.modules.{file} has no {name}: the table is wrong"
            if hasattr(nn, name):
                assert getattr(ours, name) is getattr(nn, name), f"nn.modules.{file}.{name}"
                assert getattr(nn.modules, name) is getattr(nn, name)
                found += 1
            elif name != "NonDynamicallyQuantizableLinear":  # defined outside torch.nn's namespace in both
                assert not hasattr(ours, name)
    assert issubclass(nn.modules.linear.NonDynamicallyQuantizableLinear, nn.Linear)
    assert nn.modules.conv.Conv2d is nn.Conv2d and nn.modules.container.Sequential is nn.Sequential
    assert found >= 30


def test_every_torch_module_class_is_in_the_table() -> None:
    from typedtensor.nn.modules._paths import TORCH_FILES

    listed = {n for names in TORCH_FILES.values() for n in names}
    missing = [n for n in torch.nn.modules.__all__ if n not in listed]
    assert not missing


def test_utils_data_submodules_are_typedtensor_data_submodules() -> None:
    import typedtensor.utils.data.dataloader

    import typedtensor.data.dataloader

    assert typedtensor.utils.data.dataloader is typedtensor.data.dataloader
    from typedtensor.utils.data.dataloader import DataLoader

    assert DataLoader is tt.data.DataLoader is tt.utils.data.DataLoader


def test_accelerator_answers_like_torch_on_this_machine() -> None:
    acc = tt.accelerator
    assert acc.is_available() == tt.cuda.is_available()
    assert acc.device_count() == tt.cuda.device_count()
    if tt.cuda.is_built():
        assert acc.current_accelerator().type == "cuda"
    if not acc.is_available():
        assert acc.current_accelerator(check_available=True) is None
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
            acc.current_device_index()
        with pytest.raises(RuntimeError, match="none is available"):
            acc.synchronize()
        assert torch.accelerator.is_available() is False  # the oracle agrees on a CPU machine
    else:
        assert acc.current_device_index() == 0
        acc.synchronize()
        assert acc.memory_allocated() >= 0
    with acc.device_index(None):
        pass


def test_backends_accept_the_flags_programs_set() -> None:
    import typedtensor.backends.cudnn as cudnn

    assert cudnn.is_available() is False and cudnn.enabled is True
    cudnn.benchmark = True
    cudnn.deterministic = True
    assert tt.backends.cudnn.benchmark is True and tt.backends.cudnn.deterministic is True
    with cudnn.flags(enabled=False, benchmark=False):
        assert cudnn.enabled is False and cudnn.benchmark is False
    assert cudnn.enabled is True and cudnn.benchmark is True
    cudnn.benchmark = cudnn.deterministic = False
    assert tt.backends.mps.is_available() is False and tt.backends.mps.is_built() is False
    assert tt.backends.cuda.matmul.allow_tf32 is False
    assert isinstance(tt.backends.cpu.get_cpu_capability(), str)


def test_distributed_before_init_answers_as_torch() -> None:
    import typedtensor.distributed as dist

    assert dist.is_initialized() is False
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_rank()
    assert dist.ReduceOp.SUM.name == "SUM"
    from typedtensor.data.distributed import DistributedSampler

    with pytest.raises(ValueError, match="has not been initialized"):
        DistributedSampler(list(range(10)))


def test_distributed_sampler_shares_out_the_dataset() -> None:
    from typedtensor.utils.data.distributed import DistributedSampler

    parts = [list(DistributedSampler(list(range(10)), num_replicas=3, rank=r, shuffle=True, seed=4)) for r in range(3)]
    assert [len(p) for p in parts] == [4, 4, 4]  # padded to 12 by repeating, as torch does
    assert sorted({i for p in parts for i in p}) == list(range(10))
    s = DistributedSampler(list(range(10)), num_replicas=3, rank=0, drop_last=True, shuffle=False)
    assert list(s) == [0, 3, 6] and len(s) == 3
    s.set_epoch(1)
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(list(range(4)), num_replicas=2, rank=2)


def test_data_parallel_is_a_pass_through_with_torch_state_dict_names() -> None:
    lin = nn.Linear(3, 2)
    dp = nn.parallel.DataParallel(lin)
    x = tt.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    ref = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    assert sorted(dp.state_dict()) == sorted(ref.state_dict()) == ["module.bias", "module.weight"]
    assert dp.module is lin
    assert nn.DataParallel is nn.parallel.DataParallel  # torch.nn.DataParallel, as pytorch/examples write it
    y = nn.parallel.data_parallel(lin, x)
    np.testing.assert_array_equal(y.detach().numpy(), lin(x).detach().numpy())
    with pytest.raises(RuntimeError, match="init_process_group first"):
        nn.parallel.DistributedDataParallel(lin)


def test_safe_globals_keeps_torch_api() -> None:
    import typedtensor.serialization as ser

    before = ser.get_safe_globals()
    with ser.safe_globals([nn.Linear]):
        assert nn.Linear in ser.get_safe_globals()
    assert ser.get_safe_globals() == before
    ser.add_safe_globals([nn.Conv2d])
    assert nn.Conv2d in ser.get_safe_globals()
    ser.clear_safe_globals()
    assert ser.get_safe_globals() == []
    assert ser.save is tt.save and ser.load is tt.load


def _square(i: int, out: Any) -> None:
    out.put(i * i)


def _fail(i: int) -> None:
    if i == 1:
        raise ValueError("process one fails")


def test_multiprocessing_spawn_runs_and_reports_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    import typedtensor.multiprocessing as mp

    # the children unpickle _square from this test module: they need the checkout on their path, after
    # the installed package (a spawned child takes its parent's sys.path)
    monkeypatch.setattr(sys, "path", [*sys.path, str(Path(__file__).resolve().parents[2])])

    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.spawn(_square, args=(q,), nprocs=2)
    assert sorted(q.get() for _ in range(2)) == [0, 1]
    with pytest.raises(mp.ProcessRaisedException, match="process one fails"):
        mp.spawn(_fail, nprocs=2)
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    with pytest.raises(ValueError, match="unknown sharing strategy"):
        mp.set_sharing_strategy("nope")
    assert pickle.loads(pickle.dumps(tt.ones(2))).tolist() == [1.0, 1.0]


def test_stubs_of_nn_modules_list_what_the_runtime_exports() -> None:
    """stubs/typedtensor/nn/modules/<file>.pyi re-export exactly the classes the runtime module has."""
    import ast
    from pathlib import Path

    from typedtensor.nn.modules._paths import TORCH_FILES

    stubs = Path(__file__).resolve().parents[2] / "stubs" / "typedtensor" / "nn" / "modules"
    for file in TORCH_FILES:
        tree = ast.parse((stubs / f"{file}.pyi").read_text())
        names = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        names |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        runtime = set(importlib.import_module(f"typedtensor.nn.modules.{file}").__all__)
        assert names - {"Any"} == runtime, f"stubs/typedtensor/nn/modules/{file}.pyi: regenerate from _paths.TORCH_FILES"
