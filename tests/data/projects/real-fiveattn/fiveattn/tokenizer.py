"""Tokenizer loader and utilities for SmolLM-135M tokenizer."""

import sys
from typing import List, Optional, Union
import torch

# Prevent any broken torchvision C-extension bindings from interrupting AutoTokenizer on Python 3.14
if "torchvision" not in sys.modules:
    try:
        import torchvision
    except Exception:
        sys.modules["torchvision"] = None

from transformers import AutoTokenizer, PreTrainedTokenizerBase


class SmolLMTokenizer:
    """Wrapper around HuggingFace SmolLM-135M tokenizer."""

    DEFAULT_MODEL_ID = "HuggingFaceTB/SmolLM-135M"

    def __init__(self, model_name_or_path: str = DEFAULT_MODEL_ID):
        self.model_name_or_path = model_name_or_path
        self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(
            model_name_or_path,
            use_fast=True,
        )

        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    @property
    def vocab_size(self) -> int:
        return len(self.tokenizer)

    @property
    def pad_token_id(self) -> int:
        return self.tokenizer.pad_token_id

    @property
    def eos_token_id(self) -> int:
        return self.tokenizer.eos_token_id

    @property
    def bos_token_id(self) -> Optional[int]:
        return self.tokenizer.bos_token_id

    def encode(
        self,
        text: Union[str, List[str]],
        return_tensors: Optional[str] = None,
        max_length: Optional[int] = None,
        truncation: bool = False,
        padding: bool = False,
    ) -> Union[List[int], torch.Tensor]:
        return self.tokenizer(
            text,
            return_tensors=return_tensors,
            max_length=max_length,
            truncation=truncation,
            padding=padding,
        )["input_ids"]

    def decode(
        self,
        token_ids: Union[List[int], torch.Tensor],
        skip_special_tokens: bool = True,
    ) -> str:
        if isinstance(token_ids, torch.Tensor):
            if token_ids.ndim > 1:
                token_ids = token_ids.squeeze(0)
            token_ids = token_ids.tolist()
        return self.tokenizer.decode(token_ids, skip_special_tokens=skip_special_tokens)


_cached_tokenizer: Optional[SmolLMTokenizer] = None


def get_tokenizer(model_name_or_path: str = SmolLMTokenizer.DEFAULT_MODEL_ID) -> SmolLMTokenizer:
    """Returns a cached or new SmolLMTokenizer instance."""
    global _cached_tokenizer
    if _cached_tokenizer is None or _cached_tokenizer.model_name_or_path != model_name_or_path:
        _cached_tokenizer = SmolLMTokenizer(model_name_or_path)
    return _cached_tokenizer
