# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.transformer_lm.ac import (
    apply_ac_to_transformer_lm as apply_ac_to_transformer_lm,
)
from fairseq2.models.transformer_lm.compiler import (
    compile_transformer_lm as compile_transformer_lm,
)
from fairseq2.models.transformer_lm.decoder import (
    StandardTransformerLMDecoder as StandardTransformerLMDecoder,
)
from fairseq2.models.transformer_lm.decoder import (
    TransformerLMDecoder as TransformerLMDecoder,
)
from fairseq2.models.transformer_lm.decoder import (
    TransformerLMDecoderLayerHook as TransformerLMDecoderLayerHook,
)
from fairseq2.models.transformer_lm.decoder_layer import (
    StandardTransformerLMDecoderLayer as StandardTransformerLMDecoderLayer,
)
from fairseq2.models.transformer_lm.decoder_layer import (
    TransformerLMDecoderLayer as TransformerLMDecoderLayer,
)
from fairseq2.models.transformer_lm.fsdp import (
    apply_fsdp_to_transformer_lm as apply_fsdp_to_transformer_lm,
)
from fairseq2.models.transformer_lm.model import TransformerLM as TransformerLM
