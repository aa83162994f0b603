"""
Tokenizer utilities and Dataset classes for KOLMOGformer.

Provides:
  - KOLMOGformerTokenizer: a character-level tokenizer (zero-dependency baseline)
  - HuggingFaceTokenizerWrapper: thin wrapper around any HuggingFace tokenizer
  - TextDataset: simple line-by-line text dataset for CLM
  - ChunkedTextDataset: overlapping-window chunked dataset for CLM
  - MaskedTextDataset: dataset for MLM pre-training
"""

import json
import os
import re
from collections import Counter
from typing import Dict, List, Optional, Tuple, Union

import torch
from torch import Tensor
from torch.utils.data import Dataset


# ---------------------------------------------------------------------------
# Character-level Tokenizer (self-contained, no dependencies)
# ---------------------------------------------------------------------------

SPECIAL_TOKENS = ["[PAD]", "[BOS]", "[EOS]", "[UNK]", "[MASK]", "[SEP]", "[CLS]"]


class KOLMOGformerTokenizer:
    """Simple character-level tokenizer for quick experiments.

    Builds a vocabulary from a corpus and encodes/decodes text.
    No external dependencies required.

    For serious training, use HuggingFaceTokenizerWrapper with a
    pre-trained BPE/WordPiece tokenizer.
    """

    PAD_TOKEN  = "[PAD]"
    BOS_TOKEN  = "[BOS]"
    EOS_TOKEN  = "[EOS]"
    UNK_TOKEN  = "[UNK]"
    MASK_TOKEN = "[MASK]"

    def __init__(self):
        self.token2id: Dict[str, int] = {}
        self.id2token: Dict[int, str] = {}
        self._is_built = False

    # ------------------------------------------------------------------
    # Build vocabulary
    # ------------------------------------------------------------------

    def build_from_texts(self, texts: List[str], level: str = "char") -> "KOLMOGformerTokenizer":
        """Build vocabulary from a list of strings.

        Args:
            texts: list of text strings
            level: "char" (character-level) or "word" (whitespace-split word-level)
        """
        assert level in ("char", "word"), "level must be 'char' or 'word'"

        counter: Counter = Counter()
        for text in texts:
            if level == "char":
                counter.update(text)
            else:
                counter.update(text.split())

        vocab = SPECIAL_TOKENS + [tok for tok, _ in counter.most_common()]
        self.token2id = {tok: i for i, tok in enumerate(vocab)}
        self.id2token = {i: tok for tok, i in self.token2id.items()}
        self._is_built = True
        return self

    def build_from_file(self, path: str, level: str = "char") -> "KOLMOGformerTokenizer":
        with open(path, encoding="utf-8") as f:
            texts = f.readlines()
        return self.build_from_texts(texts, level=level)

    # ------------------------------------------------------------------
    # Properties
    # ------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self.token2id)

    @property
    def pad_token_id(self) -> int:
        return self.token2id[self.PAD_TOKEN]

    @property
    def bos_token_id(self) -> int:
        return self.token2id[self.BOS_TOKEN]

    @property
    def eos_token_id(self) -> int:
        return self.token2id[self.EOS_TOKEN]

    @property
    def unk_token_id(self) -> int:
        return self.token2id[self.UNK_TOKEN]

    @property
    def mask_token_id(self) -> int:
        return self.token2id[self.MASK_TOKEN]

    # ------------------------------------------------------------------
    # Encode / Decode
    # ------------------------------------------------------------------

    def encode(
        self,
        text: str,
        add_special_tokens: bool = True,
        max_length: Optional[int] = None,
        truncation: bool = True,
        return_tensors: Optional[str] = None,
    ) -> Union[List[int], Tensor]:
        """Encode text to token IDs."""
        assert self._is_built, "Call build_from_texts() first."

        # Character-level: split into individual characters
        # Word-level: split on whitespace
        if all(len(k) == 1 for k in self.token2id if k not in SPECIAL_TOKENS):
            tokens = list(text)
        else:
            tokens = text.split()

        ids = [self.token2id.get(tok, self.unk_token_id) for tok in tokens]

        if add_special_tokens:
            ids = [self.bos_token_id] + ids + [self.eos_token_id]

        if truncation and max_length is not None:
            ids = ids[:max_length]

        if return_tensors == "pt":
            return torch.tensor(ids, dtype=torch.long).unsqueeze(0)
        return ids

    def decode(
        self,
        token_ids: Union[List[int], Tensor],
        skip_special_tokens: bool = True,
    ) -> str:
        """Decode token IDs back to text."""
        if isinstance(token_ids, Tensor):
            token_ids = token_ids.tolist()
        special_ids = {self.pad_token_id, self.bos_token_id, self.eos_token_id,
                       self.unk_token_id, self.mask_token_id}
        tokens = []
        for tid in token_ids:
            tok = self.id2token.get(tid, self.UNK_TOKEN)
            if skip_special_tokens and tid in special_ids:
                continue
            tokens.append(tok)
        # Char-level: join without spaces; word-level: join with spaces
        if all(len(t) == 1 for t in tokens if t not in SPECIAL_TOKENS):
            return "".join(tokens)
        return " ".join(tokens)

    def batch_encode(
        self,
        texts: List[str],
        add_special_tokens: bool = True,
        max_length: Optional[int] = None,
        truncation: bool = True,
        padding: bool = True,
        return_tensors: Optional[str] = None,
    ) -> Dict[str, Union[List[List[int]], Tensor]]:
        """Encode a batch of texts with optional padding."""
        all_ids = [
            self.encode(t, add_special_tokens=add_special_tokens,
                        max_length=max_length, truncation=truncation)
            for t in texts
        ]
        if padding:
            max_len = max(len(ids) for ids in all_ids)
            attention_mask = [[1] * len(ids) + [0] * (max_len - len(ids)) for ids in all_ids]
            all_ids = [ids + [self.pad_token_id] * (max_len - len(ids)) for ids in all_ids]
        else:
            attention_mask = [[1] * len(ids) for ids in all_ids]

        if return_tensors == "pt":
            return {
                "input_ids": torch.tensor(all_ids, dtype=torch.long),
                "attention_mask": torch.tensor(attention_mask, dtype=torch.long),
            }
        return {"input_ids": all_ids, "attention_mask": attention_mask}

    # ------------------------------------------------------------------
    # Save / Load
    # ------------------------------------------------------------------

    def save_pretrained(self, path: str):
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump({"token2id": self.token2id}, f, ensure_ascii=False, indent=2)
        print(f"Tokenizer saved to {path} (vocab_size={self.vocab_size})")

    @classmethod
    def from_pretrained(cls, path: str) -> "KOLMOGformerTokenizer":
        tok = cls()
        with open(os.path.join(path, "tokenizer.json"), encoding="utf-8") as f:
            data = json.load(f)
        tok.token2id = data["token2id"]
        tok.id2token = {int(i): t for t, i in tok.token2id.items()}
        tok._is_built = True
        return tok

    def __repr__(self):
        return f"KOLMOGformerTokenizer(vocab_size={self.vocab_size}, built={self._is_built})"


