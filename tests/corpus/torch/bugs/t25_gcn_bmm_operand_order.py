"""A batched graph convolution that multiplies the features by the adjacency instead of the reverse.

Planted, in a dense batched version of the GCN layer of https://github.com/tkipf/pygcn
(pygcn/layers.py: ``output = torch.spmm(adj, support)``): ``torch.bmm(support, adj)`` contracts
the output features with the nodes and fails unless both counts agree.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class GraphConvolution(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.xavier_uniform_(self.weight)

    def propagate(self, support: Float[Tensor, "batch nodes out"],
                  adj: Float[Tensor, "batch nodes nodes"]) -> Float[Tensor, "batch nodes out"]:
        return torch.bmm(support, adj)  # E: shape-matmul

    def forward(self, x: Float[Tensor, "batch nodes d_in"], adj: Float[Tensor, "batch nodes nodes"]) -> Float[Tensor, "batch nodes out"]:
        return self.propagate(x @ self.weight, adj) + self.bias


def main() -> None:
    GraphConvolution(8, 4)(torch.randn(2, 5, 8), torch.rand(2, 5, 5))
