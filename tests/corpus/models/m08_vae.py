"""A variational autoencoder on flattened images: an encoder to the mean and log-variance, the
reparameterisation trick, a decoder with a sigmoid output, and the ELBO loss (binary
cross-entropy plus the KL divergence).

Ported from the structure of https://github.com/pytorch/examples (vae/main.py).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

Pixels = Literal[784]
Latent = Literal[20]


class Batch(Dim):
    "images in one minibatch"


class VAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x: Tensor[Batch, Pixels]) -> tuple[Tensor[Batch, Latent], Tensor[Batch, Latent]]:
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu: Tensor[Batch, Latent], logvar: Tensor[Batch, Latent]) -> Tensor[Batch, Latent]:
        std = tt.exp(0.5 * logvar)
        eps = tt.randn_like(std)
        return mu + eps * std

    def decode(self, z: Tensor[Batch, Latent]) -> Tensor[Batch, Pixels]:
        h3 = F.relu(self.fc3(z))
        return tt.sigmoid(self.fc4(h3))

    def forward(self, x: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> tuple[Tensor[Batch, Pixels], Tensor[Batch, Latent], Tensor[Batch, Latent]]:
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def kl_divergence(mu: Tensor[Batch, Latent], logvar: Tensor[Batch, Latent]) -> Tensor[Batch]:
    """KL(q(z|x) || N(0, I)) per example."""
    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)


def loss_function(recon_x: Tensor[Batch, Pixels], x: Tensor[Batch, Literal[1], Literal[28], Literal[28]],
                  mu: Tensor[Batch, Latent], logvar: Tensor[Batch, Latent]) -> Tensor[()]:
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    kld = -0.5 * tt.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def train_step(model: VAE, opt: tt.optim.Optimizer, data: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> float:
    opt.zero_grad()
    recon, mu, logvar = model(data)
    loss = loss_function(recon, data, mu, logvar)
    loss.backward()
    opt.step()
    return loss.item()


def sample(model: VAE, n: int) -> Tensor:
    with tt.no_grad():
        z = tt.randn(n, 20)
        return model.decode(z).view(n, 1, 28, 28)


def interpolate(model: VAE, a: Tensor[Batch, Literal[1], Literal[28], Literal[28]],
                b: Tensor[Batch, Literal[1], Literal[28], Literal[28]], steps: int) -> Tensor:
    """Decoded images along the straight line between two images' latent means."""
    with tt.no_grad():
        mu_a, _ = model.encode(a.view(-1, 784))
        mu_b, _ = model.encode(b.view(-1, 784))
        frames = [model.decode(tt.lerp(mu_a, mu_b, i / max(steps - 1, 1))) for i in range(steps)]
        return tt.stack(frames, dim=1).view(a.shape[0], steps, 1, 28, 28)


def reconstruction_error(model: VAE, data: Tensor[Batch, Literal[1], Literal[28], Literal[28]]) -> Tensor[Batch]:
    with tt.no_grad():
        recon, _, _ = model(data)
        return ((recon - data.view(-1, 784)) ** 2).mean(dim=1)


def main() -> None:
    model = VAE()
    opt = tt.optim.Adam(model.parameters(), lr=1e-3)
    train_step(model, opt, tt.rand(Batch(4), 1, 28, 28))
    sample(model, 2)
    a, b = tt.rand(Batch(2), 1, 28, 28), tt.rand(Batch(2), 1, 28, 28)
    interpolate(model, a, b, 4)
    reconstruction_error(model, a)
