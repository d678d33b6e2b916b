"""A batched graph convolution that multiplies the features by the adjacency instead of the reverse.

Planted, in a dense batched version of the GCN layer of https://github.com/tkipf/pygcn
(pygcn/layers.py: ``output = torch.spmm(adj, support)``): ``torch.bmm(adj, support)`` contracts
the output features with the nodes and fails unless both counts agree.

This copy of ../t25_gcn_bmm_operand_order.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class GraphConvolution(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.xavier_uniform_(self.weight)

    def propagate(self, support,
                  adj):
        return torch.bmm(adj, support)

    def forward(self, x, adj):
        return self.propagate(x @ self.weight, adj) + self.bias


def main() -> None:
    GraphConvolution(8, 4)(torch.randn(2, 5, 8), torch.rand(2, 5, 5))
