# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.qwen.config import QWEN_FAMILY as QWEN_FAMILY
from fairseq2.models.qwen.config import QwenConfig as QwenConfig
from fairseq2.models.qwen.config import register_qwen_configs as register_qwen_configs
from fairseq2.models.qwen.factory import QwenFactory as QwenFactory
from fairseq2.models.qwen.factory import create_qwen_model as create_qwen_model
from fairseq2.models.qwen.hub import get_qwen_model_hub as get_qwen_model_hub
from fairseq2.models.qwen.hub import get_qwen_tokenizer_hub as get_qwen_tokenizer_hub
from fairseq2.models.qwen.interop import (
    _QwenHuggingFaceConverter as _QwenHuggingFaceConverter,
)
from fairseq2.models.qwen.interop import (
    convert_qwen_state_dict as convert_qwen_state_dict,
)
from fairseq2.models.qwen.sharder import get_qwen_shard_specs as get_qwen_shard_specs
from fairseq2.models.qwen.tokenizer import QwenTokenizer as QwenTokenizer
from fairseq2.models.qwen.tokenizer import QwenTokenizerConfig as QwenTokenizerConfig
from fairseq2.models.qwen.tokenizer import load_qwen_tokenizer as load_qwen_tokenizer
