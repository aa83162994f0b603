# Copyright (C) 2026 Arcee AI
# SPDX-License-Identifier: LGPL-3.0-only

import mergekit.tokenizer.normalization as normalization
from mergekit.tokenizer.build import BuildTokenizer, TokenizerInfo
from mergekit.tokenizer.config import TokenizerConfig
from mergekit.tokenizer.embed import PermutedVocabulary

__all__ = [
    "BuildTokenizer",
    "TokenizerInfo",
    "TokenizerConfig",
    "PermutedVocabulary",
    "normalization",
]
