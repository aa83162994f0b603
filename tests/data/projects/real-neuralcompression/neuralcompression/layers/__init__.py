# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._channel_norm import ChannelNorm2D
from ._continuous_entropy import ContinuousEntropy
from ._normalize_latent import NormalizeLatent
from ._project_latent import ProjectLatent
from ._simplified_gdn import SimplifiedGDN, SimplifiedInverseGDN
from ._vq_bottleneck import VQBottleneck
from ._xca import XCA
