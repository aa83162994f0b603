from torch import Tensor

from torchjd._vector_str import vector_to_str

from ._aggregator_bases import WeightedAggregator
from ._weighting_bases import _MatrixWeighting


class ConstantWeighting(_MatrixWeighting):
    """
    :class:`~torchjd.aggregation.Weighting` [:class:`~torchjd.linalg.Matrix`]
    that returns constant, pre-determined weights.

    :param weights: The weights to return at each call.
    """

    def __init__(self, weights: Tensor) -> None:
        if weights.dim() != 1:
            raise ValueError(
                "Parameter `weights` should be a 1-dimensional tensor. Found `weights.shape = "
                f"{weights.shape}`.",
            )

        super().__init__()
        self.weights = weights

    def forward(self, matrix: Tensor, /) -> Tensor:
        self._check_matrix_shape(matrix)
        return self.weights

    def _check_matrix_shape(self, matrix: Tensor) -> None:
        if matrix.shape[0] != len(self.weights):
            raise ValueError(
                f"Parameter `matrix` should have {len(self.weights)} rows (the number of specified "
                f"weights). Found `matrix` with {matrix.shape[0]} rows.",
            )


class Constant(WeightedAggregator):
    """
    :class:`~torchjd.aggregation.WeightedAggregator` that makes a linear combination of
    the rows of the provided matrix, with constant, pre-determined weights.

    :param weights: The weights associated to the rows of the input matrices.
    """

    weighting: ConstantWeighting

    def __init__(self, weights: Tensor) -> None:
        super().__init__(weighting=ConstantWeighting(weights=weights))
        self._weights = weights

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(weights={repr(self._weights)})"

    def __str__(self) -> str:
        weights_str = vector_to_str(self._weights)
        return f"{self.__class__.__name__}([{weights_str}])"
