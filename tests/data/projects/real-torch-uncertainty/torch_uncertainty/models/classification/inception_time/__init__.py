# ruff: noqa: F401
from .batched import batched_inception_time
from .bayesian import bayesian_inception_time
from .mimo import mimo_inception_time
from .packed import packed_inception_time
from .std import inception_time
