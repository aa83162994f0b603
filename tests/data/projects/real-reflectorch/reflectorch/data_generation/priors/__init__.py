from reflectorch.data_generation.priors.params import Params
from reflectorch.data_generation.priors.base import PriorSampler
from reflectorch.data_generation.priors.no_constraints import BasicPriorSampler
from reflectorch.data_generation.priors.independent_priors import (
    SingleParamPrior,
    SimplePriorSampler,
    UniformParamPrior,
    GaussianParamPrior,
    TruncatedGaussianParamPrior
)

from reflectorch.data_generation.priors.subprior_sampler import (
    UniformSubPriorParams,
    UniformSubPriorSampler,
    NarrowSldUniformSubPriorSampler,
)
from reflectorch.data_generation.priors.exp_subprior_sampler import ExpUniformSubPriorSampler
from reflectorch.data_generation.priors.multilayer_structures import (
    SimpleMultilayerSampler,
    MultilayerStructureParams,
)
from reflectorch.data_generation.priors.parametric_models import (
    ParametricModel,
    MULTILAYER_MODELS,
)
from reflectorch.data_generation.priors.parametric_subpriors import (
    SubpriorParametricSampler,
    BasicParams,
)
from reflectorch.data_generation.priors.sampler_strategies import (
    SamplerStrategy,
    BasicSamplerStrategy,
    ConstrainedRoughnessSamplerStrategy,
    ConstrainedRoughnessAndImgSldSamplerStrategy,
)

__all__ = [
    "SingleParamPrior",
    "SimplePriorSampler",
    "UniformParamPrior",
    "GaussianParamPrior",
    "TruncatedGaussianParamPrior",
    "Params",
    "PriorSampler",
    "BasicPriorSampler",
    "UniformSubPriorParams",
    "UniformSubPriorSampler",
    "NarrowSldUniformSubPriorSampler",
    "ExpUniformSubPriorSampler",
    "SimpleMultilayerSampler",
    "MultilayerStructureParams",
    "SubpriorParametricSampler",
    "BasicParams",
    "ParametricModel",
    "MULTILAYER_MODELS",
    "SamplerStrategy",
    "BasicSamplerStrategy",
    "ConstrainedRoughnessSamplerStrategy",
    "ConstrainedRoughnessAndImgSldSamplerStrategy",
]
