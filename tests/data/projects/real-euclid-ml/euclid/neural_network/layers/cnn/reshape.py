from ..layer import Layer


class Reshape(Layer):

    name = "Reshape"

    def __init__(self, *shape):
        super().__init__()
        # Accept both conventional ``Reshape(128, 7, 7)`` and the existing
        # project style ``Reshape((128, 7, 7))``.
        self.shape = (
            tuple(shape[0])
            if len(shape) == 1 and isinstance(shape[0], (tuple, list))
            else tuple(shape)
        )

    def parameters(self):
        return []

    def forward(self, x):
        """Reshape every sample while preserving the leading batch axis.

        ``Reshape((128, 7, 7))`` is intended to turn a ``(batch, 6272)``
        dense output into ``(batch, 128, 7, 7)``.  Passing only
        ``self.shape`` to ``Tensor.reshape`` previously dropped the batch
        dimension and also passed a nested tuple, which NumPy rejects.
        """
        return x.reshape(x.data.shape[0], *self.shape)
    def get_config(self):
        return {
            "shape": self.shape
        }