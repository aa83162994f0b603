# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.models.mpt.configuration_mpt import MPTConfig
from llmfoundry.models.mpt.modeling_mpt import (
    ComposerMPTCausalLM,
    MPTForCausalLM,
    MPTModel,
    MPTPreTrainedModel,
)

__all__ = [
    'MPTPreTrainedModel',
    'MPTModel',
    'MPTForCausalLM',
    'ComposerMPTCausalLM',
    'MPTConfig',
]