# ---------------------------------------------------------------------------
# HuggingFace Tokenizer Wrapper
# ---------------------------------------------------------------------------

class HuggingFaceTokenizerWrapper:
    """Thin wrapper around a HuggingFace tokenizer.

    Allows using any HF tokenizer (GPT-2, LLaMA, BERT, etc.)
    with the KOLMOGformer training pipeline.

    Usage:
        from transformers import AutoTokenizer
        hf_tok = AutoTokenizer.from_pretrained("gpt2")
        tokenizer = HuggingFaceTokenizerWrapper(hf_tok)
    """

    def __init__(self, hf_tokenizer):
        self._tok = hf_tokenizer
        # Ensure pad token exists
        if self._tok.pad_token is None:
            self._tok.pad_token = self._tok.eos_token

    @property
    def vocab_size(self) -> int:
        return len(self._tok)

    @property
    def pad_token_id(self) -> int:
        return self._tok.pad_token_id

    @property
    def bos_token_id(self) -> int:
        return self._tok.bos_token_id or 0

    @property
    def eos_token_id(self) -> int:
        return self._tok.eos_token_id or 2

    @property
    def mask_token_id(self) -> int:
        return getattr(self._tok, "mask_token_id", None) or 4

    def encode(self, text: str, **kwargs):
        return self._tok.encode(text, **kwargs)

    def decode(self, token_ids, **kwargs):
        return self._tok.decode(token_ids, **kwargs)

    def batch_encode(self, texts: List[str], **kwargs):
        return self._tok(texts, **kwargs)

    def __call__(self, *args, **kwargs):
        return self._tok(*args, **kwargs)

    def __repr__(self):
        return f"HuggingFaceTokenizerWrapper({self._tok.__class__.__name__}, vocab={self.vocab_size})"


