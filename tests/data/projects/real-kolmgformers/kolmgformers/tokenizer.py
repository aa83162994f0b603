"""
kolmgformers/tokenizer.py  v2.0.6-BETA
=========================================
OMGFormer tokenizer integration.

NEW in v2.0.6-BETA:
  Feature #61 — OMGTokenizer: unified tokenizer wrapper that supports
                HuggingFace tokenizers (if installed) with a zero-dependency
                character-level fallback.
  Feature #62 — Special token management: [PAD], [MASK], [BOS], [EOS], [UNK]
                are pinned to IDs 0..4 so OMGConfig defaults always align.
  Feature #63 — save / load round-trip: saves vocab + config as JSON.
  Feature #64 — from_pretrained: loads any HuggingFace-compatible tokenizer
                and wraps it for use with OMGFormer.
  Feature #65 — encode_batch / decode_batch with padding and truncation.
  Feature #66 — mask_tokens helper: applies BERT-style random masking for
                diffusion training data preparation.
"""

from __future__ import annotations

import json
import os
import random
from typing import Dict, List, Optional, Tuple, Union


__all__ = [
    "OMGTokenizer",
    "SPECIAL_TOKENS",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Special token constants (aligned with OMGConfig defaults) ─────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

SPECIAL_TOKENS: Dict[str, int] = {
    "[PAD]":  0,
    "[UNK]":  1,
    "[BOS]":  2,
    "[EOS]":  3,
    "[MASK]": 4,
}


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── OMGTokenizer ─────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class OMGTokenizer:
    """
    Unified tokenizer for OMGFormer.

    Two operating modes:
      1. **HuggingFace mode**: wraps any ``transformers`` tokenizer and
         pins the five OMGFormer special tokens.  Requires ``transformers``.
      2. **Fallback mode**: character-level tokenizer that works with zero
         dependencies.  Useful for quick experiments and unit tests.

    Special token IDs are always:
        [PAD]=0  [UNK]=1  [BOS]=2  [EOS]=3  [MASK]=4

    These match OMGConfig.pad_token_id=0 and OMGConfig.mask_token_id=4.

    Args:
        vocab:      Optional dict mapping token string → int ID.
                    If None and no HF tokenizer, a default ASCII vocab is built.
        hf_tokenizer: Optional HuggingFace tokenizer instance to wrap.
        max_length: Default max sequence length for encode/encode_batch.

    Usage::

        # Character-level (no dependencies)
        tok = OMGTokenizer()
        ids = tok.encode("Hello, world!")
        txt = tok.decode(ids)

        # From a HuggingFace tokenizer
        from transformers import AutoTokenizer
        hf = AutoTokenizer.from_pretrained("bert-base-uncased")
        tok = OMGTokenizer(hf_tokenizer=hf)

        # From a saved tokenizer
        tok = OMGTokenizer.load("./my-model")
    """

    # ── Construction ──────────────────────────────────────────────────────────

    def __init__(
        self,
        vocab:         Optional[Dict[str, int]] = None,
        hf_tokenizer=None,
        max_length:    int = 2048,
    ):
        self.max_length    = max_length
        self._hf           = hf_tokenizer
        self._mode         = "hf" if hf_tokenizer is not None else "char"

        if self._mode == "hf":
            self._init_hf_mode()
        else:
            self._init_char_mode(vocab)

    # ── HuggingFace mode ──────────────────────────────────────────────────────

    def _init_hf_mode(self) -> None:
        """
        Wrap a HuggingFace tokenizer.

        We pin OMGFormer special tokens by adding them if they are not already
        present.  We update the HF tokenizer's special_tokens_map to point to
        our fixed IDs.
        """
        hf = self._hf

        # Add OMGFormer special tokens if not present
        missing = [t for t in SPECIAL_TOKENS if t not in hf.get_vocab()]
        if missing:
            hf.add_tokens(missing, special_tokens=True)

        # Build id ↔ token maps from the HF vocab
        vocab = hf.get_vocab()
        self._tok2id: Dict[str, int] = vocab
        self._id2tok: Dict[int, str] = {v: k for k, v in vocab.items()}

        self.pad_token_id  = vocab.get("[PAD]",  hf.pad_token_id or 0)
        self.unk_token_id  = vocab.get("[UNK]",  hf.unk_token_id or 1)
        self.bos_token_id  = vocab.get("[BOS]",  hf.bos_token_id or 2)
        self.eos_token_id  = vocab.get("[EOS]",  hf.eos_token_id or 3)
        self.mask_token_id = vocab.get("[MASK]", hf.mask_token_id or 4)
        self.vocab_size    = len(vocab)

    # ── Character-level fallback mode ─────────────────────────────────────────

    def _init_char_mode(self, vocab: Optional[Dict[str, int]]) -> None:
        """
        Build or restore a character-level vocabulary.

        Special tokens occupy IDs 0–4.  All printable ASCII characters follow.
        Additional characters are added dynamically on first encode.
        """
        self._tok2id: Dict[str, int] = {}
        self._id2tok: Dict[int, str] = {}

        if vocab is not None:
            self._tok2id = dict(vocab)
            self._id2tok = {v: k for k, v in vocab.items()}
        else:
            # Pin special tokens first
            for tok, idx in SPECIAL_TOKENS.items():
                self._tok2id[tok] = idx
                self._id2tok[idx] = tok

            # Fill printable ASCII starting from ID 5
            _next = max(SPECIAL_TOKENS.values()) + 1
            for ch in _printable_chars():
                if ch not in self._tok2id:
                    self._tok2id[ch] = _next
                    self._id2tok[_next] = ch
                    _next += 1

        self.pad_token_id  = self._tok2id.get("[PAD]",  0)
        self.unk_token_id  = self._tok2id.get("[UNK]",  1)
        self.bos_token_id  = self._tok2id.get("[BOS]",  2)
        self.eos_token_id  = self._tok2id.get("[EOS]",  3)
        self.mask_token_id = self._tok2id.get("[MASK]", 4)
        self.vocab_size    = len(self._tok2id)

    # ── Core encode / decode ──────────────────────────────────────────────────

    def encode(
        self,
        text:        str,
        add_bos:     bool = True,
        add_eos:     bool = True,
        truncate:    bool = True,
        max_length:  Optional[int] = None,
    ) -> List[int]:
        """
        Encode a string to a list of token IDs.

        Args:
            text:       Input text.
            add_bos:    Prepend [BOS] token.
            add_eos:    Append [EOS] token.
            truncate:   Truncate to max_length (after special tokens).
            max_length: Override default max_length.

        Returns:
            List of integer token IDs.
        """
        max_len = max_length or self.max_length

        if self._mode == "hf":
            ids = self._hf.encode(text, add_special_tokens=False)
        elif self._mode == "bpe":
            # BPE mode — use learned merge encoder
            ids = self._bpe_encode(text)
        else:
            ids = self._char_encode(text)

        if truncate:
            budget = max_len - int(add_bos) - int(add_eos)
            ids = ids[:budget]

        if add_bos:
            ids = [self.bos_token_id] + ids
        if add_eos:
            ids = ids + [self.eos_token_id]

        return ids

    def decode(
        self,
        ids:            List[int],
        skip_special:   bool = True,
    ) -> str:
        """
        Decode a list of token IDs to a string.

        Args:
            ids:          List of token IDs.
            skip_special: If True, strip special tokens from output.

        Returns:
            Decoded string.
        """
        special_ids = set(SPECIAL_TOKENS.values())

        if skip_special:
            ids = [i for i in ids if i not in special_ids]

        if self._mode == "hf":
            return self._hf.decode(ids, skip_special_tokens=skip_special)
        else:
            return self._char_decode(ids)

    # ── Batch encode ──────────────────────────────────────────────────────────

    def encode_batch(
        self,
        texts:       List[str],
        add_bos:     bool = True,
        add_eos:     bool = True,
        max_length:  Optional[int] = None,
        pad:         bool = True,
    ) -> Tuple[List[List[int]], List[List[int]]]:
        """
        Encode a batch of strings with padding.

        Args:
            texts:      List of input strings.
            add_bos:    Prepend [BOS] to each.
            add_eos:    Append [EOS] to each.
            max_length: Truncate / pad target length.
            pad:        If True, pad all sequences to the same length.

        Returns:
            Tuple of (input_ids, attention_mask).
            Each is a list of lists of ints.
        """
        max_len = max_length or self.max_length

        encoded = [
            self.encode(t, add_bos=add_bos, add_eos=add_eos,
                        truncate=True, max_length=max_len)
            for t in texts
        ]

        # BUG FIX v2.0.6-BETA (#19): guard against empty batch
        if not encoded:
            return [], []

        if not pad:
            masks = [[1] * len(e) for e in encoded]
            return encoded, masks

        target = min(max(len(e) for e in encoded), max_len)
        padded = []
        masks  = []
        for e in encoded:
            pad_len = target - len(e)
            padded.append(e + [self.pad_token_id] * pad_len)
            masks.append([1] * len(e) + [0] * pad_len)

        return padded, masks

    def decode_batch(
        self,
        batch_ids:    List[List[int]],
        skip_special: bool = True,
    ) -> List[str]:
        """Decode a batch of token ID lists."""
        return [self.decode(ids, skip_special=skip_special) for ids in batch_ids]

    # ── Feature #66 : Masking for diffusion training ──────────────────────────

    def mask_tokens(
        self,
        ids:               List[int],
        mask_prob:         float = 0.15,
        random_token_prob: float = 0.10,
        keep_prob:         float = 0.10,
        mask_special:      bool  = False,
    ) -> Tuple[List[int], List[int]]:
        """
        Apply BERT-style random masking for diffusion training.

        For each token with probability mask_prob:
          - With prob (1 - random_token_prob - keep_prob): replace with [MASK]
          - With prob random_token_prob: replace with a random vocab token
          - With prob keep_prob: keep unchanged

        Args:
            ids:               Original token IDs.
            mask_prob:         Fraction of tokens to mask.
            random_token_prob: Sub-prob: random token instead of [MASK].
            keep_prob:         Sub-prob: keep original instead of [MASK].
            mask_special:      If False, skip special tokens (IDs 0–4).

        Returns:
            Tuple of (masked_ids, labels).
            labels has -100 for unmasked positions (ignored in loss).
        """
        special_ids = set(SPECIAL_TOKENS.values())
        vocab_size  = max(self.vocab_size, max(ids, default=0) + 1)

        masked = list(ids)
        labels = [-100] * len(ids)

        for i, tok in enumerate(ids):
            if not mask_special and tok in special_ids:
                continue
            if random.random() > mask_prob:
                continue

            labels[i] = tok
            r = random.random()
            if r < 1.0 - random_token_prob - keep_prob:
                masked[i] = self.mask_token_id
            elif r < 1.0 - keep_prob:
                # Random token (not a special token)
                rand_id = random.randint(5, vocab_size - 1)
                masked[i] = rand_id
            # else: keep original

        return masked, labels

    # ── Vocabulary management ─────────────────────────────────────────────────

    def add_tokens(self, tokens: List[str]) -> int:
        """
        Add new tokens to the vocabulary.

        Args:
            tokens: List of new token strings.

        Returns:
            Number of tokens actually added (skips existing).
        """
        if self._mode == "hf":
            n = self._hf.add_tokens(tokens)
            self._tok2id = self._hf.get_vocab()
            self._id2tok = {v: k for k, v in self._tok2id.items()}
            self.vocab_size = len(self._tok2id)
            return n

        added = 0
        for tok in tokens:
            if tok not in self._tok2id:
                new_id = len(self._tok2id)
                self._tok2id[tok] = new_id
                self._id2tok[new_id] = tok
                added += 1
        self.vocab_size = len(self._tok2id)
        return added

    def __len__(self) -> int:
        return self.vocab_size

    def __contains__(self, token: str) -> bool:
        return token in self._tok2id

    # ── Feature #63 : Save / Load ─────────────────────────────────────────────

    def save(self, directory: str) -> None:
        """
        Save tokenizer to a directory.

        Saves ``tokenizer.json`` (vocab + metadata).
        For HF mode, also saves the underlying HF tokenizer files.

        Args:
            directory: Target directory (created if missing).
        """
        os.makedirs(directory, exist_ok=True)

        meta = {
            "mode":       self._mode,
            "max_length": self.max_length,
            "vocab":      self._tok2id,
            "special_tokens": SPECIAL_TOKENS,
        }
        with open(os.path.join(directory, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, ensure_ascii=False, indent=2)

        if self._mode == "hf" and hasattr(self._hf, "save_pretrained"):
            self._hf.save_pretrained(directory)

        print(f"[kolmgformers] Tokenizer saved → {directory}  (vocab_size={self.vocab_size})")

    @classmethod
    def load(cls, directory: str) -> "OMGTokenizer":
        """
        Load tokenizer from a directory.

        Args:
            directory: Directory containing ``tokenizer.json``.

        Returns:
            Restored OMGTokenizer.

        Raises:
            FileNotFoundError: If tokenizer.json is not found.
        """
        path = os.path.join(directory, "tokenizer.json")
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"tokenizer.json not found in '{directory}'."
            )

        with open(path, "r", encoding="utf-8") as f:
            meta = json.load(f)

        # Convert keys back to int for id2tok
        vocab = {k: int(v) for k, v in meta["vocab"].items()}

        if meta.get("mode") == "hf":
            # Try to restore the HF tokenizer
            try:
                from transformers import AutoTokenizer
                hf = AutoTokenizer.from_pretrained(directory)
                return cls(hf_tokenizer=hf, max_length=meta.get("max_length", 2048))
            except Exception:
                # Fall back to char mode with saved vocab
                pass

        return cls(vocab=vocab, max_length=meta.get("max_length", 2048))

    # ── Feature #64 : from_pretrained ─────────────────────────────────────────

    @classmethod
    def from_pretrained(cls, name_or_path: str, max_length: int = 2048) -> "OMGTokenizer":
        """
        Load a HuggingFace tokenizer by name or path.

        Requires the ``transformers`` package.

        Args:
            name_or_path: HuggingFace model name (e.g. 'bert-base-uncased')
                          or path to a saved tokenizer.
            max_length:   Default max sequence length.

        Returns:
            OMGTokenizer wrapping the HF tokenizer.

        Raises:
            ImportError: If ``transformers`` is not installed.
        """
        try:
            from transformers import AutoTokenizer
        except ImportError as e:
            raise ImportError(
                "transformers is required for OMGTokenizer.from_pretrained. "
                "Install it with: pip install transformers"
            ) from e

        hf = AutoTokenizer.from_pretrained(name_or_path)
        return cls(hf_tokenizer=hf, max_length=max_length)

    # ── Internal char-level helpers ───────────────────────────────────────────

    def _char_encode(self, text: str) -> List[int]:
        """Encode character by character, adding unknown characters dynamically."""
        ids = []
        for ch in text:
            if ch not in self._tok2id:
                # Dynamically add unknown character
                new_id = len(self._tok2id)
                self._tok2id[ch] = new_id
                self._id2tok[new_id] = ch
                self.vocab_size = len(self._tok2id)
            ids.append(self._tok2id[ch])
        return ids

    def _char_decode(self, ids: List[int]) -> str:
        return "".join(self._id2tok.get(i, "[UNK]") for i in ids)

    def __repr__(self) -> str:
        return (
            f"OMGTokenizer("
            f"mode='{self._mode}', "
            f"vocab_size={self.vocab_size}, "
            f"max_length={self.max_length})"
        )

    # ── BPE training (NEW v2.0.6-BETA) ────────────────────────────────────────

    @classmethod
    def train_bpe(
        cls,
        corpus:     List[str],
        vocab_size: int  = 8000,
        max_length: int  = 2048,
        min_freq:   int  = 2,
        verbose:    bool = True,
    ) -> "OMGTokenizer":
        """
        NEW v2.0.6-BETA (#6) — Train a byte-pair encoding tokenizer from scratch.

        Implements the standard BPE algorithm (Sennrich et al., 2016):
          1. Initialize vocab with all unique characters in corpus.
          2. Repeatedly find the most frequent adjacent pair of symbols.
          3. Merge that pair into a new token and update all sequences.
          4. Stop when vocab_size is reached or no pair exceeds min_freq.

        This replaces the "production-grade tokenizer" stub — OMGTokenizer can
        now actually learn subword vocabularies from raw text.

        Args:
            corpus:     List of raw text strings to train on.
            vocab_size: Target vocabulary size (including special tokens).
            max_length: Default max sequence length for the returned tokenizer.
            min_freq:   Minimum pair frequency to merge (early-stop criterion).
            verbose:    Print progress every 500 merges.

        Returns:
            A new OMGTokenizer in 'bpe' mode with the learned vocabulary.

        Example::

            tok = OMGTokenizer.train_bpe(
                corpus=open("wiki.txt").readlines(),
                vocab_size=16000,
            )
            tok.save("./my-bpe-tokenizer")

        """
        from collections import Counter, defaultdict

        # ── Special tokens always occupy IDs 0-4 ─────────────────────────────
        SPECIAL = ["[PAD]", "[UNK]", "[BOS]", "[EOS]", "[MASK]"]
        vocab: Dict[str, int] = {t: i for i, t in enumerate(SPECIAL)}

        # ── Build initial character vocab ─────────────────────────────────────
        word_freqs: Counter = Counter()
        for text in corpus:
            for word in text.strip().split():
                word_freqs[word] += 1

        # Represent each word as a tuple of chars + end-of-word marker
        splits: Dict[str, List[str]] = {
            word: list(word) + ["</w>"]
            for word in word_freqs
        }

        # Collect all unique chars
        for chars in splits.values():
            for ch in chars:
                if ch not in vocab:
                    vocab[ch] = len(vocab)

        # ── BPE merge loop ────────────────────────────────────────────────────
        merges: List[tuple] = []
        n_merges = vocab_size - len(vocab)

        for merge_idx in range(max(0, n_merges)):
            # Count all adjacent pairs
            pair_freqs: Counter = Counter()
            for word, freq in word_freqs.items():
                syms = splits[word]
                for a, b in zip(syms[:-1], syms[1:]):
                    pair_freqs[(a, b)] += freq

            if not pair_freqs:
                break

            best_pair, best_freq = pair_freqs.most_common(1)[0]
            if best_freq < min_freq:
                break

            # Register new token
            new_token = "".join(best_pair)
            if new_token not in vocab:
                vocab[new_token] = len(vocab)
            merges.append(best_pair)

            # Apply merge to all words
            a, b = best_pair
            for word in splits:
                syms = splits[word]
                new_syms: List[str] = []
                i = 0
                while i < len(syms):
                    if i < len(syms) - 1 and syms[i] == a and syms[i + 1] == b:
                        new_syms.append(new_token)
                        i += 2
                    else:
                        new_syms.append(syms[i])
                        i += 1
                splits[word] = new_syms

            if verbose and (merge_idx + 1) % 500 == 0:
                print(
                    f"[kolmgformers] BPE merge {merge_idx + 1}/{n_merges}  "
                    f"vocab_size={len(vocab)}  "
                    f"last_pair={best_pair}  freq={best_freq}"
                )

        if verbose:
            print(f"[kolmgformers] BPE training complete — vocab_size={len(vocab)}, "
                  f"merges={len(merges)}")

        # ── Build tokenizer from learned vocab ────────────────────────────────
        tok = cls(vocab=vocab, max_length=max_length)
        tok._mode   = "bpe"
        tok._merges = merges          # store for encode
        tok._splits = splits          # word → symbol list cache

        # Override encode with BPE-aware version
        tok._bpe_encode = tok._make_bpe_encoder(merges, vocab)
        return tok

    def _make_bpe_encoder(self, merges: list, vocab: Dict[str, int]):
        """Return a closure that BPE-encodes a single string."""
        merge_rank = {pair: i for i, pair in enumerate(merges)}
        unk_id     = vocab.get("[UNK]", 1)

        def _apply_bpe(word: str) -> List[int]:
            syms = list(word) + ["</w>"]
            while len(syms) > 1:
                # Find lowest-rank (earliest) merge applicable
                best_i, best_rank = -1, float("inf")
                for i, (a, b) in enumerate(zip(syms[:-1], syms[1:])):
                    r = merge_rank.get((a, b), float("inf"))
                    if r < best_rank:
                        best_rank, best_i = r, i
                if best_i < 0 or best_rank == float("inf"):
                    break
                merged = syms[best_i] + syms[best_i + 1]
                syms = syms[:best_i] + [merged] + syms[best_i + 2:]
            return [vocab.get(s, unk_id) for s in syms]

        def bpe_encode(text: str) -> List[int]:
            ids = []
            for word in text.strip().split():
                ids.extend(_apply_bpe(word))
            return ids

        return bpe_encode


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Internal helpers ─────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def _printable_chars() -> List[str]:
    """Return printable ASCII characters (space to ~) plus common symbols."""
    return [chr(i) for i in range(32, 127)]
