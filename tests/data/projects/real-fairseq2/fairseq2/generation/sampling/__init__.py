# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.generation.sampling.generator import (
    SamplingSeq2SeqGenerator as SamplingSeq2SeqGenerator,
)
from fairseq2.generation.sampling.generator import (
    SamplingSequenceGenerator as SamplingSequenceGenerator,
)
from fairseq2.generation.sampling.sampler import Sampler as Sampler
from fairseq2.generation.sampling.sampler import TopKSampler as TopKSampler
from fairseq2.generation.sampling.sampler import TopPSampler as TopPSampler
