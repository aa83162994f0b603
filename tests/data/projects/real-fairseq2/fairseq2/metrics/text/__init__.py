# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.metrics.text.bleu import DEFAULT_BLEU_TOKENIZER as DEFAULT_BLEU_TOKENIZER
from fairseq2.metrics.text.bleu import BleuMetric as BleuMetric
from fairseq2.metrics.text.chrf import ChrfMetric as ChrfMetric
from fairseq2.metrics.text.wer import WerMetric as WerMetric
