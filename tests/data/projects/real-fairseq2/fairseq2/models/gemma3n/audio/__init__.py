# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from fairseq2.models.gemma3n.audio.conformer import (
    Gemma3nConformerAttention as Gemma3nConformerAttention,
)
from fairseq2.models.gemma3n.audio.conformer import (
    Gemma3nConformerBlock as Gemma3nConformerBlock,
)
from fairseq2.models.gemma3n.audio.conformer import (
    Gemma3nConformerEncoder as Gemma3nConformerEncoder,
)
from fairseq2.models.gemma3n.audio.embedder import (
    Gemma3nMultimodalEmbedder as Gemma3nMultimodalEmbedder,
)
from fairseq2.models.gemma3n.audio.sdpa import (
    Gemma3nConformerSDPA as Gemma3nConformerSDPA,
)
from fairseq2.models.gemma3n.audio.subsample import (
    Gemma3nSubsampleConvProjection as Gemma3nSubsampleConvProjection,
)
from fairseq2.models.gemma3n.audio.tower import Gemma3nAudioTower as Gemma3nAudioTower

__all__ = [
    "Gemma3nAudioTower",
    "Gemma3nConformerAttention",
    "Gemma3nConformerEncoder",
    "Gemma3nConformerSDPA",
    "Gemma3nMultimodalEmbedder",
    "Gemma3nSubsampleConvProjection",
]
