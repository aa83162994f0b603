from .sampler import *
