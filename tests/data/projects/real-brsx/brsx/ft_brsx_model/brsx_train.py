"""
brsx_train.py — v0.1 core training code (single file, runnable)

- ADJUSTABLE CONFIG block at the top (where you tweak by hand)
- Simple GPT-style model (byte-level, vocab=256)
- Prints RAM (and VRAM if available) usage once training starts
- Has a few embedded lines of data for testing
- In practice you turn this into a stream (read from a file instead of DATA)

Run:  python brsx_train.py
"""

import os
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F


# ══════════════════════════════════════════════════════════════════
#  ADJUSTABLE CONFIG  —  the only place you tweak by hand
# ══════════════════════════════════════════════════════════════════
class CFG:
    # Model size
    n_layer    = 4         # number of transformer blocks
    n_head     = 4         # number of attention heads
    n_embd     = 128       # embedding size — must divide evenly by n_head
    block_size = 64        # context length (how many bytes it looks back)
    vocab_size = 256       # byte-level → fixed 256

    # Training
    batch_size    = 16
    learning_rate = 3e-4
    max_steps     = 200    # short for testing; increase in practice
    log_every     = 10     # log every N steps

    # System
    device     = 'cuda' if torch.cuda.is_available() else 'cpu'
    precision  = 'fp16' if torch.cuda.is_available() else 'fp32'
    seed       = 1337


# ══════════════════════════════════════════════════════════════════
#  TEST DATA  —  in practice turn this into a stream (read from a file)
# ══════════════════════════════════════════════════════════════════
DATA = """training a model with brsx should be this easy.
you just provide the data, the system handles the rest.
it inspects your hardware, picks the best settings, and trains.
with min mid max my modes everyone uses it to fit their own needs.
if it OOMs it shrinks automatically, nothing gets stuck.
if there is no tokenizer it learns from your data, otherwise it uses yours.
this is a test text, in practice you stream your own data here.
""" * 50   # multiply a bit for testing


# ─── Memory measurement ──────────────────────────────────────────────
def _get_process_ram_mb() -> float:
    """RAM used by this process (MB). Exact if psutil is available, else estimated."""
    try:
        import psutil
        return psutil.Process(os.getpid()).memory_info().rss / (1024 ** 2)
    except Exception:
        # Linux /proc fallback if psutil is missing
        try:
            with open(f"/proc/{os.getpid()}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024  # kB → MB
        except Exception:
            return -1.0


def _get_vram_mb() -> tuple:
    """(used, total) VRAM in MB. (None, None) if no CUDA."""
    if not torch.cuda.is_available():
        return (None, None)
    used  = torch.cuda.memory_allocated() / (1024 ** 2)
    total = torch.cuda.get_device_properties(0).total_memory / (1024 ** 2)
    return (used, total)


def _get_system_ram_mb() -> tuple:
    """(total, free) system RAM in MB. Exact if psutil is available, else fallback."""
    try:
        import psutil
        vm = psutil.virtual_memory()
        return (vm.total / (1024 ** 2), vm.available / (1024 ** 2))
    except Exception:
        try:
            page = os.sysconf('SC_PAGE_SIZE')
            total = os.sysconf('SC_PHYS_PAGES') * page / (1024 ** 2)
            free  = os.sysconf('SC_AVPHYS_PAGES') * page / (1024 ** 2)
            return (total, free)
        except Exception:
            return (None, None)


def mem_report(tag: str = ""):
    ram = _get_process_ram_mb()
    vused, vtotal = _get_vram_mb()
    line = f"  [MEMORY{(' '+tag) if tag else ''}] RAM: {ram:.0f} MB"
    if vused is not None:
        line += f" | VRAM: {vused:.0f}/{vtotal:.0f} MB"
    print(line)


# ─── Model (simple GPT-style) ────────────────────────────────────────
class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1  = nn.LayerNorm(cfg.n_embd)
        self.attn = nn.MultiheadAttention(cfg.n_embd, cfg.n_head, batch_first=True)
        self.ln2  = nn.LayerNorm(cfg.n_embd)
        self.mlp  = nn.Sequential(
            nn.Linear(cfg.n_embd, 4 * cfg.n_embd),
            nn.GELU(),
            nn.Linear(4 * cfg.n_embd, cfg.n_embd),
        )
        self.register_buffer("mask", torch.triu(
            torch.ones(cfg.block_size, cfg.block_size) * float('-inf'), diagonal=1))

    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        attn_mask = self.mask[:T, :T]
        a, _ = self.attn(h, h, h, attn_mask=attn_mask, need_weights=False)
        x = x + a
        x = x + self.mlp(self.ln2(x))
        return x


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks  = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f    = nn.LayerNorm(cfg.n_embd)
        self.head    = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)[None, :, :]
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def param_count(self):
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=0.8, top_k=40):
        """
        Continue generating from the starting tokens (idx).
          temperature: low = consistent/boring, high = creative/scattered (0.8 balanced)
          top_k: at each step pick only from the k most likely tokens (reduces nonsense)
        """
        self.eval()
        for _ in range(max_new_tokens):
            # if context exceeds block_size, take the last block_size tokens
            idx_cond = idx[:, -self.cfg.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / max(temperature, 1e-6)  # logits of the last step
            if top_k is not None:
                k = min(top_k, logits.size(-1))
                v, _ = torch.topk(logits, k)
                logits[logits < v[:, [-1]]] = float('-inf')
            probs = F.softmax(logits, dim=-1)
            next_id = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, next_id], dim=1)
        return idx


