# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.


from __future__ import annotations

from omnilingual_asr.models.wav2vec2_llama.beamsearch import (
    Wav2Vec2LlamaBeamSearchSeq2SeqGenerator as Wav2Vec2LlamaBeamSearchSeq2SeqGenerator,
)
from omnilingual_asr.models.wav2vec2_llama.config import (
    WAV2VEC2_LLAMA_FAMILY as WAV2VEC2_LLAMA_FAMILY,
)
from omnilingual_asr.models.wav2vec2_llama.config import (
    Wav2Vec2LlamaBeamSearchConfig as Wav2Vec2LlamaBeamSearchConfig,
)
from omnilingual_asr.models.wav2vec2_llama.config import (
    Wav2Vec2LlamaConfig as Wav2Vec2LlamaConfig,
)
from omnilingual_asr.models.wav2vec2_llama.config import (
    register_wav2vec2_llama_configs as register_wav2vec2_llama_configs,
)
from omnilingual_asr.models.wav2vec2_llama.factory import (
    Wav2Vec2LlamaFactory as Wav2Vec2LlamaFactory,
)
from omnilingual_asr.models.wav2vec2_llama.factory import (
    create_wav2vec2_llama_model as create_wav2vec2_llama_model,
)
from omnilingual_asr.models.wav2vec2_llama.fsdp import (
    apply_fsdp_to_wav2vec2_llama as apply_fsdp_to_wav2vec2_llama,
)
from omnilingual_asr.models.wav2vec2_llama.hub import (
    get_wav2vec2_llama_model_hub as get_wav2vec2_llama_model_hub,
)
from omnilingual_asr.models.wav2vec2_llama.interop import (
    convert_wav2vec2_llama_state_dict as convert_wav2vec2_llama_state_dict,
)
from omnilingual_asr.models.wav2vec2_llama.model import (
    Wav2Vec2LlamaModel as Wav2Vec2LlamaModel,
)

__all__ = [
    "apply_fsdp_to_wav2vec2_llama",
    "Wav2Vec2LlamaBeamSearchSeq2SeqGenerator",
    "WAV2VEC2_LLAMA_FAMILY",
    "Wav2Vec2LlamaBeamSearchConfig",
    "Wav2Vec2LlamaConfig",
    "register_wav2vec2_llama_configs",
    "Wav2Vec2LlamaFactory",
    "create_wav2vec2_llama_model",
    "get_wav2vec2_llama_model_hub",
    "convert_wav2vec2_llama_state_dict",
    "Wav2Vec2LlamaModel",
]
