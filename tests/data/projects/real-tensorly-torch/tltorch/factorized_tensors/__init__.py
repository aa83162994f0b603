from .factorized_tensors import (CPTensor, TuckerTensor, TTTensor,
                                DenseTensor, FactorizedTensor)
from .tensorized_matrices import (TensorizedTensor, CPTensorized, BlockTT,
                                  DenseTensorized, TuckerTensorized)
from .complex_factorized_tensors import (ComplexCPTensor, ComplexTuckerTensor,
                                         ComplexTTTensor, ComplexDenseTensor)
from .complex_tensorized_matrices import (ComplexCPTensorized, ComplexBlockTT,
                                          ComplexDenseTensorized, ComplexTuckerTensorized)
from .init import tensor_init, cp_init, tucker_init, tt_init, block_tt_init
