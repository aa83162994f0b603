# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.llama4.config import LLAMA4_FAMILY as LLAMA4_FAMILY
from fairseq2.models.llama4.config import Llama4Config as Llama4Config
from fairseq2.models.llama4.config import (
    register_llama4_configs as register_llama4_configs,
)
from fairseq2.models.llama4.factory import Llama4Factory as Llama4Factory
from fairseq2.models.llama4.factory import create_llama4_model as create_llama4_model
from fairseq2.models.llama4.hub import get_llama4_model_hub as get_llama4_model_hub
from fairseq2.models.llama4.hub import (
    get_llama4_tokenizer_hub as get_llama4_tokenizer_hub,
)
from fairseq2.models.llama4.interop import (
    convert_llama4_state_dict as convert_llama4_state_dict,
)
from fairseq2.models.llama4.sharder import (
    get_llama4_shard_specs as get_llama4_shard_specs,
)
from fairseq2.models.llama4.tokenizer import (
    Llama4TokenizerConfig as Llama4TokenizerConfig,
)
from fairseq2.models.llama4.tokenizer import (
    load_llama4_tokenizer as load_llama4_tokenizer,
)