# ─── Data preparation (use tokenizer if provided, else byte-level) ───
def make_batches(text: str, cfg, tokenizer=None):
    if tokenizer is not None:
        # encode with BPE/learned tokenizer → sequence of token ids
        encoded = tokenizer.encode(text)
        data = torch.tensor(encoded, dtype=torch.long)
    else:
        # byte-level (backward compatible)
        data = torch.tensor(list(text.encode('utf-8')), dtype=torch.long)

    if len(data) < cfg.block_size + 2:
        raise ValueError(f"Data too short ({len(data)} tokens). More data needed.")

    def get_batch():
        ix = torch.randint(0, len(data) - cfg.block_size - 1, (cfg.batch_size,))
        x = torch.stack([data[i:i + cfg.block_size] for i in ix])
        y = torch.stack([data[i + 1:i + cfg.block_size + 1] for i in ix])
        return x.to(cfg.device), y.to(cfg.device)
    return get_batch


# ─── Stream + shuffle buffer batch generator ─────────────────────────
def make_stream_batches(path, cfg, tokenizer=None, buffer_tokens=None):
    """
    Generate batches by STREAMING from a file — does not load all data into RAM.

    Logic (shuffle buffer):
      1. Read the file line by line, tokenize, append to a token buffer
      2. Once the buffer reaches buffer_tokens, draw RANDOM blocks from it (shuffled)
      3. When the buffer runs low, keep reading from the file (rewind if it ends)
    Only as many tokens as the buffer stay in RAM (not all the data).

    buffer_tokens: if None, chosen automatically by device:
      CPU → 30K (so model+optimizer+buffer don't overflow tight RAM)
      GPU → 200K (RAM is plentiful, larger buffer → better shuffling)
    """
    import brsx_data as _dat

    if buffer_tokens is None:
        buffer_tokens = 30_000 if cfg.device != "cuda" else 200_000

    block = cfg.block_size

    def token_stream():
        """Walk the file (repeatedly if needed) and yield tokens."""
        while True:  # rewind when the file ends (infinite stream — max_steps stops it)
            for line in _dat.stream_lines(path):
                if tokenizer is not None:
                    for t in tokenizer.encode(line):
                        yield t
                else:
                    for b in line.encode("utf-8"):
                        yield b

    gen = token_stream()
    buf = []
    # initial fill (so the user sees it "filling" while waiting)
    print(f"  Filling stream buffer (~{buffer_tokens//1000}K tokens)...")
    for _ in range(buffer_tokens):
        buf.append(next(gen))

    def get_batch():
        nonlocal buf
        while len(buf) < block + 1:
            buf.append(next(gen))
        xs, ys = [], []
        for _ in range(cfg.batch_size):
            i = torch.randint(0, len(buf) - block - 1, (1,)).item()
            xs.append(torch.tensor(buf[i:i+block], dtype=torch.long))
            ys.append(torch.tensor(buf[i+1:i+block+1], dtype=torch.long))
        # refill the buffer slowly: drop old, top up (keep the stream flowing → shuffling)
        refill = cfg.batch_size * block
        buf = buf[refill:]
        for _ in range(refill):
            buf.append(next(gen))
        x = torch.stack(xs).to(cfg.device)
        y = torch.stack(ys).to(cfg.device)
        return x, y

    return get_batch


