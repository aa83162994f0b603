# -*- coding: utf-8 -*-

from . import field, fn, metric, transform
from .config import Config
from .data import Dataset
from .embedding import Embedding
from .field import ChartField, Field, RawField, SubwordField
from .transform import CoNLL, Transform, Tree
from .vocab import Vocab

__all__ = ['ChartField', 'CoNLL', 'Config', 'Dataset', 'Embedding', 'Field',
           'RawField', 'SubwordField', 'Transform', 'Tree', 'Vocab', 'field', 'fn', 'metric', 'transform']
