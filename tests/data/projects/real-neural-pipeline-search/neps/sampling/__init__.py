from neps.sampling.priors import CenteredPrior, Prior, Uniform
from neps.sampling.samplers import BorderSampler, Sampler, Sobol, WeightedSampler

__all__ = [
    "BorderSampler",
    "CenteredPrior",
    "Prior",
    "Sampler",
    "Sobol",
    "Uniform",
    "WeightedSampler",
]
