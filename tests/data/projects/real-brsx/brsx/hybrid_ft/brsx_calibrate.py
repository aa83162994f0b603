"""
brsx_calibrate.py — Calibration module that identifies hardware by ACTUALLY TESTING it

Logic: don't look at the name/RAM, MEASURE it for real.
Each mode requests a TARGET SPEED (it/s). The system tries a model size,
trains a few steps to measure the real it/s, adjusts the size if it's far
from the target, and retries until it hits it (trial and error).

As the model grows, n_embd and n_layer grow TOGETHER (ratio preserved) —
otherwise the model becomes unbalanced (fat-shallow or long-thin). Good
models grow proportionally.

On an i9, "4 it/s" is hit with a large model; on an i7-4700MQ, with a small
one — in both cases the user gets training at the same speed that takes a
reasonable amount of time.
"""

import time
import torch
import torch.nn as nn
import torch.nn.functional as F


# ─── Memory reading + safety ─────────────────────────────────────────
def _free_mem_bytes(device: str) -> int:
    """Safely usable FREE memory on the device (bytes). CUDA→VRAM, CPU→RAM."""
    if device == "cuda":
        try:
            free, _ = torch.cuda.mem_get_info()
            return free
        except Exception:
            return 2 << 30  # 2GB conservative if unknown
    # CPU → system RAM
    try:
        import psutil
        return psutil.virtual_memory().available
    except Exception:
        try:
            import os
            page = os.sysconf('SC_PAGE_SIZE')
            return os.sysconf('SC_AVPHYS_PAGES') * page
        except Exception:
            return 2 << 30


