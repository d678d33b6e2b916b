"""A two-layer graph convolutional network: a symmetrically normalised adjacency with self-loops,
``A_hat @ X @ W`` layers with their weights as parameters, dropout, log-softmax over classes, and
the loss and accuracy on a masked subset of nodes.

Ported from the structure of https://github.com/tkipf/pygcn (pygcn/layers.py, pygcn/models.py).
"""

from __future__ import annotations

import math
from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Features = Literal[16]
Hidden = Literal[8]
Classes = Literal[3]


class Nodes(Dim):
    "nodes of the graph"


class GraphConvolution(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(tt.zeros(in_features, out_features))
        self.bias = nn.Parameter(tt.zeros(out_features))
        stdv = 1.0 / math.sqrt(out_features)
        self.weight.data.uniform_(-stdv, stdv)

    def forward(self, x: Tensor, adj: Tensor[Nodes, Nodes]) -> Tensor:
        support = x @ self.weight
        return adj @ support + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat: Features, nhid: Hidden, nclass: Classes, dropout: float) -> None:
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x: Tensor[Nodes, Features], adj: Tensor[Nodes, Nodes]) -> Tensor[Nodes, Classes]:
        h = F.relu(self.gc1(x, adj))
        h = F.dropout(h, self.dropout, training=self.training)
        out = self.gc2(h, adj)
        return F.log_softmax(out, dim=1)


class GraphAttention(nn.Module):
    """One attention head over the graph: e_ij = LeakyReLU(a . [W h_i || W h_j]), softmax over
    each node's neighbours."""

    def __init__(self, in_features: Features, out_features: Hidden) -> None:
        super().__init__()
        self.W = nn.Linear(in_features, out_features, bias=False)
        self.a_src = nn.Parameter(tt.randn(out_features, 1) * 0.1)
        self.a_dst = nn.Parameter(tt.randn(out_features, 1) * 0.1)

    def forward(self, x: Tensor[Nodes, Features], adj: Tensor[Nodes, Nodes]) -> Tensor[Nodes, Hidden]:
        h = self.W(x)
        scores = h @ self.a_src + (h @ self.a_dst).t()
        scores = F.leaky_relu(scores, 0.2)
        scores = scores.masked_fill(adj == 0, float("-inf"))
        weights = F.softmax(scores, dim=1)
        return weights @ h


def normalized_adjacency(edges: Tensor[Nodes, Nodes]) -> Tensor[Nodes, Nodes]:
    a = edges + tt.eye(edges.shape[0])
    degree = a.sum(dim=1)
    inv_sqrt = degree.pow(-0.5)
    return inv_sqrt.unsqueeze(1) * a * inv_sqrt.unsqueeze(0)


def step(model: GCN, opt: tt.optim.Optimizer, x: Tensor[Nodes, Features], adj: Tensor[Nodes, Nodes],
         labels: Tensor[Nodes], train_mask: Tensor[Nodes]) -> tuple[float, float]:
    model.train()
    opt.zero_grad()
    output = model(x, adj)
    loss = F.nll_loss(output[train_mask], labels[train_mask])
    loss.backward()
    opt.step()
    predicted = output.argmax(dim=1)
    accuracy = (predicted[train_mask] == labels[train_mask]).float().mean()
    return loss.item(), accuracy.item()


def main() -> None:
    n = Nodes(10)
    edges = (tt.rand(n, n) > 0.7).float()
    edges = ((edges + edges.t()) > 0).float()
    adj = normalized_adjacency(edges)
    model = GCN(16, 8, 3, 0.5)
    opt = tt.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    train_mask = tt.arange(n) < 6
    step(model, opt, tt.randn(n, 16), adj, tt.randint(0, 3, (n,)), train_mask)
    attention = GraphAttention(16, 8)
    attention(tt.randn(n, 16), edges + tt.eye(n))
