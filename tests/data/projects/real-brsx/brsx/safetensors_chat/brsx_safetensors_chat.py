"""
==============================================================
  brsx_safetensors_chat.py  —  chat with a .safetensors model
==============================================================
Loads a brsx TRANSFORMER model stored in the .safetensors format (produced by
the "Export to safetensors" tool) and lets you chat with it.

Why a separate tool: the normal chat.py loads model.pt (pickle). A .safetensors
file is a different format, so it needs its own loader. This reads:
    <folder>/model.safetensors   (weights, via safetensors)
    <folder>/config.json         (architecture: n_embd/n_layer/n_head/...)
    <folder>/tokenizer.json      (optional; byte-level if absent)

Only plain transformer models are supported (hybrid models keep their own
chat.py and don't need safetensors conversion).

Requires: torch, safetensors, tokenizers
Run:  python brsx_safetensors_chat.py
==============================================================
"""

import os
import sys
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from safetensors.torch import load_file
except ImportError:
    print("[ERROR] 'safetensors' required:  pip install safetensors")
    sys.exit(1)


# ─── config holder ───────────────────────────────────────────────────
class _Cfg:
    def __init__(self, d):
        self.n_embd = d["n_embd"]
        self.n_head = d["n_head"]
        self.n_layer = d["n_layer"]
        self.block_size = d["block_size"]
        self.vocab_size = d["vocab_size"]


# ─── model (same GPT as brsx_train) ──────────────────────────────────
class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd)
        self.attn = nn.MultiheadAttention(cfg.n_embd, cfg.n_head, batch_first=True)
        self.ln2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.n_embd, 4 * cfg.n_embd),
            nn.GELU(),
            nn.Linear(4 * cfg.n_embd, cfg.n_embd),
        )
        self.register_buffer("mask", torch.triu(
            torch.ones(cfg.block_size, cfg.block_size) * float('-inf'), diagonal=1))

    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:T, :T], need_weights=False)
        x = x + a
        x = x + self.mlp(self.ln2(x))
        return x


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, idx):
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)[None, :, :]
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))

    def param_count(self):
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=0.8, top_k=40):
        self.eval()
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.cfg.block_size:]
            logits = self(idx_cond)
            logits = logits[:, -1, :] / max(temperature, 1e-6)
            if top_k is not None:
                k = min(top_k, logits.size(-1))
                v, _ = torch.topk(logits, k)
                logits[logits < v[:, [-1]]] = float('-inf')
            probs = F.softmax(logits, dim=-1)
            nxt = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


# ─── tokenizer helpers (BPE json OR byte-level fallback) ─────────────
class _ByteTok:
    """Fallback when there's no tokenizer.json — plain UTF-8 byte level."""
    def encode(self, s):
        return list(s.encode("utf-8"))

    def decode(self, ids):
        return bytes([i % 256 for i in ids]).decode("utf-8", errors="ignore")


def _is_brsx_tokenizer(path):
    """A brsx BPETokenizer json has 'merges' + 'vocab_size' keys."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        return isinstance(d, dict) and "merges" in d and "vocab_size" in d
    except Exception:
        return False


def _load_tokenizer(folder):
    """Try, in order: brsx BPETokenizer format → HF tokenizers format →
    byte-level fallback. This way any brsx model loads with its real tokenizer,
    whichever kind it was trained with, instead of falling back and speaking
    gibberish."""
    tp = os.path.join(folder, "tokenizer.json")
    if os.path.exists(tp):
        # 1) our own brsx BPE tokenizer
        if _is_brsx_tokenizer(tp):
            try:
                from brsx_tokenizer import BPETokenizer
                tok = BPETokenizer()
                tok.load(tp)
                return ("brsx", tok)
            except ImportError:
                print("  [!] brsx_tokenizer.py not found next to this tool — "
                      "put it alongside to load brsx tokenizers")
            except Exception as e:
                print(f"  [!] couldn't read brsx tokenizer ({type(e).__name__})")
        # 2) HuggingFace tokenizers format
        else:
            try:
                from tokenizers import Tokenizer
                tok = Tokenizer.from_file(tp)
                return ("hf", tok)
            except ImportError:
                print("  [!] 'tokenizers' not installed — using byte-level")
            except Exception as e:
                print(f"  [!] couldn't read HF tokenizer ({type(e).__name__}) — byte-level")
    # 3) last resort
    return ("byte", _ByteTok())


# ─── main ────────────────────────────────────────────────────────────
def main():
    print("=" * 60)
    print("        brsx — chat with a .safetensors model")
    print("=" * 60)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    folder = input(" > Model folder (with model.safetensors + config.json): ").strip().strip('"')
    folder = os.path.abspath(os.path.expanduser(folder))

    st_path = os.path.join(folder, "model.safetensors")
    cfg_path = os.path.join(folder, "config.json")
    if not os.path.exists(st_path):
        print(f"[ERROR] no model.safetensors in {folder}")
        sys.exit(1)
    if not os.path.exists(cfg_path):
        print(f"[ERROR] no config.json in {folder}")
        sys.exit(1)

    with open(cfg_path, encoding="utf-8") as f:
        cfg_dict = json.load(f)

    # sanity: this tool is for plain transformer models, not hybrid
    if "blocks" in cfg_dict:
        print("[ERROR] this looks like a HYBRID model (config has 'blocks').")
        print("        Hybrid models use their own chat.py — no safetensors chat needed.")
        sys.exit(1)
    for k in ("n_embd", "n_head", "n_layer", "block_size", "vocab_size"):
        if k not in cfg_dict:
            print(f"[ERROR] config.json missing '{k}' — not a brsx transformer model.")
            sys.exit(1)

    cfg = _Cfg(cfg_dict)
    model = GPT(cfg).to(device)

    # load weights from safetensors
    state = load_file(st_path)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing:
        print(f"  [!] {len(missing)} missing keys (e.g. {missing[:3]}) — model may be partial")
    if unexpected:
        print(f"  [!] {len(unexpected)} unexpected keys (e.g. {unexpected[:3]})")
    model.eval()

    kind, tok = _load_tokenizer(folder)

    print("-" * 60)
    print(f"  Loaded: ~{model.param_count()/1e6:.1f}M params | {device} | tokenizer: {kind}")
    print("  Type a prompt. Empty line or 'exit' to quit.")
    print("-" * 60)

    while True:
        try:
            prompt = input("\n  You> ").strip()
        except (EOFError, KeyboardInterrupt):
            print("\n  Bye!"); break
        if not prompt or prompt.lower() in ("exit", "quit"):
            print("  Bye!"); break

        if kind == "hf":
            ids = tok.encode(prompt).ids or [0]
        else:                       # brsx BPE or byte-level: both have .encode -> list
            ids = tok.encode(prompt) or [0]
        x = torch.tensor([ids], dtype=torch.long, device=device)
        out = model.generate(x, max_new_tokens=200, temperature=0.8, top_k=40)
        gen = out[0].tolist()
        text = tok.decode(gen)      # all three expose .decode(list) -> str
        print(f"\n  brsx> {text}")


if __name__ == "__main__":
    main()
