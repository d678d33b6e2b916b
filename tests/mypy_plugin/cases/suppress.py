# Suppression: the shape-* codes, the parent `shape` code, bare ignores; one bug gives one report.
import typedtensor as tt
from typedtensor import Dim, Tensor


class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...


def silenced(x: Tensor[Batch, In], w: Tensor[Out, In], s: Tensor[Out]) -> None:
    x @ w  # type: ignore[shape-matmul]
    x + s  # type: ignore[shape-broadcast]
    x @ w  # type: ignore[shape-broadcast]  # E: shape-matmul  # N: not covered by "type: ignore[shape-broadcast]"
    x @ w  # type: ignore
    x @ w  # type: ignore[shape]
    tt.cat([x, w])  # type: ignore[shape]


def one_report(x: Tensor[Batch, In], w: Tensor[Out, In], s: Tensor[Out]) -> None:
    y = x @ w  # E: shape-matmul
    reveal_type(y)  # R: Any
    z = y + s
    reveal_type(tt.relu(x @ w) + s)  # E: shape-matmul  # R: Tensor[*tuple[Any, ...]]
    q = tt.matmul(x, w)  # E: shape-matmul
    reveal_type(q)  # R: Tensor[*tuple[Any, ...]]
    q.sum(dim=9)


def checker_comment(x: Tensor[Batch, In], w: Tensor[Out, In], s: Tensor[Out]) -> None:
    # the checker's own `# typedtensor: ignore[...]` silences the plugin's reports too, alike
    x @ w  # typedtensor: ignore[shape-matmul]
    x @ w  # typedtensor: ignore
    x @ w  # typedtensor: ignore[shape]
    x + s  # typedtensor:ignore[shape-matmul, shape-broadcast]
    x @ w  # typedtensor: ignore[shape-broadcast]  # E: shape-matmul
    t = "# typedtensor: ignore"; x @ w  # E: shape-matmul
    tt.cat([x, w])  # typedtensor: ignore[shape-concat]
    tt.relu(x @ w)  # typedtensor: ignore[shape-matmul]
