# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.models.hf.hf_base import BaseHuggingFaceModel
from llmfoundry.models.hf.hf_causal_lm import ComposerHFCausalLM
from llmfoundry.models.hf.hf_fsdp import (
    prepare_hf_causal_lm_model_for_fsdp,
    prepare_hf_enc_dec_model_for_fsdp,
    prepare_hf_model_for_fsdp,
)
from llmfoundry.models.hf.hf_t5 import ComposerHFT5

__all__ = [
    'BaseHuggingFaceModel',
    'ComposerHFCausalLM',
    'ComposerHFT5',
    'prepare_hf_causal_lm_model_for_fsdp',
    'prepare_hf_enc_dec_model_for_fsdp',
    'prepare_hf_model_for_fsdp',
]
