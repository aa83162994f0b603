from model2vec.utils import importable

importable("transformers", "tokenizer")

from model2vec.tokenizer.tokenizer import (  # noqa: E402
    clean_and_create_vocabulary,
    turn_tokens_into_ids,
)

__all__ = ["clean_and_create_vocabulary", "turn_tokens_into_ids"]
