"""
brsx_mem_probe.py — Measures the real VRAM usage of ONE config IN A SEPARATE PROCESS.
Why a separate process? Once PyTorch takes VRAM it doesn't give it back to the OS (keeps it
in its own pool). Trying models back-to-back in the same process ACCUMULATES memory (looks like
1+4+8=13GB but only 8GB is real). In a separate process: when the process dies the OS reclaims
ALL memory → accumulation is IMPOSSIBLE. Each attempt starts on clean VRAM, its real value measured.
Usage (called from within calibration):
    python brsx_mem_probe.py <n_layer> <n_head> <n_embd> <ctx> <batch> <vocab>
Output (stdout, last line):
    OK <used_bytes> <n_params>     or     OOM
"""
import sys
def main():
    try:
        n_layer = int(sys.argv[1]); n_head = int(sys.argv[2])
        n_embd  = int(sys.argv[3]); ctx    = int(sys.argv[4])
        batch   = int(sys.argv[5]); vocab  = int(sys.argv[6])
    except Exception:
        print("OOM"); return
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    if not torch.cuda.is_available():
        print("OOM"); return
    device = "cuda"
    # ─── SAME architecture as the training model (probe) ───
    class Blk(nn.Module):
        def __init__(s, e, h, c):
            super().__init__()
            s.ln1 = nn.LayerNorm(e)
            s.att = nn.MultiheadAttention(e, h, batch_first=True)
            s.ln2 = nn.LayerNorm(e)
            s.mlp = nn.Sequential(nn.Linear(e, 4*e), nn.GELU(), nn.Linear(4*e, e))
            s.register_buffer("m", torch.triu(torch.ones(c, c)*float("-inf"), diagonal=1))
        def forward(s, x):
            T = x.size(1)
            h = s.ln1(x)
            a, _ = s.att(h, h, h, attn_mask=s.m[:T,:T], need_weights=False)
            x = x + a
            return x + s.mlp(s.ln2(x))
    class G(nn.Module):
        def __init__(s, nl, nh, ne, c, v):
            super().__init__()
            s.te = nn.Embedding(v, ne); s.pe = nn.Embedding(c, ne)
            s.bl = nn.ModuleList([Blk(ne, nh, c) for _ in range(nl)])
            s.lnf = nn.LayerNorm(ne); s.hd = nn.Linear(ne, v, bias=False)
        def forward(s, idx, tg=None):
            T = idx.size(1)
            pos = torch.arange(T, device=idx.device)
            x = s.te(idx) + s.pe(pos)[None]
            for b in s.bl: x = b(x)
            lo = s.hd(s.lnf(x))
            if tg is None: return lo
            return F.cross_entropy(lo.view(-1, lo.size(-1)), tg.view(-1))
    try:
        torch.cuda.empty_cache()
        model = G(n_layer, n_head, n_embd, ctx, vocab).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        scaler = torch.amp.GradScaler('cuda', enabled=True)
        x = torch.randint(0, vocab, (batch, ctx), device=device)
        y = torch.randint(0, vocab, (batch, ctx), device=device)
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            with torch.amp.autocast('cuda'):
                loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.step(opt); scaler.update()
        torch.cuda.synchronize()
        # SAME MEASUREMENT AS TRAINING: "how much VRAM is actually filled right now" (mem_get_info).
        # NOT peak — the training indicator reads this too, so the calibration %
        # matches the training % EXACTLY.
        free_b, total_b = torch.cuda.mem_get_info()
        used = total_b - free_b
        n_params = sum(p.numel() for p in model.parameters())
        print(f"OK {used} {n_params}")
    except RuntimeError as e:
        print("OOM")
if __name__ == "__main__":
    main()
