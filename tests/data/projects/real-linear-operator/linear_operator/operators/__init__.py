#!/usr/bin/env python3
from __future__ import annotations

from linear_operator.operators._linear_operator import LinearOperator, to_dense
from linear_operator.operators.added_diag_linear_operator import AddedDiagLinearOperator
from linear_operator.operators.batch_repeat_linear_operator import BatchRepeatLinearOperator
from linear_operator.operators.block_diag_linear_operator import BlockDiagLinearOperator
from linear_operator.operators.block_interleaved_linear_operator import BlockInterleavedLinearOperator
from linear_operator.operators.block_linear_operator import BlockLinearOperator
from linear_operator.operators.cat_linear_operator import cat, CatLinearOperator
from linear_operator.operators.chol_linear_operator import CholLinearOperator
from linear_operator.operators.constant_mul_linear_operator import ConstantMulLinearOperator
from linear_operator.operators.dense_linear_operator import DenseLinearOperator, to_linear_operator
from linear_operator.operators.diag_linear_operator import ConstantDiagLinearOperator, DiagLinearOperator
from linear_operator.operators.identity_linear_operator import IdentityLinearOperator
from linear_operator.operators.interpolated_linear_operator import InterpolatedLinearOperator
from linear_operator.operators.keops_linear_operator import KeOpsLinearOperator
from linear_operator.operators.kernel_linear_operator import KernelLinearOperator
from linear_operator.operators.kronecker_product_added_diag_linear_operator import (
    KroneckerProductAddedDiagLinearOperator,
)
from linear_operator.operators.kronecker_product_linear_operator import (
    KroneckerProductDiagLinearOperator,
    KroneckerProductLinearOperator,
    KroneckerProductTriangularLinearOperator,
)
from linear_operator.operators.low_rank_root_added_diag_linear_operator import LowRankRootAddedDiagLinearOperator
from linear_operator.operators.low_rank_root_linear_operator import LowRankRootLinearOperator
from linear_operator.operators.masked_linear_operator import MaskedLinearOperator
from linear_operator.operators.matmul_linear_operator import MatmulLinearOperator
from linear_operator.operators.mul_linear_operator import MulLinearOperator
from linear_operator.operators.permutation_linear_operator import (
    PermutationLinearOperator,
    TransposePermutationLinearOperator,
)
from linear_operator.operators.psd_sum_linear_operator import PsdSumLinearOperator
from linear_operator.operators.root_linear_operator import RootLinearOperator
from linear_operator.operators.sum_batch_linear_operator import SumBatchLinearOperator
from linear_operator.operators.sum_kronecker_linear_operator import SumKroneckerLinearOperator
from linear_operator.operators.sum_linear_operator import SumLinearOperator
from linear_operator.operators.toeplitz_linear_operator import ToeplitzLinearOperator
from linear_operator.operators.triangular_linear_operator import TriangularLinearOperator
from linear_operator.operators.zero_linear_operator import ZeroLinearOperator

__all__ = [
    "to_dense",
    "to_linear_operator",
    "cat",
    "LinearOperator",
    "AddedDiagLinearOperator",
    "BatchRepeatLinearOperator",
    "BlockLinearOperator",
    "BlockDiagLinearOperator",
    "BlockInterleavedLinearOperator",
    "CatLinearOperator",
    "CholLinearOperator",
    "ConstantDiagLinearOperator",
    "ConstantMulLinearOperator",
    "DenseLinearOperator",
    "DiagLinearOperator",
    "IdentityLinearOperator",
    "InterpolatedLinearOperator",
    "KeOpsLinearOperator",
    "KernelLinearOperator",
    "KroneckerProductLinearOperator",
    "KroneckerProductAddedDiagLinearOperator",
    "KroneckerProductDiagLinearOperator",
    "KroneckerProductTriangularLinearOperator",
    "SumKroneckerLinearOperator",
    "LowRankRootAddedDiagLinearOperator",
    "LowRankRootLinearOperator",
    "MaskedLinearOperator",
    "MatmulLinearOperator",
    "MulLinearOperator",
    "PermutationLinearOperator",
    "PsdSumLinearOperator",
    "RootLinearOperator",
    "SumLinearOperator",
    "SumBatchLinearOperator",
    "ToeplitzLinearOperator",
    "TransposePermutationLinearOperator",
    "TriangularLinearOperator",
    "ZeroLinearOperator",
]
