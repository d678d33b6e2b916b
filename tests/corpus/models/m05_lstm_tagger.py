"""A part-of-speech tagger: word embeddings, an LSTM over the sentence, a linear layer to tag
scores and log-softmax, trained with NLL loss; plus a character-level word representation
concatenated to the word embedding.

Ported from the structure of the PyTorch tutorial "Sequence Models and Long Short-Term Memory
Networks" (https://pytorch.org/tutorials/beginner/nlp/sequence_models_tutorial.html).
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn
from typedtensor.nn import functional as F

EmbeddingDim = Literal[16]
HiddenDim = Literal[24]
Tags = Literal[3]


class Words(Dim):
    "words in the sentence"


class Chars(Dim):
    "characters in a word"


class CharEncoder(nn.Module):
    """A word as the mean of its characters' embeddings, projected."""

    def __init__(self, n_chars: int, dim: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(n_chars, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, chars: Tensor[Words, Chars]) -> Tensor[Words, Literal[8]]:
        e = self.embed(chars)
        return tt.tanh(self.proj(e.mean(dim=1)))


class LSTMTagger(nn.Module):
    def __init__(self, vocab_size: int, n_chars: int, tagset_size: int) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, 16)
        self.chars = CharEncoder(n_chars, 8)
        self.lstm = nn.LSTM(16 + 8, 24)
        self.hidden2tag = nn.Linear(24, tagset_size)

    def forward(self, sentence: Tensor[Words], chars: Tensor[Words, Chars]) -> Tensor:
        embeds = self.word_embeddings(sentence)
        char_repr = self.chars(chars)
        features = tt.cat([embeds, char_repr], dim=1)
        lstm_out, _ = self.lstm(features.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        return F.log_softmax(tag_space, dim=1)


def prepare_sequence(seq: list[str], to_ix: dict[str, int]) -> Tensor:
    idxs = [to_ix[w] for w in seq]
    return tt.tensor(idxs, dtype=tt.long)


def train(model: LSTMTagger, data: list[tuple[list[str], list[str]]], word_to_ix: dict[str, int],
          tag_to_ix: dict[str, int], epochs: int) -> float:
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    total = 0.0
    for _ in range(epochs):
        for sentence, tags in data:
            model.zero_grad()
            inputs = prepare_sequence(sentence, word_to_ix)
            chars = tt.zeros(len(sentence), Chars(4), dtype=tt.long)
            targets = prepare_sequence(tags, tag_to_ix)
            tag_scores = model(inputs, chars)
            loss = F.nll_loss(tag_scores, targets)
            loss.backward()
            opt.step()
            total += loss.item()
    return total


def tag(model: LSTMTagger, sentence: Tensor[Words], chars: Tensor[Words, Chars]) -> Tensor[Words]:
    with tt.no_grad():
        scores = model(sentence, chars)
        return scores.argmax(dim=1)


def main() -> None:
    data = [(["the", "dog", "ate", "the", "apple"], ["DET", "NN", "V", "DET", "NN"]),
            (["everybody", "read", "that", "book"], ["NN", "V", "DET", "NN"])]
    word_to_ix: dict[str, int] = {}
    for sent, _ in data:
        for word in sent:
            word_to_ix.setdefault(word, len(word_to_ix))
    tag_to_ix = {"DET": 0, "NN": 1, "V": 2}
    model = LSTMTagger(len(word_to_ix), 30, len(tag_to_ix))
    train(model, data, word_to_ix, tag_to_ix, 2)
    sentence = prepare_sequence(data[0][0], word_to_ix)
    tag(model, sentence, tt.zeros(Words(len(data[0][0])), Chars(4), dtype=tt.long))
