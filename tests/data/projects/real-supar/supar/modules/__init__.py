# -*- coding: utf-8 -*-

from .affine import Biaffine, Triaffine
from .dropout import IndependentDropout, SharedDropout
from .lstm import CharLSTM, VariationalLSTM
from .mlp import MLP
from .pretrained import ELMoEmbedding, TransformerEmbedding
from .scalar_mix import ScalarMix
from .transformer import RelativePositionTransformerEncoder, TransformerEncoder

__all__ = ['MLP', 'TransformerEmbedding', 'Biaffine', 'CharLSTM', 'ELMoEmbedding', 'IndependentDropout',
           'RelativePositionTransformerEncoder', 'ScalarMix', 'SharedDropout', 'TransformerEncoder', 'Triaffine',
           'VariationalLSTM']
