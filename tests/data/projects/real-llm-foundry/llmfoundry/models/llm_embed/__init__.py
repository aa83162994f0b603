# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.models.llm_embed.finetune_embedding_model import \
    FinetuneEmbeddingModel
from llmfoundry.models.llm_embed.modeling_llm_embed import (
    ContrastiveEvalLoss,
    ContrastiveModel,
)

__all__ = [
    'ContrastiveModel',
    'ContrastiveEvalLoss',
    'FinetuneEmbeddingModel',
]
