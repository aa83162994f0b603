"""
brsx_chat_template.py — Standalone chat.py generator

When training finishes, writes a SELF-CONTAINED chat.py into the model folder.
This generated chat.py:
  - Carries the GPT model definition INSIDE it (NOT dependent on brsx_train)
  - Carries the BPE tokenizer decode/encode INSIDE it (NOT dependent on brsx_tokenizer)
  - Only needs torch
  - Reads config.json + model.pt + tokenizer.json from alongside itself

The user can move the brsx_model/ folder anywhere and run
`python chat.py` — no other file is needed.
"""

# Full content of the standalone chat.py to be generated (template)
CHAT_TEMPLATE = '''"""
chat.py — talk to your brsx-trained model (STANDALONE)

This file is self-contained. Only torch is required:
    pip install torch
Run:
    python chat.py
"""
import os, json, sys
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


# ─── Model definition (embedded) ─────────────────────────────────────
class _Cfg:
    pass


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln1 = nn.LayerNorm(c.n_embd)
        self.attn = nn.MultiheadAttention(c.n_embd, c.n_head, batch_first=True)
        self.ln2 = nn.LayerNorm(c.n_embd)
        self.mlp = nn.Sequential(nn.Linear(c.n_embd, 4*c.n_embd), nn.GELU(),
                                 nn.Linear(4*c.n_embd, c.n_embd))
        self.register_buffer("mask", torch.triu(
            torch.ones(c.block_size, c.block_size) * float("-inf"), diagonal=1))

    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:T, :T], need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cfg = c
        self.tok_emb = nn.Embedding(c.vocab_size, c.n_embd)
        self.pos_emb = nn.Embedding(c.block_size, c.n_embd)
        self.blocks = nn.ModuleList([Block(c) for _ in range(c.n_layer)])
        self.ln_f = nn.LayerNorm(c.n_embd)
        self.head = nn.Linear(c.n_embd, c.vocab_size, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)[None]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=0.8, top_k=40):
        self.eval()
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.cfg.block_size:]
            logits = self(idx_cond)[:, -1, :] / max(temperature, 1e-6)
            if top_k:
                k = min(top_k, logits.size(-1))
                v, _ = torch.topk(logits, k)
                logits[logits < v[:, [-1]]] = float("-inf")
            probs = F.softmax(logits, dim=-1)
            nxt = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


# ─── Tokenizer (embedded, minimal: encode/decode only) ───────────────
class _Tok:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        self.merges = {}
        self.vocab = {i: bytes([i]) for i in range(256)}
        for key, nid in sorted(data["merges"].items(), key=lambda kv: kv[1]):
            a, b = map(int, key.split(","))
            self.merges[(a, b)] = nid
            self.vocab[nid] = self.vocab[a] + self.vocab[b]
        self._cache = {}

    def _merge(self, ids, pair, nid):
        out, i = [], 0
        while i < len(ids):
            if i < len(ids)-1 and ids[i] == pair[0] and ids[i+1] == pair[1]:
                out.append(nid); i += 2
            else:
                out.append(ids[i]); i += 1
        return out

    def _enc_word(self, wb):
        if wb in self._cache:
            return self._cache[wb]
        ids = list(wb)
        while len(ids) >= 2:
            bp, br = None, None
            for a, b in zip(ids, ids[1:]):
                r = self.merges.get((a, b))
                if r is not None and (br is None or r < br):
                    br, bp = r, (a, b)
            if bp is None:
                break
            ids = self._merge(ids, bp, br)
        self._cache[wb] = ids
        return ids

    def encode(self, text):
        import re
        out = []
        for w in re.findall(r"\\S+\\s*", text):
            out.extend(self._enc_word(w.encode("utf-8")))
        return out

    def decode(self, ids):
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")


# ─── Load + chat ─────────────────────────────────────────────────────
def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with open(os.path.join(HERE, "config.json"), encoding="utf-8") as f:
        conf = json.load(f)

    c = _Cfg()
    c.n_layer = conf["n_layer"]; c.n_head = conf["n_head"]
    c.n_embd = conf["n_embd"]; c.block_size = conf["block_size"]
    c.vocab_size = conf["vocab_size"]

    model = GPT(c).to(device)
    model.load_state_dict(torch.load(os.path.join(HERE, "model.pt"), map_location=device))
    model.eval()

    tok = None
    if conf.get("has_tokenizer"):
        tok = _Tok(os.path.join(HERE, "tokenizer.json"))

    print("=" * 60)
    print("  brsx — chat (standalone)")
    print("=" * 60)
    n = sum(p.numel() for p in model.parameters())
    print(f"  Model ready | ~{n/1e6:.1f}M params | vocab={c.vocab_size} | {device}")
    print("  Exit: empty + Enter or 'exit'.")
    print("-" * 60)

    max_new, temp, topk = 200, 0.8, 40
    while True:
        try:
            p = input("\\n  You> ").strip()
        except (EOFError, KeyboardInterrupt):
            print("\\n  See you!"); break
        if not p or p.lower() in ("cikis", "exit", "quit"):
            print("  See you!"); break
        ids = tok.encode(p) if tok else list(p.encode("utf-8"))
        if not ids:
            ids = [10]
        x = torch.tensor([ids], dtype=torch.long, device=device)
        out = model.generate(x, max_new, temperature=temp, top_k=topk)
        text = tok.decode(out[0].tolist()) if tok else bytes(out[0].tolist()).decode("utf-8", errors="replace")
        print(f"\\n  brsx> {text}")


if __name__ == "__main__":
    main()
'''


def write_standalone_chat(save_dir: str):
    """Write a standalone chat.py into the model folder."""
    import os
    path = os.path.join(save_dir, "chat.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(CHAT_TEMPLATE)
    print(f"  Standalone chat.py created → {save_dir}/chat.py")
    print(f"  (usage: cd {save_dir} && python chat.py)")
