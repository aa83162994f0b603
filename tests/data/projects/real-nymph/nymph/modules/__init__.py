# -*- coding: utf-8 -*-
from .norm_classifier import NormClassifier
from .seq_classifier import SeqClassifier
