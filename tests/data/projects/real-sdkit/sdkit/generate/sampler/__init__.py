from .sampler_main import make_samples
