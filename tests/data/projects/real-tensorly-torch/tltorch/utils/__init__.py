from .parameter_list import ParameterList, FactorList, ComplexFactorList
from .tensorize_shape import get_tensorized_shape