"""Batch objects."""

import tokenizers
import torch
from torch import nn

from . import conllu


class Batch(nn.Module):
    """CoNLL-U data batch.

    Args:
        tokenlists: list of TokenLists.
        tokens: batch encoding from the transformer.
        pos: optional padded tensor of universal POS tags.
        xpos: optional padded tensor of language-specific POS tag.
        lemma: optional padded tensor of lemma tags.
        feats: optional padded tensor of morphological feature tags.
        head: optional padded tensor of dependency parser head indices.
        deprel: optional padded tensor of dependency parser dependency
            relations.
    """

    tokenlists: list[conllu.TokenList]
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    encodings: list[tokenizers.Encoding]
    upos: torch.Tensor | None
    xpos: torch.Tensor | None
    lemma: torch.Tensor | None
    feats: torch.Tensor | None
    head: torch.Tensor | None
    deprel: torch.Tensor | None

    def __init__(
        self,
        tokenlists,
        input_ids,
        attention_mask,
        encodings,
        upos=None,
        xpos=None,
        lemma=None,
        feats=None,
        head=None,
        deprel=None,
    ):
        super().__init__()
        self.tokenlists = tokenlists
        self.register_buffer("input_ids", input_ids)
        self.register_buffer("attention_mask", attention_mask)
        self.encodings = encodings
        self.register_buffer("upos", upos)
        self.register_buffer("xpos", xpos)
        self.register_buffer("lemma", lemma)
        self.register_buffer("feats", feats)
        self.register_buffer("head", head)
        self.register_buffer("deprel", deprel)

    @property
    def use_upos(self) -> bool:
        return self.upos is not None

    @property
    def use_xpos(self) -> bool:
        return self.xpos is not None

    @property
    def use_lemma(self) -> bool:
        return self.lemma is not None

    @property
    def use_feats(self) -> bool:
        return self.feats is not None

    @property
    def use_parse(self) -> bool:
        return self.head is not None and self.deprel is not None

    def __len__(self) -> int:
        return len(self.tokenlists)
