"""Train a small character-level transformer language model on Python's own standard library
source (it ships with every Python: no download) and print a sample.

Token ids are ``Tensor[Batch, Seq]``, activations ``Tensor[Batch, Seq, Model]``, logits
``Tensor[Batch, Seq, Vocab]``: the checkers follow them through the embedding, the attention
blocks and the output projection.

    python examples/char_transformer.py            # ~a minute on a CPU
    python examples/char_transformer.py --short    # a few seconds, for CI
"""

from __future__ import annotations

import argparse
import inspect
import time

import numpy as np
from progress import ProgressBar

import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "character positions in a sequence"


class Model(Dim):
    "the residual stream's width (d_model)"


class Hidden(Dim):
    "the feed-forward layer's width"


class Vocab(Dim):
    "distinct characters of the corpus"


def corpus() -> str:
    """A few hundred KB of stdlib source: the modules are imported, so their files exist."""
    import argparse as m1
    import dataclasses as m2
    import functools as m3
    import textwrap as m4

    return "\n".join(inspect.getsource(m) for m in (m1, m2, m3, m4))


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention, then a GELU feed-forward layer."""

    def __init__(self, model: Model, heads: int, hidden: Hidden) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(model)
        self.attn = nn.MultiheadAttention(model, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(model)
        self.fc1 = nn.Linear(model, hidden)
        self.fc2 = nn.Linear(hidden, model)

    def forward(self, x: Tensor[Batch, Seq, Model]) -> Tensor[Batch, Seq, Model]:
        h = self.ln1(x)
        attended, _ = self.attn(h, h, h, need_weights=False, is_causal=True)
        x = x + attended
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class CharLM(nn.Module):
    def __init__(self, vocab: Vocab, model: Model, hidden: Hidden, context: Seq, layers: int, heads: int) -> None:
        super().__init__()
        self.context = context
        self.tokens = nn.Embedding(vocab, model)
        self.positions = nn.Embedding(context, model)
        self.blocks = nn.ModuleList([Block(model, heads, hidden) for _ in range(layers)])
        self.ln = nn.LayerNorm(model)
        self.head = nn.Linear(model, vocab)

    def forward(self, ids: Tensor[Batch, Seq]) -> Tensor[Batch, Seq, Vocab]:
        x: Tensor[Batch, Seq, Model] = self.tokens(ids) + self.positions(tt.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def batch(
    data: np.ndarray, size: int, context: int, rng: np.random.Generator, device: str = "cpu"
) -> tuple[Tensor[Batch, Seq], Tensor[Batch, Seq]]:
    """Random windows of the corpus; the targets are the inputs shifted by one character."""
    starts = rng.integers(0, len(data) - context - 1, size)
    window = np.stack([data[s : s + context + 1] for s in starts])
    return tt.tensor(window[:, :-1]).to(device), tt.tensor(window[:, 1:]).to(device)


@tt.no_grad()
def sample(
    model: CharLM, prompt: list[int], length: int, rng: np.random.Generator, temperature: float = 0.8, device: str = "cpu"
) -> list[int]:
    model.eval()
    out = list(prompt)
    for _ in range(length):
        ids: Tensor[Batch, Seq] = tt.tensor(np.array(out[-model.context :])[None, :]).to(device)
        logits = model(ids)[0, -1] / temperature
        probs = nn.functional.softmax(logits, -1).double().cpu().numpy()
        out.append(int(rng.choice(len(probs), p=probs / probs.sum())))
    model.train()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a few steps only (CI)")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    tt.set_num_threads(args.threads)
    tt.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    text = corpus()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = np.array([index[c] for c in text], dtype=np.int64)
    steps = 12 if args.short else args.steps
    context = 64
    model = CharLM(Vocab(len(chars)), Model(64), Hidden(256), Seq(context), layers=2, heads=4).to(args.device)
    opt = tt.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    sched = tt.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    print(f"char_transformer: {len(text)} characters, vocabulary {len(chars)}, "
          f"{sum(p.numel() for p in model.parameters())} parameters")
    bar = ProgressBar(steps, "char_transformer")
    start = time.perf_counter()
    loss = float("nan")
    for step in range(steps):
        x, y = batch(data, 32, context, rng, args.device)
        opt.zero_grad()
        logits = model(x)
        out = nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
        out.backward()
        opt.step()
        sched.step()
        loss = 0.9 * loss + 0.1 * out.item() if step else out.item()
        if step % 10 == 9 or step == steps - 1:
            bar.update(step + 1, f"loss {loss:.3f}")
    print(f"char_transformer: final loss {loss:.3f} on {args.device} after {steps} steps in {time.perf_counter() - start:.1f}s")
    text_out = "".join(chars[i] for i in sample(model, [index[c] for c in "def "], 240, rng, device=args.device))
    print("---- sample ----")
    print(text_out)


if __name__ == "__main__":
    main()
