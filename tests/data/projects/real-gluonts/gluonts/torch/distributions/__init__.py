# Copyright 2018 Amazon.com, Inc. or its affiliates. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License").
# You may not use this file except in compliance with the License.
# A copy of the License is located at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# or in the "license" file accompanying this file. This file is distributed
# on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either
# express or implied. See the License for the specific language governing
# permissions and limitations under the License.

from .affine_transformed import AffineTransformed
from .binned_uniforms import BinnedUniforms, BinnedUniformsOutput
from .discrete_distribution import DiscreteDistribution
from .distribution_output import (
    BetaOutput,
    DistributionOutput,
    GammaOutput,
    NormalOutput,
    PoissonOutput,
    LaplaceOutput,
)
from .generalized_pareto import GeneralizedPareto, GeneralizedParetoOutput
from .implicit_quantile_network import (
    ImplicitQuantileNetwork,
    ImplicitQuantileNetworkOutput,
)
from .isqf import ISQF, ISQFOutput
from .negative_binomial import NegativeBinomialOutput
from .output import Output
from .piecewise_linear import PiecewiseLinear, PiecewiseLinearOutput
from .quantile_output import QuantileOutput
from .spliced_binned_pareto import (
    SplicedBinnedPareto,
    SplicedBinnedParetoOutput,
)
from .studentT import StudentTOutput
from .truncated_normal import TruncatedNormal, TruncatedNormalOutput

__all__ = [
    "AffineTransformed",
    "BetaOutput",
    "BinnedUniforms",
    "BinnedUniformsOutput",
    "DiscreteDistribution",
    "DistributionOutput",
    "GammaOutput",
    "GeneralizedPareto",
    "GeneralizedParetoOutput",
    "ImplicitQuantileNetwork",
    "ImplicitQuantileNetworkOutput",
    "ISQF",
    "ISQFOutput",
    "LaplaceOutput",
    "NegativeBinomialOutput",
    "NormalOutput",
    "Output",
    "PiecewiseLinear",
    "PiecewiseLinearOutput",
    "PoissonOutput",
    "QuantileOutput",
    "SplicedBinnedPareto",
    "SplicedBinnedParetoOutput",
    "StudentTOutput",
    "TruncatedNormal",
    "TruncatedNormalOutput",
]
