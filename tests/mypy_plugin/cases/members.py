# Attributes a Module gets at run time (NOTE [ Registered attributes ] in mypy_plugin/members.py):
# `Module.__getattr__` types an undeclared name `Tensor | Module`, as torch's stub does, and the
# plugin narrows registered buffers, parameters and submodules, and a ModuleDict's entries.
# Also: parameters, ModuleList indexing, sizes over `Final` constants, torch's data import paths.
from typing import Final, Literal

import typedtensor as tt
import typedtensor.utils.data.dataloader
from typedtensor import Dim, Tensor, nn
from typedtensor.data.dataset import TensorDataset
from typedtensor.utils.data import DataLoader
from typedtensor.utils.data.dataloader import default_collate


class Batch(Dim): ...
class Seq(Dim): ...
class Model(Dim): ...
class Hidden(Dim): ...


class Registered(nn.Module):
    def __init__(self, d: Model) -> None:
        super().__init__()
        self.register_buffer("mask", tt.ones(64, 64).tril())
        self.register_buffer("scale", None)
        self.register_parameter("gain", nn.Parameter(tt.ones(d)))
        self.add_module("proj", nn.Linear(d, Hidden(8)))
        setattr(self, "out", nn.Linear(Hidden(8), d))
        for i in range(2):
            setattr(self, f"layer{i}", nn.Linear(d, d))

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        reveal_type(self.mask)  # R: Tensor[Literal[64], Literal[64]]
        reveal_type(self.scale)  # R: Tensor[*tuple[Any, ...]]
        reveal_type(self.gain)  # R: Parameter[*tuple[Any, ...]]
        reveal_type(self.proj)  # R: Linear[Model, Hidden]
        reveal_type(self.proj(x))  # R: Tensor[Batch, Seq, Hidden]
        self.proj(x.transpose(1, 2))  # E: shape-arg
        reveal_type(self.layer0)  # R: Tensor[*tuple[Any, ...]] | Module
        reveal_type(self.undeclared)  # R: Tensor[*tuple[Any, ...]] | Module
        h = self.out(self.proj(x)) * self.gain
        return h.masked_fill(self.mask[: x.shape[1], : x.shape[1]].unsqueeze(-1) == 0, 0.0)


class Dicts(nn.Module):
    def __init__(self, d: Model) -> None:
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(100, d), ln_f=nn.LayerNorm(d)))
        self.heads = nn.ModuleDict({"cls": nn.Linear(d, 10)})
        self.pairs = nn.ModuleDict([("up", nn.Linear(d, Hidden(4)))])
        self.tables = nn.ModuleDict(dict(wte=nn.Embedding(65, 48), wpe=nn.Embedding(32, 48)))  # sizes differ: no join to object
        self.blocks = nn.ModuleList([nn.Linear(d, d) for _ in range(3)])

    def forward(self, idx: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, Literal[10]]:
        reveal_type(self.transformer.wte)  # R: Embedding[Literal[100], Model]
        reveal_type(self.transformer["ln_f"])  # R: LayerNorm[Model]
        reveal_type(self.transformer.missing)  # R: Module
        reveal_type(self.pairs.up)  # R: Linear[Model, Hidden]
        reveal_type(self.tables.wpe)  # R: Embedding[Literal[32], Literal[48]]
        reveal_type(self.blocks[0])  # R: Linear[Model, Model]
        x = self.transformer.wte(idx)
        self.transformer.ln_f(idx.float())  # E: shape-arg
        x = self.blocks[-1](self.transformer.ln_f(x))
        return self.heads.cls(x)


class Patches(nn.Module):
    def __init__(self, d: Model) -> None:
        super().__init__()
        self.cls_token = nn.Parameter(tt.zeros(1, 1, d))
        self.w = nn.Parameter(tt.randn(Hidden(4), d))

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Hidden]:
        b = x.shape[0]
        reveal_type(self.cls_token.expand(b, -1, -1))  # R: Tensor[Batch, Literal[1], Model]
        x @ self.w  # E: shape-matmul
        return x @ self.w.t()


PATCH: Final = 16
WIDTH: Final[int] = 16


def final_sizes(img: Tensor[Batch, Literal[3], Literal[224], Literal[224]], s: Tensor[Batch, Seq]) -> None:
    b, c, h, w = img.shape
    reveal_type(h // PATCH)  # R: Literal[14]?
    reveal_type(h // WIDTH)  # R: Literal[14]?
    reveal_type(s.shape[1] // WIDTH)  # R: Div[Seq, Literal[16]]
    reveal_type(WIDTH * s.shape[1])  # R: Mul[Literal[16], Seq]
    reveal_type(img.reshape(b, c, h // WIDTH, WIDTH, w // WIDTH, WIDTH))  # R: Tensor[Batch, Literal[3], Literal[14], Literal[16], Literal[14], Literal[16]]


def data(x: Tensor[Batch, Model]) -> None:
    loader = DataLoader(TensorDataset(x), batch_size=8)
    reveal_type(loader)  # R: DataLoader[tuple[Tensor[*tuple[Any, ...]], ...]]
    reveal_type(typedtensor.utils.data.dataloader.DataLoader)  # R: def [_T_co] (dataset: Dataset[_T_co] | Sequence[_T_co], batch_size: int | None =, shuffle: bool | None =, sampler: Sampler[Any] | Iterable[Any] | None =, batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None =, num_workers: int =, collate_fn: (def (list[Any]) -> Any) | None =, pin_memory: bool =, drop_last: bool =, timeout: float =, worker_init_fn: (def (int) -> Any) | None =, multiprocessing_context: Any =, generator: Any =, *, prefetch_factor: int | None =, persistent_workers: bool =, pin_memory_device: str =, in_order: bool =, seed: int | None =) -> DataLoader[_T_co]
    default_collate([x])
