# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
from .operator import Operator, OperatorConfig  # noqa: F401
from .general_matmul import Matmul, MatmulConfig  # noqa: F401
from .ladder_permutate import LadderPermutate, LadderPermutateConfig  # noqa: F401
from .lop3_permutate import LOP3Permutate, LOP3PermutateConfig  # noqa: F401
from .quant_compress import QuantCompress, QuantCompressConfig  # noqa: F401
