# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved

from .attention import Mlp, MultiScaleAttention, MultiScaleBlock
from .drop_path import DropPath
from .fusion import ConcatFusion, ReduceFusion, make_fusion_layer
from .mlp import make_multilayer_perceptron
from .positional_encoding import PositionalEncoding, SpatioTemporalClsPositionalEncoding
