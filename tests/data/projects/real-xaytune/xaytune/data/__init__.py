import xaytune.data.formats  # register built-in formats  # noqa: F401
from xaytune.data.formats import apply_chat_template
from xaytune.data.loader import load_dataset
from xaytune.data.packing import pack_sequences
from xaytune.data.preferences import load_preference_dataset
from xaytune.data.registry import format_registry
from xaytune.data.tokenizer import (
    StreamingTokenizedDataset,
    collate_preference,
    collate_tokenized,
    tokenize_dataset,
    tokenize_preference_dataset,
    tokenize_sample,
)
from xaytune.data.validation import DataValidationError, validate_dataset_sample

register_format = format_registry.register

__all__ = [
    "apply_chat_template",
    "collate_preference",
    "collate_tokenized",
    "load_dataset",
    "load_preference_dataset",
    "StreamingTokenizedDataset",
    "tokenize_sample",
    "format_registry",
    "register_format",
    "pack_sequences",
    "tokenize_dataset",
    "tokenize_preference_dataset",
    "DataValidationError",
    "validate_dataset_sample",
]
