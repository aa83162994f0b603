# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.llama.checkpoint import (
    _LLaMACheckpointLoader as _LLaMACheckpointLoader,
)
from fairseq2.models.llama.config import LLAMA_FAMILY as LLAMA_FAMILY
from fairseq2.models.llama.config import LLaMAConfig as LLaMAConfig
from fairseq2.models.llama.config import LLaMARoPEScaleConfig as LLaMARoPEScaleConfig
from fairseq2.models.llama.config import (
    register_llama_configs as register_llama_configs,
)
from fairseq2.models.llama.factory import LLaMAFactory as LLaMAFactory
from fairseq2.models.llama.factory import create_llama_model as create_llama_model
from fairseq2.models.llama.factory import init_llama_rope_freqs as init_llama_rope_freqs
from fairseq2.models.llama.hub import get_llama_model_hub as get_llama_model_hub
from fairseq2.models.llama.hub import get_llama_tokenizer_hub as get_llama_tokenizer_hub
from fairseq2.models.llama.interop import (
    _LLaMAHuggingFaceConverter as _LLaMAHuggingFaceConverter,
)
from fairseq2.models.llama.interop import (
    convert_llama_state_dict as convert_llama_state_dict,
)
from fairseq2.models.llama.interop import (
    convert_to_ref_llama_state_dict as convert_to_ref_llama_state_dict,
)
from fairseq2.models.llama.sharder import get_llama_shard_specs as get_llama_shard_specs
from fairseq2.models.llama.tokenizer import (
    LLaMAHuggingFaceTokenizer as LLaMAHuggingFaceTokenizer,
)
from fairseq2.models.llama.tokenizer import (
    LLaMATiktokenTokenizer as LLaMATiktokenTokenizer,
)
from fairseq2.models.llama.tokenizer import LLaMATokenizerConfig as LLaMATokenizerConfig
from fairseq2.models.llama.tokenizer import load_llama_tokenizer as load_llama_tokenizer
