# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.generation.generator import GenerationCounters as GenerationCounters
from fairseq2.generation.generator import Hypothesis as Hypothesis
from fairseq2.generation.generator import Seq2SeqGenerator as Seq2SeqGenerator
from fairseq2.generation.generator import (
    SequenceGenerationError as SequenceGenerationError,
)
from fairseq2.generation.generator import SequenceGenerator as SequenceGenerator
from fairseq2.generation.generator import (
    SequenceGeneratorOutput as SequenceGeneratorOutput,
)
from fairseq2.generation.generator import StepHook as StepHook
