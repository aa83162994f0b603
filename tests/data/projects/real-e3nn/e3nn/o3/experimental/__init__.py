from ._full_tp import FullTensorProduct as FullTensorProductv2
from ._elementwise_tp import ElementwiseTensorProduct as ElementwiseTensorProductv2

__all__ = [FullTensorProductv2, ElementwiseTensorProductv2]
