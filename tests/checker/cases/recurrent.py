# Rule family: recurrent modules — nn.RNN / LSTM / GRU (output and final states follow the
# constructor's sizes, layers, batch_first, bidirectional and proj_size) and their cells.
import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class Seq(Dim): ...
class Feat(Dim): ...
class Hidden(Dim): ...


def lstm(x: Tensor[Seq, Batch, Feat], bx: Tensor[Batch, Seq, Feat], wrong: Tensor[Seq, Batch, Hidden]) -> None:
    rnn = nn.LSTM(Feat(28), Hidden(64))
    out, (h, c) = rnn(x)
    reveal_shape(out)  # N: Tensor[Seq, Batch, Hidden]
    reveal_shape(h)  # N: Tensor[1, Batch, Hidden]
    reveal_shape(c)  # N: Tensor[1, Batch, Hidden]
    a: Tensor[Seq, Batch, Hidden] = rnn(x)[0]  # ok
    rnn(wrong)  # E: shape-arg
    bi = nn.LSTM(Feat(28), Hidden(64), num_layers=2, batch_first=True, bidirectional=True)
    o2, (h2, c2) = bi(bx)
    reveal_shape(o2)  # N: Tensor[Batch, Seq, 2*Hidden]
    reveal_shape(h2)  # N: Tensor[4, Batch, Hidden]
    proj = nn.LSTM(Feat(28), Hidden(64), proj_size=16)
    reveal_shape(proj(x)[0])  # N: Tensor[Seq, Batch, 16]
    proj(x, (tt.zeros(1, Batch(4), 16), tt.zeros(1, Batch(4), Hidden(64))))  # ok
    proj(x, (tt.zeros(1, Batch(4), Hidden(64)), tt.zeros(1, Batch(4), Hidden(64))))  # E: shape-arg


def gru_and_rnn(x: Tensor[Seq, Batch, Feat], one: Tensor[Seq, Feat], cube: Tensor[Batch, Seq, Feat, Feat]) -> None:
    gru = nn.GRU(Feat(28), Hidden(64), num_layers=2)
    out, h = gru(x)
    reveal_shape(out)  # N: Tensor[Seq, Batch, Hidden]
    reveal_shape(h)  # N: Tensor[2, Batch, Hidden]
    gru(x, tt.zeros(1, Batch(4), Hidden(64)))  # E: shape-arg
    ok: Tensor[Seq, Hidden] = nn.RNN(Feat(28), Hidden(64))(one)[0]  # ok
    nn.RNN(Feat(28), Hidden(64))(cube)  # E: shape-rank


def cells(x: Tensor[Batch, Feat], h: Tensor[Batch, Hidden], wrong: Tensor[Batch, Hidden]) -> None:
    cell = nn.LSTMCell(Feat(28), Hidden(64))
    h1, c1 = cell(x, (h, h))
    reveal_shape(h1)  # N: Tensor[Batch, Hidden]
    g: Tensor[Batch, Hidden] = nn.GRUCell(Feat(28), Hidden(64))(x, h)  # ok
    nn.GRUCell(Feat(28), Hidden(64))(wrong)  # E: shape-arg
    r: Tensor[Batch, Hidden] = nn.RNNCell(Feat(28), Hidden(64), nonlinearity="relu")(x)  # ok
    nn.RNNCell(Feat(28), Hidden(64))(x, wrong.transpose(0, 1))  # E: shape-arg
