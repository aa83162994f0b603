# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.generation.beam_search.algo import (
    BeamSearchAlgorithm as BeamSearchAlgorithm,
)
from fairseq2.generation.beam_search.algo import BeamStep as BeamStep
from fairseq2.generation.beam_search.algo import (
    StandardBeamSearchAlgorithm as StandardBeamSearchAlgorithm,
)
from fairseq2.generation.beam_search.generator import (
    BeamSearchSeq2SeqGenerator as BeamSearchSeq2SeqGenerator,
)
from fairseq2.generation.beam_search.generator import (
    BeamSearchSequenceGenerator as BeamSearchSequenceGenerator,
)
