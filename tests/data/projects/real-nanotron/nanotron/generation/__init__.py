from .sampler import BasicSampler, GreedySampler, Sampler, SamplerType, TopKSampler, TopPSampler

__all__ = ["BasicSampler", "GreedySampler", "Sampler", "SamplerType", "TopKSampler", "TopPSampler"]
