# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from fairseq2.models.gemma3n.ac import apply_ac_to_gemma3n as apply_ac_to_gemma3n
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
from fairseq2.models.gemma3n.config import GEMMA3N_FAMILY as GEMMA3N_FAMILY
from fairseq2.models.gemma3n.config import Gemma3nAudioConfig as Gemma3nAudioConfig
from fairseq2.models.gemma3n.config import Gemma3nConfig as Gemma3nConfig
from fairseq2.models.gemma3n.config import (
    get_gemma3n_e2b_config as get_gemma3n_e2b_config,
)
from fairseq2.models.gemma3n.config import (
    get_gemma3n_e4b_config as get_gemma3n_e4b_config,
)
from fairseq2.models.gemma3n.config import is_global_layer as is_global_layer
from fairseq2.models.gemma3n.config import (
    register_gemma3n_configs as register_gemma3n_configs,
)
from fairseq2.models.gemma3n.decoder import Gemma3nDecoderBase as Gemma3nDecoderBase
from fairseq2.models.gemma3n.factory import (
    create_gemma3n_decoder_layer as create_gemma3n_decoder_layer,
)
from fairseq2.models.gemma3n.factory import create_gemma3n_model as create_gemma3n_model
from fairseq2.models.gemma3n.frontend import Gemma3nFrontendBase as Gemma3nFrontendBase
from fairseq2.models.gemma3n.fsdp import apply_fsdp_to_gemma3n as apply_fsdp_to_gemma3n
from fairseq2.models.gemma3n.hub import get_gemma3n_model_hub as get_gemma3n_model_hub
from fairseq2.models.gemma3n.hub import (
    get_gemma3n_tokenizer_hub as get_gemma3n_tokenizer_hub,
)
from fairseq2.models.gemma3n.interop import (
    convert_gemma3n_state_dict as convert_gemma3n_state_dict,
)
from fairseq2.models.gemma3n.interop import export_gemma3n as export_gemma3n
from fairseq2.models.gemma3n.tokenizer import Gemma3nTokenizer as Gemma3nTokenizer
from fairseq2.models.gemma3n.tokenizer import (
    load_gemma3n_tokenizer as load_gemma3n_tokenizer,
)

__all__ = [
    "apply_ac_to_gemma3n",
    "apply_fsdp_to_gemma3n",
    "GEMMA3N_FAMILY",
    "Gemma3nAudioConfig",
    "Gemma3nAudioTower",
    "Gemma3nConfig",
    "Gemma3nConformerEncoder",
    "Gemma3nConformerSDPA",
    "Gemma3nDecoderBase",
    "Gemma3nFrontendBase",
    "Gemma3nMultimodalEmbedder",
    "Gemma3nSubsampleConvProjection",
    "Gemma3nTokenizer",
    "convert_gemma3n_state_dict",
    "create_gemma3n_decoder_layer",
    "create_gemma3n_model",
    "export_gemma3n",
    "get_gemma3n_e2b_config",
    "get_gemma3n_e4b_config",
    "get_gemma3n_model_hub",
    "get_gemma3n_tokenizer_hub",
    "is_global_layer",
    "load_gemma3n_tokenizer",
    "register_gemma3n_configs",
]
