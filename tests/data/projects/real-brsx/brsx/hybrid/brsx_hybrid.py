"""
==============================================================
  brsx_hybrid.py  —  hybrid model assembled from a block list
==============================================================
Builds an autoregressive LM whose layers can be ANY mix of the four block
types (mamba / transformer / cnn / gru), chosen per-layer from a config list.

    config = {
        "n_embd": 256, "n_head": 4, "block_size": 256, "vocab_size": 3209,
        "blocks": ["mamba", "transformer", "cnn", "transformer", "gru", ...]
    }

The "blocks" list IS the architecture: its length = number of layers, and each
entry names that layer's type. This is what makes ablations trivial — drop
"mamba" from the list and re-train to measure its contribution.

Design idea (the paper's thesis): each block type has a different strength —
  mamba       → cheap long-range context (parallel-scan SSM)
  transformer → global attention mixing
  cnn         → local motifs / n-gram patterns
  gru         → sequential gated state
Mixing them lets a small model borrow each strength; ablations quantify which
strength actually helps on which task.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from brsx_blocks import make_block, RMSNorm


class BrsxHybrid(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        ne = config["n_embd"]
        nh = config.get("n_head", max(1, ne // 64))
        bs = config["block_size"]
        V = config["vocab_size"]
        blocks = config["blocks"]
        dropout = config.get("dropout", 0.0)
        if not blocks:
            raise ValueError("config['blocks'] is empty — need at least one layer.")

        self.block_size = bs
        self.blocks_spec = list(blocks)

        self.tok = nn.Embedding(V, ne)
        self.pos = nn.Embedding(bs, ne)
        self.drop = nn.Dropout(dropout)
        self.layers = nn.ModuleList(
            [make_block(kind, ne, nh, bs, dropout) for kind in blocks])
        self.ln_f = RMSNorm(ne)
        self.head = nn.Linear(ne, V, bias=False)
        # weight tying (embedding <-> head): saves params, common in small LMs
        self.head.weight = self.tok.weight

        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.drop(self.tok(idx) + self.pos(pos)[None])
        for layer in self.layers:
            x = layer(x)
        logits = self.head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)),
                                   targets.reshape(-1))
        return logits, loss

    def n_params(self):
        return sum(p.numel() for p in self.parameters())

    def layer_summary(self):
        """Human-readable per-layer type breakdown (for logs / paper tables)."""
        from collections import Counter
        c = Counter(self.blocks_spec)
        return ", ".join(f"{k}×{v}" for k, v in c.items())

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=0.8, top_k=40):
        self.eval()
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :]
            # guard against NaN/inf from a poorly-trained model (they'd make the
            # sampling distribution invalid and crash multinomial on CUDA)
            logits = torch.nan_to_num(logits, nan=0.0, posinf=1e4, neginf=-1e4)

            # top_k == 1  ->  greedy argmax (no sampling; multinomial with a single
            # kept logit can hit an all-zero prob row and crash). This is also the
            # correct "most likely token" behaviour used during evaluation.
            if top_k == 1:
                nxt = torch.argmax(logits, dim=-1, keepdim=True)
                idx = torch.cat([idx, nxt], dim=1)
                continue

            logits = logits / max(temperature, 1e-6)
            if top_k:
                k = min(top_k, logits.size(-1))
                v, _ = torch.topk(logits, k)
                logits[logits < v[:, [-1]]] = float("-inf")
            probs = F.softmax(logits, dim=-1)
            # final safety: if a row is all-zero/NaN, fall back to argmax
            if not torch.isfinite(probs).all() or (probs.sum(-1) == 0).any():
                nxt = torch.argmax(logits, dim=-1, keepdim=True)
            else:
                nxt = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


# ─── helpers to build a block list from simple specs ─────────────────
def blocks_from_pattern(pattern, n_layer):
    """
    Repeat a short pattern to fill n_layer.
      blocks_from_pattern(["mamba","transformer"], 6)
        → [mamba, transformer, mamba, transformer, mamba, transformer]
    Handy for quickly specifying interleaved hybrids.
    """
    if not pattern:
        raise ValueError("pattern is empty")
    return [pattern[i % len(pattern)] for i in range(n_layer)]


def blocks_from_counts(counts):
    """
    Build from a dict of counts, interleaved as evenly as possible.
      blocks_from_counts({"mamba":2, "transformer":2, "cnn":1, "gru":1})
    Order within a round: as given in the dict.
    Useful for ablations ("same counts, minus one type").
    """
    pools = {k: v for k, v in counts.items() if v > 0}
    out = []
    while pools:
        for k in list(pools.keys()):
            out.append(k)
            pools[k] -= 1
            if pools[k] == 0:
                del pools[k]
    return out
