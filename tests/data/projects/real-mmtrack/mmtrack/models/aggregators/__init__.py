# Copyright (c) OpenMMLab. All rights reserved.
from .embed_aggregator import EmbedAggregator
from .selsa_aggregator import SelsaAggregator

__all__ = ['EmbedAggregator', 'SelsaAggregator']
