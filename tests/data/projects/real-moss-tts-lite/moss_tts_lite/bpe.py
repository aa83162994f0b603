"""Pure-Python Qwen byte-level BPE (stdlib only)."""

import json
import unicodedata

def _is_space(ch):
    r"""Unicode White_Space (what Rust regex `\s` matches, stdlib has no equivalent)."""
    o = ord(ch)
    return (0x09 <= o <= 0x0D or o in (0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029,
                                       0x202F, 0x205F, 0x3000)
            or 0x2000 <= o <= 0x200A)

def _is_letter(ch):
    return unicodedata.category(ch)[0] == "L"

def _is_number(ch):
    return unicodedata.category(ch)[0] == "N"

def _is_other(ch):
    r"""[^[\r\n]\p{L}\p{N}]"""
    return (ch not in "\r\n" and not _is_letter(ch) and not _is_number(ch) and not _is_space(ch))

def _bytes_to_unicode():
    """GPT-2 byte<->unicode table (identical to HF ByteLevel)."""
    bs = (list(range(33, 127)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100)))
    cs, n = bs[:], 0
    for b in range(256):                                    # bytes outside the printable ranges get 256+i
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))

class QwenBPE:
    """Byte-level BPE with Qwen pre-tokenization + added-token handling."""

    _CONTRACTIONS = ("s", "t", "re", "ve", "m", "ll", "d")

    def __init__(self, vocab_json, merges_txt, added_tokens_json=None):
        with open(vocab_json, encoding="utf-8") as f:
            self._vocab = json.load(f)
        self._byte_encoder = _bytes_to_unicode()
        self._byte_decoder = {c: b for b, c in self._byte_encoder.items()}
        self._ranks = {}
        with open(merges_txt, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                a, _, b = line.partition(" ")
                if b:
                    self._ranks[(a, b)] = len(self._ranks)
        self._id_to_added, self._added_by_first, self._added_id = {}, {}, {}
        if added_tokens_json is not None:
            with open(added_tokens_json, encoding="utf-8") as f:
                data = json.load(f)
            added = ({t["content"]: t["id"] for t in data["added_tokens"]}
                     if isinstance(data, dict) and "added_tokens" in data else data)
            for tok, tid in added.items():
                self._id_to_added[tid] = tok
                self._added_id[tok] = tid
                self._added_by_first.setdefault(tok[0], []).append(tok)
            for toks in self._added_by_first.values():
                toks.sort(key=len, reverse=True)
        self._id_to_token = {i: t for t, i in self._vocab.items()}
        self._cache = {}

    def _split_added(self, text):
        segs, i, n, start = [], 0, len(text), 0
        while i < n:
            tok = next((t for t in self._added_by_first.get(text[i], ())
                        if text.startswith(t, i)), None)
            if tok is None:
                i += 1
                continue
            if i > start:
                segs.append((False, text[start:i]))
            segs.append((True, tok))
            i = start = i + len(tok)
        if start < n:
            segs.append((False, text[start:]))
        return segs

    def _pretokenize(self, text):
        pieces, i, n = [], 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "'":
                e = next((i + 1 + len(s) for s in self._CONTRACTIONS
                          if text[i + 1:i + 1 + len(s)].lower() == s), None)
                if e is not None:
                    pieces.append(text[i:e])
                    i = e
                    continue
            is_l, is_n, is_s = _is_letter(ch), _is_number(ch), _is_space(ch)
            end = None
            if ch not in "\r\n" and not is_l and not is_n:
                j = i + 1
                while j < n and _is_letter(text[j]):
                    j += 1
                end = j if j > i + 1 else None
            if end is None and is_l:
                j = i + 1
                while j < n and _is_letter(text[j]):
                    j += 1
                end = j
            if end is not None:
                pieces.append(text[i:end])
                i = end
                continue
            if is_n:
                pieces.append(ch)
                i += 1
                continue
            if _is_other(ch) or (ch == " " and i + 1 < n and _is_other(text[i + 1])):
                j = i + 1
                while j < n and _is_other(text[j]):
                    j += 1
                while j < n and text[j] in "\r\n":
                    j += 1
                pieces.append(text[i:j])
                i = j
                continue
            if is_s:
                j = i
                while j < n and _is_space(text[j]):
                    j += 1
                k = max(text.rfind("\r", i, j), text.rfind("\n", i, j))
                if k >= 0:
                    pieces.append(text[i:k + 1])
                    i = k + 1
                    continue
                cut = j if (j == n or j - i < 2) else j - 1
                pieces.append(text[i:cut])
                i = cut
                continue
            pieces.append(ch)
            i += 1
        return pieces

    def _encode_piece(self, piece):
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        symbols = list("".join(self._byte_encoder[b] for b in piece.encode("utf-8")))
        while len(symbols) > 1:
            best = min(((self._ranks[(a, b)], a, b) for a, b in zip(symbols, symbols[1:])
                        if (a, b) in self._ranks), default=None)
            if best is None:
                break
            a, b = best[1], best[2]
            merged, k = [], 0
            while k < len(symbols):
                if symbols[k] == a and k + 1 < len(symbols) and symbols[k + 1] == b:
                    merged.append(a + b)
                    k += 2
                else:
                    merged.append(symbols[k])
                    k += 1
            symbols = merged
        try:
            ids = [self._vocab[s] for s in symbols]
        except KeyError as e:
            raise KeyError(f"piece {piece!r} produced symbol {e} not in vocab") from e
        self._cache[piece] = ids
        return ids

    def encode(self, text):
        ids = []
        for is_added, seg in self._split_added(text):
            if is_added:
                ids.append(self._added_id[seg])
                continue
            seg = unicodedata.normalize("NFC", seg)
            for piece in self._pretokenize(seg):
                ids.extend(self._encode_piece(piece))
        return ids

    def decode(self, ids):
        out, buf = [], bytearray()
        for i in ids:
            tok = self._id_to_added.get(int(i))
            if tok is not None:
                if buf:
                    out.append(buf.decode("utf-8", errors="replace"))
                    buf.clear()
                out.append(tok)
                continue
            tok = self._id_to_token.get(int(i))
            if tok is None:
                raise ValueError(f"unknown token id {i}")
            for ch in tok:
                b = self._byte_decoder.get(ch)
                buf.extend(ch.encode("utf-8")) if b is None else buf.append(b)
        if buf:
            out.append(buf.decode("utf-8", errors="replace"))
        return "".join(out)
