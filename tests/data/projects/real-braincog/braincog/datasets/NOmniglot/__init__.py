__all__ = ['NOmniglot', 'nomniglot_full', 'nomniglot_nw_ks','nomniglot_pair','utils']
from . import (
    NOmniglot,
    nomniglot_full,
    nomniglot_nw_ks,
    nomniglot_pair,
    utils
)