# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.data.contrastive_pairs.dataloader import (
    StreamingPairsDataset,
    build_pairs_dataloader,
)

__all__ = [
    'StreamingPairsDataset',
    'build_pairs_dataloader',
]
