# Recurrent modules: nn.RNN / LSTM / GRU carry their sizes, layers, batch_first, bidirectional (and
# an LSTM's proj_size) as type arguments; calling one gives (output, h_n) or (output, (h_n, c_n))
# through the registry's rule (typedtensor/shapes/rules/recurrent.py). The cells map a step.
import typedtensor as tt
from typedtensor import Dim, Tensor, nn


class Batch(Dim): ...
class Seq(Dim): ...
class Feat(Dim): ...
class Hidden(Dim): ...


def constructors() -> None:
    reveal_type(nn.LSTM(Feat(28), Hidden(64)))  # R: LSTM[Feat, Hidden, Literal[1], Literal[False], Literal[False], Literal[0]]
    reveal_type(nn.GRU(28, 64, num_layers=2, batch_first=True))  # R: GRU[Literal[28], Literal[64], Literal[2], Literal[True], Literal[False]]
    reveal_type(nn.LSTMCell(Feat(28), Hidden(64)))  # R: LSTMCell[Feat, Hidden]


def lstm(x: Tensor[Seq, Batch, Feat], bx: Tensor[Batch, Seq, Feat], wrong: Tensor[Seq, Batch, Hidden]) -> None:
    rnn = nn.LSTM(Feat(28), Hidden(64))
    out, (h, c) = rnn(x)
    reveal_type(out)  # R: Tensor[Seq, Batch, Hidden]
    reveal_type(h)  # R: Tensor[Literal[1], Batch, Hidden]
    reveal_type(c)  # R: Tensor[Literal[1], Batch, Hidden]
    rnn(wrong)  # E: shape-arg  # M: input has Hidden features (dim -1) but the module expects input_size = Feat
    bi = nn.LSTM(Feat(28), Hidden(64), num_layers=2, batch_first=True, bidirectional=True)
    o2, (h2, c2) = bi(bx)
    reveal_type(o2)  # R: Tensor[Batch, Seq, Mul[Literal[2], Hidden]]
    reveal_type(h2)  # R: Tensor[Literal[4], Batch, Hidden]
    proj = nn.LSTM(Feat(28), Hidden(64), proj_size=16)
    reveal_type(proj(x)[0])  # R: Tensor[Seq, Batch, Literal[16]]
    proj(x, (tt.zeros(1, Batch(4), Hidden(64)), tt.zeros(1, Batch(4), Hidden(64))))  # E: shape-arg


def gru_and_rnn(x: Tensor[Seq, Batch, Feat], one: Tensor[Seq, Feat], cube: Tensor[Batch, Seq, Feat, Feat]) -> None:
    gru = nn.GRU(Feat(28), Hidden(64), num_layers=2)
    out, h = gru(x)
    reveal_type(out)  # R: Tensor[Seq, Batch, Hidden]
    reveal_type(h)  # R: Tensor[Literal[2], Batch, Hidden]
    gru(x, tt.zeros(1, Batch(4), Hidden(64)))  # E: shape-arg
    reveal_type(nn.RNN(Feat(28), Hidden(64))(one)[0])  # R: Tensor[Seq, Hidden]
    nn.RNN(Feat(28), Hidden(64))(cube)  # E: shape-rank


def cells(x: Tensor[Batch, Feat], h: Tensor[Batch, Hidden], wrong: Tensor[Batch, Hidden]) -> None:
    cell = nn.LSTMCell(Feat(28), Hidden(64))
    h1, c1 = cell(x, (h, h))
    reveal_type(h1)  # R: Tensor[Batch, Hidden]
    reveal_type(nn.GRUCell(Feat(28), Hidden(64))(x, h))  # R: Tensor[Batch, Hidden]
    nn.GRUCell(Feat(28), Hidden(64))(wrong)  # E: shape-arg
    reveal_type(nn.RNNCell(Feat(28), Hidden(64), nonlinearity="relu")(x))  # R: Tensor[Batch, Hidden]
    nn.RNNCell(Feat(28), Hidden(64))(x, wrong.transpose(0, 1))  # E: shape-arg
