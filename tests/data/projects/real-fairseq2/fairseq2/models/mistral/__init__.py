# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.mistral.config import MISTRAL_FAMILY as MISTRAL_FAMILY
from fairseq2.models.mistral.config import MistralConfig as MistralConfig
from fairseq2.models.mistral.config import (
    register_mistral_configs as register_mistral_configs,
)
from fairseq2.models.mistral.factory import MistralFactory as MistralFactory
from fairseq2.models.mistral.factory import create_mistral_model as create_mistral_model
from fairseq2.models.mistral.hub import get_mistral_model_hub as get_mistral_model_hub
from fairseq2.models.mistral.hub import (
    get_mistral_tokenizer_hub as get_mistral_tokenizer_hub,
)
from fairseq2.models.mistral.interop import (
    convert_mistral_state_dict as convert_mistral_state_dict,
)
from fairseq2.models.mistral.tokenizer import (
    load_mistral_tokenizer as load_mistral_tokenizer,
)
