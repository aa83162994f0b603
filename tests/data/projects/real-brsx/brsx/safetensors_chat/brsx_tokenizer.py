"""
brsx_tokenizer.py — Pure-Python BPE tokenizer that learns from data

Standalone: no external libraries (HF tokenizers etc). "You don't build a product on top of a product."

BPE logic:
  1) train: split text into bytes → find the most frequent BYTE PAIR → merge (new token)
            → find the most frequent pair again → merge ... until the target vocab is reached.
            Result: a 'merges' table (which pair merges in which order).
  2) encode: split new text into bytes → apply the learned merges in order → token ids
  3) decode: expand token ids back to bytes → text

Notes:
  - vocab = 256 (raw bytes) + number of learned merges
  - works by COUNTING frequency (doesn't drop repetition — as we discussed)
  - if the training text is very large, the caller (brsx_data) already samples and passes it
"""

import json


class BPETokenizer:
    def __init__(self):
        # merges: {(id_a, id_b): new_id}  — merges learned during training
        self.merges = {}
        # vocab: {id: bytes}  — the byte value of each token (for decode)
        self.vocab = {i: bytes([i]) for i in range(256)}
        self.trained = False
        self._cache = {}   # encode speed cache (word → token ids)

    # ─── Helper: count the frequency of consecutive pairs ────────────
    @staticmethod
    def _count_pairs(ids: list) -> dict:
        """Count how many times each consecutive (a,b) pair occurs. Frequency = the heart of BPE."""
        counts = {}
        for a, b in zip(ids, ids[1:]):
            counts[(a, b)] = counts.get((a, b), 0) + 1
        return counts

    # ─── Helper: merge a pair with a new id ──────────────────────────
    @staticmethod
    def _merge(ids: list, pair: tuple, new_id: int) -> list:
        """Replace every occurrence of 'pair' in ids with new_id."""
        out = []
        i = 0
        while i < len(ids):
            if i < len(ids) - 1 and ids[i] == pair[0] and ids[i+1] == pair[1]:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out

    # ─── Training (FAST: word-frequency based) ───────────────────────
    def train(self, text: str, vocab_size: int = 2000,
              sample_bytes: int = 16 * 1024 * 1024, verbose: bool = True):
        """
        Learn BPE from text. vocab_size = 256 + number of merges to learn.

        FAST: count pair frequencies once, and after each merge update ONLY
        the pairs of the affected words (instead of rescanning the whole list).
        Identical words are grouped by frequency (repetition processed once).
        """
        if vocab_size < 256:
            vocab_size = 256
        num_merges = vocab_size - 256

        if len(text) > sample_bytes:
            text = text[: sample_bytes]
            if verbose:
                print(f"  [TOKENIZER] large data → training from first ~{sample_bytes//(1024*1024)}MB "
                      f"sample")
        if verbose:
            print(f"  [TOKENIZER] training starting | target vocab {vocab_size}")

        import re
        from collections import defaultdict

        # 1) Group words: words[i] = id list, freqs[i] = how many times it occurred
        word_freq = {}
        for w in re.findall(r'\S+\s*', text):
            key = tuple(w.encode('utf-8'))
            word_freq[key] = word_freq.get(key, 0) + 1
        words = [list(k) for k in word_freq]
        freqs = list(word_freq.values())

        # 2) Initial pair count + which words each pair appears in (index)
        pair_counts = defaultdict(int)
        pair_words  = defaultdict(set)   # (a,b) → indices of words containing that pair
        for wi, (seq, fr) in enumerate(zip(words, freqs)):
            for a, b in zip(seq, seq[1:]):
                pair_counts[(a, b)] += fr
                pair_words[(a, b)].add(wi)

        merges = {}
        vocab = {i: bytes([i]) for i in range(256)}

        for k in range(num_merges):
            if not pair_counts:
                break
            best = max(pair_counts, key=pair_counts.get)
            if pair_counts[best] < 2:
                if verbose:
                    print(f"  [TOKENIZER] no meaningful pair left after {k} merges, stopped")
                break
            new_id = 256 + k

            # Update ONLY the words containing this pair (don't scan the whole list!)
            affected = list(pair_words[best])
            for wi in affected:
                seq, fr = words[wi], freqs[wi]
                # subtract old pairs from the count
                for a, b in zip(seq, seq[1:]):
                    pair_counts[(a, b)] -= fr
                    if pair_counts[(a, b)] <= 0:
                        pair_counts.pop((a, b), None)
                    pair_words[(a, b)].discard(wi)
                # apply merge
                new_seq = self._merge(seq, best, new_id)
                words[wi] = new_seq
                # add new pairs to the count
                for a, b in zip(new_seq, new_seq[1:]):
                    pair_counts[(a, b)] += fr
                    pair_words[(a, b)].add(wi)

            merges[best] = new_id
            vocab[new_id] = vocab[best[0]] + vocab[best[1]]
            if verbose and (k + 1) % 200 == 0:
                pct = (k + 1) * 100 // num_merges
                print(f"  [TOKENIZER] {k+1}/{num_merges} merges ({pct}%)")

        self.merges = merges
        self.vocab = vocab
        self.trained = True
        if verbose:
            print(f"  [TOKENIZER] done | vocab={len(vocab)}")

    # ─── Encode: text → token ids (FAST: word-based + cache) ─────────
    def _encode_word(self, word_bytes: bytes) -> list:
        """Encode a single word (short sequence). Cached."""
        if word_bytes in self._cache:
            return self._cache[word_bytes]
        ids = list(word_bytes)
        while len(ids) >= 2:
            # find the earliest applicable learned merge
            best_pair, best_rank = None, None
            for a, b in zip(ids, ids[1:]):
                r = self.merges.get((a, b))
                if r is not None and (best_rank is None or r < best_rank):
                    best_rank, best_pair = r, (a, b)
            if best_pair is None:
                break
            ids = self._merge(ids, best_pair, best_rank)
        self._cache[word_bytes] = ids
        return ids

    def encode(self, text: str) -> list:
        if not hasattr(self, "_cache"):
            self._cache = {}
        import re
        out = []
        # split into words (by whitespace) — each word is short, encode is fast + cached
        for w in re.findall(r'\S+\s*', text):
            out.extend(self._encode_word(w.encode("utf-8")))
        return out

    # ─── Decode: token ids → text ────────────────────────────────────
    def decode(self, ids: list) -> str:
        b = b"".join(self.vocab[i] for i in ids)
        return b.decode("utf-8", errors="replace")

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    # ─── Save / Load ─────────────────────────────────────────────────
    def save(self, path: str):
        # merge keys are tuples → convert to strings for JSON
        data = {
            "merges": {f"{a},{b}": nid for (a, b), nid in self.merges.items()},
            "vocab_size": self.vocab_size,
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)

    def load(self, path: str):
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
        self.merges = {}
        self.vocab = {i: bytes([i]) for i in range(256)}
        # load merges in new_id order so the vocab is built correctly
        items = sorted(data["merges"].items(), key=lambda kv: kv[1])
        for key, nid in items:
            a, b = map(int, key.split(","))
            self.merges[(a, b)] = nid
            self.vocab[nid] = self.vocab[a] + self.vocab[b]
        self.trained = True


if __name__ == "__main__":
    # Quick test
    text = ("training a model with brsx should be easy. you just provide the data. "
            "it picks and trains the best setting for your hardware. ") * 60

    tok = BPETokenizer()
    tok.train(text, vocab_size=400)

    sample = "training a model with brsx is easy"
    ids = tok.encode(sample)
    back = tok.decode(ids)

    print(f"\n  Original  : {sample!r}")
    print(f"  Byte count: {len(sample.encode('utf-8'))}")
    print(f"  Token count: {len(ids)}  (with BPE {len(sample.encode('utf-8'))} bytes → {len(ids)} tokens)")
    print(f"  Decoded   : {back!r}")
    print(f"  Correct?  : {'YES ✓' if back == sample else 'NO ✗'}")

    # save/load test
    tok.save("_tok.json")
    tok2 = BPETokenizer(); tok2.load("_tok.json")
    print(f"  Load test : {'YES ✓' if tok2.encode(sample) == ids else 'NO ✗'}")
    import os; os.remove("_tok.json")
