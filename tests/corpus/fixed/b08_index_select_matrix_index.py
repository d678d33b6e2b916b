"""k-means: gathering the rows of the chosen centres with a 2-d index.

The fixed twin of ../bugs/b08_index_select_matrix_index.py.
Source: https://github.com/subhadarship/kmeans_pytorch/issues/34
``index_select`` takes a vector of indices ("IndexError: index_select(): Index is supposed to be a
vector"); the batched clustering call passed a ``[batch, k]`` matrix. Flattening the index (and
reshaping the rows back) keeps the lookup one-dimensional.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor


class Points(Dim):
    "samples to cluster"


class Features(Dim):
    "features per sample"


class Runs(Dim):
    "independent restarts"


class K(Dim):
    "clusters"


def initial_centres(x: Tensor[Points, Features], chosen: Tensor[Runs, K]) -> Tensor[Runs, K, Features]:
    rows = x.index_select(0, chosen.flatten())
    return rows.reshape(chosen.shape[0], chosen.shape[1], x.shape[1])


def main() -> None:
    initial_centres(tt.randn(Points(10), Features(3)), tt.randint(0, 10, (Runs(2), K(4))))
