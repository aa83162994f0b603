# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.models.inference_api_wrapper.fmapi import (
    FMAPICasualLMEvalWrapper,
    FMAPIChatAPIEvalWrapper,
    FMAPIEvalInterface,
)
from llmfoundry.models.inference_api_wrapper.interface import \
    InferenceAPIEvalWrapper
from llmfoundry.models.inference_api_wrapper.openai_causal_lm import (
    OpenAICausalLMEvalWrapper,
    OpenAIChatAPIEvalWrapper,
    OpenAIEvalInterface,
)

__all__ = [
    'OpenAICausalLMEvalWrapper',
    'OpenAIChatAPIEvalWrapper',
    'OpenAIEvalInterface',
    'InferenceAPIEvalWrapper',
    'FMAPICasualLMEvalWrapper',
    'FMAPIChatAPIEvalWrapper',
    'FMAPIEvalInterface',
]