def _estimate_model_bytes(cfg, batch_size=16, block_size=64, vocab=256, precision="fp32") -> int:
    """
    Estimate a config's ROUGH memory consumption (bytes).
    Used for a 'will it fit' check BEFORE trying. Overestimates (safe side).

    Components:
      - parameters (embedding + blocks + head)
      - optimizer (AdamW: ~2 extra states per param) + gradient → ~4x params total
      - activations (batch × block × embd × layer ~ rough)
    """
    n_embd, n_layer = cfg["n_embd"], cfg["n_layer"]
    n_head = cfg.get("n_head", max(1, n_embd // 64))
    # parameter count (rough): embeddings + each block (~12*embd^2) + head
    p_embed = (vocab + block_size) * n_embd
    p_block = n_layer * (12 * n_embd * n_embd)   # rough attn+mlp
    p_head  = n_embd * vocab
    n_params = p_embed + p_block + p_head

    bytes_per = 2 if precision in ("fp16", "bf16") else 4
    # param + grad + 2 optimizer states ≈ 4x
    param_mem = n_params * bytes_per * 4

    # rough activations: batch * block * embd * layer * a few intermediate tensors (linear part)
    act_mem = batch_size * block_size * n_embd * n_layer * bytes_per * 8

    # ATTENTION memory is QUADRATIC: score matrix batch*head*ctx*ctx per layer
    # at large ctx (2048/4096) this becomes the dominant term — can't be ignored
    attn_mem = batch_size * n_head * block_size * block_size * n_layer * bytes_per

    # overestimate for safety: add 30% buffer
    return int((param_mem + act_mem + attn_mem) * 1.3)


def _fits_in_memory(cfg, device, batch_size, block_size, precision) -> bool:
    """Does this config fit within the safe budget? (leaving a buffer)"""
    free = _free_mem_bytes(device)
    # proportional buffer: 15% of free or at least 512MB, whichever is larger
    margin = max(int(free * 0.15), 512 << 20)
    budget = max(free - margin, 0)
    need   = _estimate_model_bytes(cfg, batch_size, block_size, precision=precision)
    return need <= budget


# ─── Mode targets ────────────────────────────────────────────────────
# min → SPEED targeted (fast try-and-see), ctx fixed at 256
# On GPU mid/max → MEMORY ratio (fill VRAM, compute power is plentiful)
# On CPU mid/max → SPEED targeted (even if RAM fits, CPU is slow → reasonable speed matters)
MODE_TARGET_IPS = {
    "min": 4.0,
}
MODE_TARGET_IPS_CPU = {   # CPU mid/max speed targets (larger than min but not choking)
    "min": 4.0,
    "mid": 1.0,
    "max": 0.5,
}
MODE_MEM_RATIO = {
    "mid": 0.55,
    "max": 0.85,
}
MIN_CTX = 256

# Balanced ratio: n_embd / n_layer ≈ 64 (this held in your min and mid measurements too)
EMBD_PER_LAYER = 64

# Calibration settings
WARMUP_STEPS  = 3    # warmup before measuring (first steps are misleading, skipped)
MEASURE_STEPS = 6    # how many steps to measure and average the speed over
MAX_TRIES     = 6    # max number of tries to hit the target
TOLERANCE     = 0.25 # within ±25% of the target speed counts as "hit"


def _round_to_head(n_embd: int, n_head: int) -> int:
    """Round n_embd to the nearest value evenly divisible by n_head."""
    if n_embd < n_head:
        n_embd = n_head
    return (n_embd // n_head) * n_head


# Head size fixed at 64 → n_head = n_embd / 64 (head count grows as the model grows)
HEAD_DIM = 64


def _ctx_for_params(n_params: int) -> int:
    """
    Choose context (block_size) based on model size.
    Large model → long context (long ctx is wasted on a small model, short ctx
    constrains a large one).
    ctx has QUADRATIC cost in attention → the list is kept cautious.
    """
    m = n_params / 1e6
    if m < 50:    return 128
    if m < 200:   return 256
    if m < 400:   return 512
    if m < 700:   return 1024
    if m < 1500:  return 2048
    return 4096


def _make_config_from_scale(scale: float, base_layer=4, base_embd=256):
    """
    Produce a balanced config from a single 'scale' coefficient.
    n_embd and n_layer grow/shrink together → ratio preserved.
    n_head = n_embd / 64 (head size fixed at 64, standard practice).
    """
    n_layer = max(1, round(base_layer * scale))
    n_embd  = max(HEAD_DIM, round(base_embd * scale))
    # round n_embd to a multiple of HEAD_DIM (64) → head size is exactly 64
    n_embd  = max(HEAD_DIM, (n_embd // HEAD_DIM) * HEAD_DIM)
    n_head  = max(1, n_embd // HEAD_DIM)
    return {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd}


# ─── Tiny measurement model (same skeleton as the real model) ────────
class _ProbeBlock(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln1  = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln2  = nn.LayerNorm(n_embd)
        self.mlp  = nn.Sequential(nn.Linear(n_embd, 4*n_embd), nn.GELU(),
                                  nn.Linear(4*n_embd, n_embd))
        self.register_buffer("mask", torch.triu(
            torch.ones(block_size, block_size) * float('-inf'), diagonal=1))
    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:T,:T], need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class _ProbeModel(nn.Module):
    def __init__(self, cfg, vocab=256, block_size=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, cfg["n_embd"])
        self.pos = nn.Embedding(block_size, cfg["n_embd"])
        self.blocks = nn.ModuleList([_ProbeBlock(cfg["n_embd"], cfg["n_head"], block_size)
                                     for _ in range(cfg["n_layer"])])
        self.lnf  = nn.LayerNorm(cfg["n_embd"])
        self.head = nn.Linear(cfg["n_embd"], vocab, bias=False)
    def forward(self, idx, targets):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.tok(idx) + self.pos(pos)[None]
        for b in self.blocks: x = b(x)
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    def n_params(self):
        return sum(p.numel() for p in self.parameters())


def _quick_params(cfg, vocab=256, block_size=128) -> int:
    """Compute the config's parameter count with a FORMULA (no model built → CPU-safe)."""
    ne, nl = cfg["n_embd"], cfg["n_layer"]
    # embedding + pos + each block (attn ~4*ne^2 + mlp ~8*ne^2 = 12*ne^2) + head
    p = (vocab + block_size) * ne + nl * (12 * ne * ne) + ne * vocab
    return int(p)


def _measure_mem(cfg, device, batch_size, ctx, vocab=256) -> tuple:
    """
    Measure the config's memory usage.
      GPU: ACTUALLY place it + measure (torch.cuda, OOM caught cleanly → safe)
      CPU: use an ESTIMATE (a real attempt risks a "Killed" on CPU → dangerous)
    Returns (None, n_params) on OOM / doesn't fit.
    """
    n_params = _quick_params(cfg, vocab=vocab, block_size=128)

    # CPU: don't run a real attempt (Killed risk) → safe estimate
    if device != "cuda":
        precision = "fp32"
        est = _estimate_model_bytes(cfg, batch_size, ctx, vocab=vocab, precision=precision)
        free = _free_mem_bytes(device)
        if est > free * 0.9:   # if it exceeds 90%, count as not fitting
            return None, n_params
        return est, n_params

    # GPU: measure IN A SEPARATE PROCESS → accumulation IMPOSSIBLE.
    # In the same process, model attempts accumulate in VRAM (PyTorch doesn't return it to the OS).
    # When the separate process dies, the OS reclaims all memory → each attempt starts on clean VRAM.
    import subprocess, os, sys
    probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "brsx_mem_probe.py")
    try:
        out = subprocess.run(
            [sys.executable, probe,
             str(cfg["n_layer"]), str(cfg["n_head"]), str(cfg["n_embd"]),
             str(ctx), str(batch_size), str(vocab)],
            capture_output=True, text=True, timeout=120)
        line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "OOM"
        if line.startswith("OK"):
            _, used_s, np_s = line.split()
            return int(used_s), int(np_s)
        else:
            return None, n_params   # OOM or error → didn't fit
    except Exception:
        return None, n_params


def calibrate_by_memory(mode: str, device: str, batch_size=16, verbose=True) -> dict:
    """
    MEMORY-ratio targeted (mid/max). SIMPLE: budget / 22 bytes = model size.
      budget = (VRAM if GPU, free RAM if CPU) × ratio
      16 bytes/param = from real measurement (202M model = 3.18GB fp16 → ~16B/param).
      Activations, attention, context are all inside this 16. NO other math.
    """
    ratio = MODE_MEM_RATIO[mode]
    if device == "cuda":
        _, total = torch.cuda.mem_get_info()      # total VRAM
        budget = total * ratio                     # GPU: 85%
        per_param = 22                             # fp16 + optimizer (from real measurement)
    else:
        total = _free_mem_bytes(device)           # CPU: free RAM
        # CPU RAM is SHARED with OS+Python+optimizer+buffer → much more cautious
        budget = total * 0.65                      # CPU: 65% (not GPU's 85%)
        per_param = 40                             # CPU fp32 + optimizer (~2x GPU's)

    target_params = budget / per_param

    if verbose:
        print(f"  [CALIBRATION] mode={mode} | budget ~{budget/(1024**3):.2f}GB "
              f"/ {per_param} bytes = ~{target_params/1e6:.0f}M | device={device}")

    # find the balanced config closest to that param count (by formula, no model built)
    scale = _scale_for_params(target_params)
    cfg = _make_config_from_scale(scale)
    ctx = _ctx_for_params(_quick_params(cfg))
    n_params = _quick_params(cfg)

    if verbose:
        print(f"    formula ~{n_params/1e6:.0f}M | embd={cfg['n_embd']} layer={cfg['n_layer']} "
              f"head={cfg['n_head']} ctx={ctx}")

    # ── GPU VERIFICATION: lower the batch → if still OOM at batch 4, shrink model by 5% ──
    # (skip on CPU: a real attempt risks Killed, the formula is enough)
    used_batch = batch_size
    if device == "cuda":
        while True:
            b = batch_size
            fits = False
            # try lowering the batch down to 4
            while b >= 4:
                if _fits_train(cfg, ctx, b, device):
                    fits = True
                    used_batch = b
                    break
                if verbose:
                    print(f"    batch {b} didn't fit → trying {b//2}")
                b //= 2
            if fits:
                break
            # didn't fit even at batch 4 → shrink model by 5%, try again
            scale *= 0.95
            cfg = _make_config_from_scale(scale)
            ctx = _ctx_for_params(_quick_params(cfg))
            n_params = _quick_params(cfg)
            if verbose:
                print(f"    OOM even at batch 4 → model shrunk by 5% → ~{n_params/1e6:.0f}M")
            if n_params < 5e6:   # safety: stop if it shrank too far
                break

    if verbose:
        print(f"    ✓ ~{n_params/1e6:.0f}M | ctx={ctx} | starting batch={used_batch}")

    return {**cfg, "block_size": ctx, "n_params": n_params,
            "mem_frac": (n_params * per_param) / total, "target_ratio": ratio,
            "start_batch": used_batch}


def _fits_train(cfg, ctx, batch, device, vocab=3209):
    """Can this config+batch REALLY be trained? Build-try-delete (catch OOM)."""
    import gc
    try:
        gc.collect(); torch.cuda.empty_cache()
        model = _ProbeModel(cfg, vocab=vocab, block_size=ctx).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        scaler = torch.amp.GradScaler('cuda', enabled=True)
        x = torch.randint(0, vocab, (batch, ctx), device=device)
        y = torch.randint(0, vocab, (batch, ctx), device=device)
        for _ in range(2):
            opt.zero_grad(set_to_none=True)
            with torch.amp.autocast('cuda'):
                loss = model(x, y)
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        torch.cuda.synchronize()
        del model, opt, x, y, loss, scaler
        gc.collect(); torch.cuda.empty_cache()
        return True
    except (RuntimeError, torch.cuda.OutOfMemoryError):
        gc.collect(); torch.cuda.empty_cache()
        return False


def _scale_for_params(target_params: float) -> float:
    """Find the scale that roughly matches the target param count by formula (no model built)."""
    lo, hi = 0.1, 40.0
    for _ in range(30):
        mid = (lo + hi) / 2
        p = _quick_params(_make_config_from_scale(mid))
        if p < target_params: lo = mid
        else: hi = mid
    return (lo + hi) / 2


def _measure_ips(cfg, device, batch_size=16, vocab=256, ctx=None) -> tuple:
    """
    Train the config for a few steps with the given ctx and measure it/s.
    Catches OOM: returns (None, n_params, ctx) if it doesn't fit.
    Returns: (ips_or_None, n_params, ctx)
    """
    n_params = _quick_params(cfg, vocab=vocab, block_size=128)
    if ctx is None:
        ctx = MIN_CTX

    try:
        model = _ProbeModel(cfg, vocab=vocab, block_size=ctx).to(device)
        opt   = torch.optim.AdamW(model.parameters(), lr=3e-4)
        x = torch.randint(0, vocab, (batch_size, ctx), device=device)
        y = torch.randint(0, vocab, (batch_size, ctx), device=device)

        for _ in range(WARMUP_STEPS):
            opt.zero_grad(set_to_none=True)
            loss = model(x, y); loss.backward(); opt.step()
        if device == "cuda":
            torch.cuda.synchronize()

        t0 = time.time()
        for _ in range(MEASURE_STEPS):
            opt.zero_grad(set_to_none=True)
            loss = model(x, y); loss.backward(); opt.step()
        if device == "cuda":
            torch.cuda.synchronize()
        dt = time.time() - t0

        n_params = model.n_params()
        del model, opt, x, y
        if device == "cuda":
            torch.cuda.empty_cache()
        ips = MEASURE_STEPS / dt if dt > 0 else 0.0
        return ips, n_params, ctx

    except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
        # OOM (GPU) or memory error → this config didn't fit
        if device == "cuda":
            torch.cuda.empty_cache()
        return None, n_params, ctx


def calibrate(mode: str, device: str = None, batch_size=16, block_size=64, verbose=True) -> dict:
    """
    Main function. Finds the config that hits the mode's target SPEED (it/s) by testing.
      min → 4.0 it/s (fast), ctx fixed at 256
      mid → 0.7 it/s, ctx based on size
      max → 0.2 it/s (largest), ctx based on size
    """
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'

    # On GPU mid/max → memory ratio (fill VRAM). UNCHANGED.
    # On CPU mid/max → speed targeted (even if RAM fits, CPU is slow, speed matters).
    if mode in MODE_MEM_RATIO and device == "cuda":
        return calibrate_by_memory(mode, device, batch_size, verbose)

    # from here down is SPEED targeted: min (every device) + mid/max on CPU
    if device == "cuda":
        target = MODE_TARGET_IPS[mode]           # only min falls here (GPU)
    else:
        target = MODE_TARGET_IPS_CPU[mode]       # CPU: min/mid/max speed targets
    scale  = 1.0
    lo, hi = 0.0, None

    if verbose:
        cx = MIN_CTX if mode == "min" else "based on size"
        print(f"  [CALIBRATION] mode={mode} | target={target} it/s | ctx={cx} | device={device}")

    best = None
    for t in range(1, MAX_TRIES + 1):
        cfg = _make_config_from_scale(scale)
        # min fixed ctx, others based on size
        if mode == "min":
            ctx = MIN_CTX
        else:
            ctx = _ctx_for_params(_quick_params(cfg))

        # ── MEMORY SAFETY BRAKE (ctx-aware) ──
        # Before trying this size+ctx, check if it fits (guards against "Killed" on CPU).
        precision = 'fp16' if device == 'cuda' else 'fp32'
        if not _fits_in_memory(cfg, device, batch_size, ctx, precision):
            if verbose:
                est = _estimate_model_bytes(cfg, batch_size, ctx, precision=precision)
                print(f"    try {t}: embd={cfg['n_embd']} layer={cfg['n_layer']} "
                      f"ctx={ctx} ~{est/(1024**3):.2f}GB — WON'T FIT IN MEMORY, shrinking")
            hi = scale
            scale = (lo + scale) / 2 if lo > 0 else scale / 2
            if best is not None:
                continue
            elif scale < 0.25:
                safe = _make_config_from_scale(0.5)
                sctx = MIN_CTX
                if verbose:
                    print(f"    ⚠️  device very constrained, dropping to minimal config")
                return {**safe, "block_size": sctx, "n_params": 0, "measured_ips": 0.0,
                        "target_ips": target, "tries": t, "memory_limited": True}
            continue

        # ── TRY-MEASURE-CATCH: measure speed with this mode's ctx, shrink on OOM ──
        ips, n_params, ctx = _measure_ips(cfg, device, batch_size, ctx=ctx)
        if ips is None:
            # OOM (estimate said it fits but it really didn't) → shrink
            if verbose:
                print(f"    try {t}: ~{n_params/1e6:.1f}M ctx={ctx} → OOM, shrinking")
            hi = scale
            scale = (lo + scale) / 2 if lo > 0 else scale / 2
            if best is not None:
                continue
            elif scale < 0.25:
                safe = _make_config_from_scale(0.5)
                sctx = MIN_CTX
                return {**safe, "block_size": sctx, "n_params": 0, "measured_ips": 0.0,
                        "target_ips": target, "tries": t, "memory_limited": True}
            continue

        if verbose:
            print(f"    try {t}: ~{n_params/1e6:.1f}M | {ips:.2f} it/s "
                  f"(target {target}) | embd={cfg['n_embd']} layer={cfg['n_layer']} "
                  f"head={cfg['n_head']} ctx={ctx}")

        best = {**cfg, "block_size": ctx, "n_params": n_params, "measured_ips": ips,
                "target_ips": target, "tries": t}

        # Close enough to the target?
        if abs(ips - target) <= target * TOLERANCE:
            if verbose: print(f"    ✓ target hit ({ips:.2f} it/s)")
            break

        # Adjust: if speed is ABOVE target the model is small → grow; if BELOW, shrink
        if ips > target:
            lo = scale
            scale = scale * 2 if hi is None else (scale + hi) / 2
        else:
            hi = scale
            scale = (lo + scale) / 2 if lo > 0 else scale / 2

    return best


def _params_for_config(cfg, vocab=256, block_size=64) -> int:
    """Compute a config's real parameter count (exactly matching ProbeModel)."""
    n_embd, n_layer = cfg["n_embd"], cfg["n_layer"]
    m = _ProbeModel(cfg, vocab=vocab, block_size=block_size)
    n = m.n_params()
    del m
    return n


def calibrate_to_params(target_params: int, device: str = None,
                        batch_size=16, block_size=64, verbose=True) -> dict:
    """
    'my' mode: find the config closest to the user's requested parameter count.
    BUT it can't exceed the max limit (memory-safe ceiling) — if it does, it's pulled to max.

    target_params: the parameter count the user wants (e.g. 40_000_000)
    """
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'

    # 1) First find this hardware's MAX (memory-safe ceiling)
    if verbose:
        print(f"  [MY] requested ~{target_params/1e6:.0f}M | computing max ceiling first...")
    max_cfg = calibrate("max", device, batch_size, block_size, verbose=False)
    max_params = max_cfg["n_params"]

    # 2) Does the request exceed max? If so, pull it to max (safety belt)
    if target_params > max_params:
        if verbose:
            print(f"  [MY] requested ~{target_params/1e6:.0f}M > max ~{max_params/1e6:.0f}M "
                  f"→ pulling to max (ceiling can't be exceeded)")
        return {**max_cfg, "mode": "my", "requested_params": target_params,
                "capped_to_max": True}

    # 3) Request is within max → find the balanced config closest to that param count
    lo, hi = 0.1, None
    scale = 1.0
    best = None
    for t in range(1, MAX_TRIES + 1):
        cfg = _make_config_from_scale(scale)
        p = _quick_params(cfg)
        ctx = _ctx_for_params(p)
        # safety: make sure it still fits in memory (ctx-aware)
        precision = 'fp16' if device == 'cuda' else 'fp32'
        if not _fits_in_memory(cfg, device, batch_size, ctx, precision):
            hi = scale
            scale = (lo + scale) / 2
            continue
        best = {**cfg, "block_size": ctx, "n_params": p, "mode": "my",
                "requested_params": target_params, "capped_to_max": False, "tries": t}
        if verbose:
            print(f"    try {t}: ~{p/1e6:.1f}M (target ~{target_params/1e6:.0f}M) "
                  f"| embd={cfg['n_embd']} layer={cfg['n_layer']} head={cfg['n_head']} ctx={ctx}")
        if abs(p - target_params) <= target_params * 0.15:
            if verbose: print(f"    ✓ reached target parameters (~{p/1e6:.1f}M)")
            break
        if p < target_params:
            lo = scale
            scale = scale * 1.5 if hi is None else (scale + hi) / 2
        else:
            hi = scale
            scale = (lo + scale) / 2
    return best


if __name__ == "__main__":
    dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    print(f"=== brsx calibration test | {dev} ===\n")
    for m in ("min", "mid", "max"):
        r = calibrate(m, dev)
        print(f"  >>> {m}: {r['n_params']/1e6:.1f}M params, "
              f"{r['measured_ips']:.2f} it/s, in {r['tries']} tries\n")
