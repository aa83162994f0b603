from collections.abc import Callable

import torch
from torch import Tensor

from torchjd._vector_str import vector_to_str
from torchjd.linalg import Matrix

from ._aggregator_bases import Aggregator
from ._mixins import _NonDifferentiable


def _identity(P: Tensor) -> Tensor:
    return P


# Non-differentiable: the sign-based random masking is not differentiable.
class GradDrop(Aggregator, _NonDifferentiable):
    """
    :class:`~torchjd.aggregation.Aggregator` that applies the gradient combination
    steps from GradDrop, as defined in lines 10 to 15 of Algorithm 1 of `Just Pick a Sign:
    Optimizing Deep Multitask Models with Gradient Sign Dropout
    <https://arxiv.org/pdf/2010.06808.pdf>`_.

    :param f: The function to apply to the Gradient Positive Sign Purity. It should be monotonically
        increasing. Defaults to identity.
    :param leak: The tensor of leak values, determining how much each row is allowed to leak
        through. Defaults to None, which means no leak.
    """

    def __init__(self, f: Callable = _identity, leak: Tensor | None = None) -> None:
        super().__init__()
        self.f = f
        self.leak = leak

    def forward(self, matrix: Matrix, /) -> Tensor:
        self._check_matrix_shape(matrix)

        if matrix.shape[0] == 0 or matrix.shape[1] == 0:
            return torch.zeros(matrix.shape[1], dtype=matrix.dtype, device=matrix.device)

        leak = self.leak if self.leak is not None else torch.zeros_like(matrix[:, 0])

        P = 0.5 * (torch.ones_like(matrix[0]) + matrix.sum(dim=0) / matrix.abs().sum(dim=0))
        fP = self.f(P)
        U = torch.rand(P.shape, dtype=matrix.dtype, device=matrix.device)

        vector = torch.zeros_like(matrix[0])
        for i in range(len(matrix)):
            M_i = (fP > U) * (matrix[i] > 0) + (fP < U) * (matrix[i] < 0)
            vector += (leak[i] + (1 - leak[i]) * M_i) * matrix[i]

        return vector

    @property
    def leak(self) -> Tensor | None:
        return self._leak

    @leak.setter
    def leak(self, value: Tensor | None) -> None:
        if value is not None and value.dim() != 1:
            raise ValueError(
                f"leak must be a 1-dimensional tensor. Found leak.shape = {value.shape}.",
            )

        self._leak = value

    def _check_matrix_shape(self, matrix: Tensor) -> None:
        n_rows = matrix.shape[0]
        if self.leak is not None and n_rows != len(self.leak):
            raise ValueError(
                f"Parameter `matrix` should be a matrix of exactly {len(self.leak)} rows (i.e. the "
                f"number of leak scalars). Found `matrix` of shape `{matrix.shape}`.",
            )

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(f={repr(self.f)}, leak={repr(self.leak)})"

    def __str__(self) -> str:
        leak_str = "" if self.leak is None else f"([{vector_to_str(self.leak)}])"
        return f"GradDrop{leak_str}"