# ─── Save / load model ───────────────────────────────────────────────
def save_model(model, cfg, tokenizer, save_dir="brsx_model"):
    """
    Save the trained model + config + tokenizer to a folder.
      save_dir/model.pt      → weights
      save_dir/config.json   → model size (to rebuild the same model when loading)
      save_dir/tokenizer.json→ tokenizer (if any)
    """
    import os, json
    os.makedirs(save_dir, exist_ok=True)

    torch.save(model.state_dict(), os.path.join(save_dir, "model.pt"))

    conf = {
        "n_layer": cfg.n_layer, "n_head": cfg.n_head, "n_embd": cfg.n_embd,
        "block_size": cfg.block_size, "vocab_size": cfg.vocab_size,
        "has_tokenizer": tokenizer is not None,
    }
    with open(os.path.join(save_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, indent=2)

    if tokenizer is not None:
        tokenizer.save(os.path.join(save_dir, "tokenizer.json"))

    print(f"  Model saved → {save_dir}/ (model.pt, config.json"
          f"{', tokenizer.json' if tokenizer else ''})")

    # Generate a standalone chat.py — user can move the folder and run it
    try:
        from brsx_chat_template import write_standalone_chat
        write_standalone_chat(save_dir)
    except Exception as e:
        print(f"  (could not generate chat.py: {e})")


def load_model(save_dir="brsx_model", device=None):
    """
    Load a saved model. Returns (model, cfg, tokenizer).
    Used for chat/inference.
    """
    import os, json
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'

    with open(os.path.join(save_dir, "config.json"), encoding="utf-8") as f:
        conf = json.load(f)

    cfg = CFG()
    cfg.n_layer = conf["n_layer"]; cfg.n_head = conf["n_head"]
    cfg.n_embd = conf["n_embd"]; cfg.block_size = conf["block_size"]
    cfg.vocab_size = conf["vocab_size"]; cfg.device = device

    model = GPT(cfg).to(device)
    model.load_state_dict(torch.load(os.path.join(save_dir, "model.pt"),
                                     map_location=device))
    model.eval()

    tokenizer = None
    if conf.get("has_tokenizer"):
        from brsx_tokenizer import BPETokenizer
        tokenizer = BPETokenizer()
        tokenizer.load(os.path.join(save_dir, "tokenizer.json"))

    return model, cfg, tokenizer


# ─── Training ─────────────────────────────────────────────────────────
def _apply_config_dict(d: dict):
    """Apply the config dict from calibration onto CFG (overrides provided keys)."""
    cfg = CFG()
    for k in ("n_layer", "n_head", "n_embd", "block_size",
              "batch_size", "learning_rate", "max_steps", "log_every"):
        if d and k in d and d[k] is not None:
            setattr(cfg, k, d[k])
    return cfg


def train(config: dict = None, data_text: str = None, tokenizer=None,
          data_path: str = None, save_dir: str = "brsx_model", save_every: int = 0):
    # if a config is given (full.py / calibration) apply it, else use CFG constants
    cfg = _apply_config_dict(config) if config else CFG()
    torch.manual_seed(cfg.seed)
    # if a tokenizer is given, vocab_size becomes its vocab, else 256 (byte-level)
    if tokenizer is not None:
        cfg.vocab_size = tokenizer.vocab_size

    stream_mode = data_path is not None

    if stream_mode:
        # STREAM mode: stream from file without loading all data into RAM.
        # block_size safety: with a small sample, check the tokenizer isn't
        # over-compressing (a few KB is enough, fast).
        import brsx_data as _dat
        probe_parts, _tot = [], 0
        for _ln in _dat.stream_lines(data_path):
            probe_parts.append(_ln); _tot += len(_ln)
            if _tot >= 64 * 1024:   # 64KB is enough to check
                break
        probe = "\n".join(probe_parts)
        if tokenizer is not None:
            _enc = tokenizer.encode(probe)
            if len(_enc) < 16:
                print(f"  ⚠️  Tokenizer over-compressed → falling back to byte-level")
                tokenizer = None
                cfg.vocab_size = 256
                _enc = list(probe.encode('utf-8'))
        else:
            _enc = list(probe.encode('utf-8'))
        if len(_enc) < cfg.block_size + 2:
            _new = max(8, len(_enc) - 2)
            print(f"  ⚠️  Sample short → block_size {cfg.block_size}→{_new}")
            cfg.block_size = _new
    else:
        # RAM mode (old, backward compatible): data_text or embedded DATA
        text = data_text if data_text else DATA
        if tokenizer is not None:
            _enc = tokenizer.encode(text)
            if len(_enc) < 16:
                print(f"  ⚠️  Tokenizer over-compressed the data ({len(_enc)} tokens) "
                      f"→ falling back to byte-level (data too repetitive/small)")
                tokenizer = None
                cfg.vocab_size = 256
                _enc = list(text.encode('utf-8'))
        else:
            _enc = list(text.encode('utf-8'))
        if len(_enc) < cfg.block_size + 2:
            _new = max(8, len(_enc) - 2)
            print(f"  ⚠️  Data short ({len(_enc)} tokens) → block_size {cfg.block_size}→{_new}")
            cfg.block_size = _new

    print("=" * 60)
    print(f"  brsx v0.1  |  device: {cfg.device}  |  precision: {cfg.precision}"
          f"{'  |  STREAM' if stream_mode else ''}")
    print("=" * 60)

    # System memory summary — your reference while tuning config
    stotal, sfree = _get_system_ram_mb()
    if stotal is not None:
        print(f"  System RAM : {stotal/1024:.2f} GB total | {sfree/1024:.2f} GB FREE")
    vused, vtotal = _get_vram_mb()
    if vtotal is not None:
        print(f"  GPU VRAM   : {vtotal/1024:.2f} GB total")
    mem_report("start")

    model = GPT(cfg).to(cfg.device)
    print(f"  Model parameters: {model.param_count()/1e6:.2f}M")
    mem_report("model loaded")

    opt = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    if stream_mode:
        get_batch = make_stream_batches(data_path, cfg, tokenizer)
    else:
        get_batch = make_batches(text, cfg, tokenizer)

    use_amp = (cfg.device == 'cuda' and cfg.precision == 'fp16')
    scaler  = torch.amp.GradScaler('cuda', enabled=use_amp)

    model.train()
    t0 = time.time()
    step = 1
    oom_count = 0
    while step <= cfg.max_steps:
        try:
            x, y = get_batch()
            opt.zero_grad(set_to_none=True)

            if use_amp:
                with torch.amp.autocast('cuda'):
                    _, loss = model(x, y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                _, loss = model(x, y)
                loss.backward()
                opt.step()

        except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
            msg = str(e).lower()
            if "out of memory" in msg or "cuda" in msg:
                # OOM → don't let the code STOP. Shrink batch, clear, continue.
                oom_count += 1
                if cfg.device == 'cuda':
                    torch.cuda.empty_cache()
                old_bs = cfg.batch_size
                cfg.batch_size = max(1, cfg.batch_size // 2)
                print(f"  ⚠️  OOM! batch_size shrunk {old_bs}→{cfg.batch_size}, continuing "
                      f"({oom_count} times total)")
                # rebuild the batch generator with the new batch_size
                if stream_mode:
                    get_batch = make_stream_batches(data_path, cfg, tokenizer)
                else:
                    get_batch = make_batches(text, cfg, tokenizer)
                if cfg.batch_size == 1 and oom_count > 5:
                    print("  ⚠️  OOM keeps recurring even at batch_size=1, stopping training.")
                    break
                continue
            else:
                raise   # not OOM → real error, re-raise

        if step % cfg.log_every == 0 or step == 1:
            dt = time.time() - t0
            ips = step / dt
            ram = _get_process_ram_mb()
            vused, vtotal = _get_vram_mb()
            mem = f"RAM {ram:.0f}MB"
            if vused is not None:
                mem += f" | VRAM {vused:.0f}/{vtotal:.0f}MB"
            print(f"  step {step:4d}/{cfg.max_steps} | loss {loss.item():.4f} "
                  f"| {ips:.1f} it/s | {mem}")

        # ── Intermediate checkpoint: save every save_every steps (less loss on crash) ──
        if save_every and save_dir and step % save_every == 0 and step < cfg.max_steps:
            print(f"  💾 saving checkpoint (step {step})...")
            save_model(model, cfg, tokenizer, save_dir)

        step += 1

    print("-" * 60)
    print(f"  Training finished. Total time: {time.time()-t0:.1f}s")
    mem_report("end")

    # ── Save model + tokenizer + config ──
    if save_dir:
        print("-" * 60)
        save_model(model, cfg, tokenizer, save_dir)

    return model, cfg, tokenizer


if __name__ == "__main__":
    train()