# ---------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------

class TextDataset(Dataset):
    """Simple line-by-line text dataset for causal language modelling.

    Each line in the file becomes one training example.
    Lines shorter than min_length are skipped.
    """

    def __init__(
        self,
        file_path: str,
        tokenizer,
        max_length: int = 512,
        min_length: int = 10,
        add_special_tokens: bool = True,
    ):
        self.examples: List[List[int]] = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if len(line) < min_length:
                    continue
                ids = tokenizer.encode(
                    line,
                    add_special_tokens=add_special_tokens,
                    max_length=max_length,
                    truncation=True,
                )
                if isinstance(ids, Tensor):
                    ids = ids.squeeze(0).tolist()
                if len(ids) >= 2:
                    self.examples.append(ids)

        print(f"TextDataset: {len(self.examples)} examples from {file_path}")

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx) -> Dict[str, List[int]]:
        return {"input_ids": self.examples[idx]}


class ChunkedTextDataset(Dataset):
    """Overlapping-window chunked dataset.

    Concatenates all text into a single stream of token IDs,
    then slices it into overlapping chunks of length `block_size`.
    This is the standard approach for language model pre-training
    (as used in GPT-2, LLaMA, etc.).

    Args:
        texts:      list of strings OR path to a .txt file
        tokenizer:  any tokenizer with an `encode` method
        block_size: number of tokens per chunk
        stride:     step size between chunks (default: block_size, i.e. no overlap)
        add_bos:    prepend BOS token to the full stream
    """

    def __init__(
        self,
        texts: Union[List[str], str],
        tokenizer,
        block_size: int = 512,
        stride: Optional[int] = None,
        add_bos: bool = True,
    ):
        self.block_size = block_size
        self.stride = stride or block_size

        if isinstance(texts, str):
            with open(texts, encoding="utf-8") as f:
                texts = f.readlines()

        # Tokenise and concatenate
        all_ids: List[int] = []
        if add_bos and hasattr(tokenizer, "bos_token_id"):
            all_ids.append(tokenizer.bos_token_id)

        for text in texts:
            text = text.strip()
            if not text:
                continue
            ids = tokenizer.encode(text, add_special_tokens=False)
            if isinstance(ids, Tensor):
                ids = ids.squeeze(0).tolist()
            all_ids.extend(ids)

        # Slice into chunks
        self.chunks: List[List[int]] = []
        for start in range(0, len(all_ids) - block_size + 1, self.stride):
            self.chunks.append(all_ids[start : start + block_size])

        print(
            f"ChunkedTextDataset: {len(all_ids):,} tokens → "
            f"{len(self.chunks):,} chunks of size {block_size} "
            f"(stride={self.stride})"
        )

    def __len__(self):
        return len(self.chunks)

    def __getitem__(self, idx) -> Dict[str, List[int]]:
        return {"input_ids": self.chunks[idx]}


class MaskedTextDataset(Dataset):
    """Dataset for Masked Language Modelling (MLM) pre-training.

    Wraps a ChunkedTextDataset but stores raw input_ids;
    masking is applied by DataCollatorForMaskedLM at collation time.
    """

    def __init__(
        self,
        texts: Union[List[str], str],
        tokenizer,
        block_size: int = 512,
        stride: Optional[int] = None,
    ):
        self._inner = ChunkedTextDataset(
            texts, tokenizer, block_size=block_size, stride=stride, add_bos=False
        )

    def __len__(self):
        return len(self._inner)

    def __getitem__(self, idx) -> Dict[str, List[int]]:
        return self._inner[idx]


class InMemoryDataset(Dataset):
    """Dataset backed by a list of pre-tokenised examples (for testing / small data)."""

    def __init__(self, examples: List[Dict[str, List[int]]]):
        self.examples = examples

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        return self.examples[idx]

    @classmethod
    def from_token_ids(cls, token_id_lists: List[List[int]]) -> "InMemoryDataset":
        return cls([{"input_ids": ids} for ids in token_id_lists])


# ---------------------------------------------------------------------------
# Utility: count trainable parameters in a human-readable format
# ---------------------------------------------------------------------------

def count_parameters(model) -> str:
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    def fmt(n):
        if n >= 1e9: return f"{n/1e9:.2f}B"
        if n >= 1e6: return f"{n/1e6:.2f}M"
        if n >= 1e3: return f"{n/1e3:.2f}K"
        return str(n)
    return f"Total: {fmt(total)} | Trainable: {fmt(trainable)}"
