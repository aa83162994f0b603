from torch import nn
from torch.nn.utils.parametrize import register_parametrization

from braindecode.modules.parametrization import MaxNorm, MaxNormParametrize


class MaxNormLinear(nn.Linear):
    """Linear layer with MaxNorm constraining on weights.

    Equivalent of Keras tf.keras.Dense(..., kernel_constraint=max_norm())
    [1]_ and [2]_. Implemented as advised in [3]_.

    Parameters
    ----------
    in_features: int
        Size of each input sample.
    out_features: int
        Size of each output sample.
    bias: bool, optional
        If set to ``False``, the layer will not learn an additive bias.
        Default: ``True``.

    Examples
    --------
    >>> import torch
    >>> from braindecode.modules import MaxNormLinear
    >>> module = MaxNormLinear(10, 5, max_norm_val=2)
    >>> inputs = torch.randn(2, 10)
    >>> outputs = module(inputs)
    >>> outputs.shape
    torch.Size([2, 5])

    References
    ----------
    .. [1] https://keras.io/api/layers/core_layers/dense/#dense-class
    .. [2] https://www.tensorflow.org/api_docs/python/tf/keras/constraints/
           MaxNorm
    .. [3] https://discuss.pytorch.org/t/how-to-correctly-implement-in-place-
           max-norm-constraint/96769
    """

    def __init__(
        self, in_features, out_features, bias=True, max_norm_val=2, eps=1e-5, **kwargs
    ):
        super().__init__(
            in_features=in_features, out_features=out_features, bias=bias, **kwargs
        )
        self._max_norm_val = max_norm_val
        self._eps = eps
        register_parametrization(self, "weight", MaxNorm(self._max_norm_val, self._eps))


class LinearWithConstraint(nn.Linear):
    """Linear layer with max-norm constraint on the weights.

    Examples
    --------
    >>> import torch
    >>> from braindecode.modules import LinearWithConstraint
    >>> module = LinearWithConstraint(10, 5, max_norm=1.0)
    >>> inputs = torch.randn(2, 10)
    >>> outputs = module(inputs)
    >>> outputs.shape
    torch.Size([2, 5])
    """

    def __init__(self, *args, max_norm=1.0, **kwargs):
        super(LinearWithConstraint, self).__init__(*args, **kwargs)
        self.max_norm = max_norm
        register_parametrization(self, "weight", MaxNormParametrize(self.max_norm))
