"""
brsx_train.py — v0.1 core training code (single file, runnable)

- ADJUSTABLE CONFIG block at the top (where you tweak by hand)
- Simple GPT-style model (byte-level, vocab=256)
- Prints RAM (and VRAM if any) usage once training starts
- Has a few lines of embedded data for testing
- In practice you turn this into a stream (read from a file instead of DATA)

Run:  python brsx_train.py
"""

import os
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

import modelsound


# ══════════════════════════════════════════════════════════════════
#  ADJUSTABLE CONFIG  —  the only place you tweak by hand
# ══════════════════════════════════════════════════════════════════
class CFG:
    # Model size
    n_layer    = 4         # number of transformer blocks
    n_head     = 4         # number of attention heads
    n_embd     = 128       # embedding size — must be evenly divisible by n_head
    block_size = 64        # context length (how many bytes it looks back)
    vocab_size = 256       # byte-level → fixed at 256

    # Training
    batch_size    = 16
    learning_rate = 3e-4
    max_steps     = 200    # short for testing; increase for real runs
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
it looks at your hardware, picks the best setting, and trains.
with min mid max my modes everyone uses it to fit their own needs.
if OOM happens it shrinks automatically, nothing gets forced.
if there's no tokenizer it learns from your data, otherwise it uses yours.
this is a test text; in practice you stream your own data here.
""" * 50   # multiply a bit for testing


# ─── Memory measurement ──────────────────────────────────────────────
def _get_process_ram_mb() -> float:
    """RAM this process uses (MB). Exact if psutil is available, otherwise estimated."""
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
    """(total, free) system RAM in MB. Exact if psutil is available, otherwise fallback."""
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
          temperature: low=consistent/boring, high=creative/scattered (0.8 balanced)
          top_k: at each step pick only from the k most likely tokens (reduces gibberish)
        """
        self.eval()
        for _ in range(max_new_tokens):
            # if context exceeds block_size, take the last block_size tokens
            idx_cond = idx[:, -self.cfg.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / max(temperature, 1e-6)  # logit of the last step
            if top_k is not None:
                k = min(top_k, logits.size(-1))
                v, _ = torch.topk(logits, k)
                logits[logits < v[:, [-1]]] = float('-inf')
            probs = F.softmax(logits, dim=-1)
            next_id = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, next_id], dim=1)
        return idx


# ─── Data preparation (with the tokenizer if any, else byte-level) ───
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


# ─── Stream + shuffle-buffer batch generator ─────────────────────────
def make_stream_batches(path, cfg, tokenizer=None, buffer_tokens=None, skip_tokens=0):
    """
    Generate batches by STREAMING from the file — doesn't load all data into RAM.

    DETERMINISTIC + SEQUENTIAL (no shuffle): tokens are consumed in file order,
    so training is reproducible and RESUMABLE. Shuffling is the data-prep step's
    job (brsx_dataprep), not the trainer's — that keeps "where did we leave off"
    answerable.

    Logic:
      1. Read the file token by token in order (rewind at end for more epochs).
      2. Keep a small rolling buffer; cut consecutive (x, y) blocks from it.
      3. skip_tokens: for RESUME — throw away this many tokens first so training
         continues from where the checkpoint left off (last_step*batch*block),
         instead of re-seeing the same data from the top.

    buffer_tokens: if None, automatic based on device (CPU 30K / GPU 200K).
    """
    import brsx_data as _dat

    if buffer_tokens is None:
        buffer_tokens = 30_000 if cfg.device != "cuda" else 200_000

    block = cfg.block_size

    def token_stream():
        """Walk the file (repeatedly if needed) and yield tokens IN ORDER."""
        while True:  # rewind when the file ends (infinite stream — max_steps stops it)
            for line in _dat.stream_lines(path):
                if tokenizer is not None:
                    for t in tokenizer.encode(line):
                        yield t
                else:
                    for b in line.encode("utf-8"):
                        yield b

    gen = token_stream()

    # RESUME: fast-forward past tokens already consumed by the earlier run.
    if skip_tokens > 0:
        print(f"  [RESUME] skipping ~{skip_tokens:,} already-seen tokens...")
        skipped = 0
        for _ in range(skip_tokens):
            next(gen)
            skipped += 1
        print(f"  [RESUME] resuming from token ~{skipped:,}")

    # initial buffer fill
    buf = []
    print(f"  Filling stream buffer (~{buffer_tokens//1000}K tokens)...")
    for _ in range(buffer_tokens):
        buf.append(next(gen))

    # a moving read position inside the buffer (sequential, not random)
    pos = 0

    def get_batch():
        nonlocal buf, pos
        need = cfg.batch_size * block + 1
        # ensure enough tokens ahead of pos
        while len(buf) - pos < need:
            buf.append(next(gen))
        xs, ys = [], []
        for _ in range(cfg.batch_size):
            i = pos
            xs.append(torch.tensor(buf[i:i+block], dtype=torch.long))
            ys.append(torch.tensor(buf[i+1:i+block+1], dtype=torch.long))
            pos += block
        # trim consumed head to keep buffer small
        if pos > buffer_tokens:
            buf = buf[pos:]
            pos = 0
        x = torch.stack(xs).to(cfg.device)
        y = torch.stack(ys).to(cfg.device)
        return x, y

    return get_batch


# ─── Save / load model ───────────────────────────────────────────────
def save_model(model, cfg, tokenizer, save_dir="brsx_model", cur_step=None):
    """
    Save the trained model + config + tokenizer into a folder.
      save_dir/model.pt      → weights
      save_dir/config.json   → model size + resume info
      save_dir/tokenizer.json→ tokenizer (if any)

    Resume fields written to config.json:
      last_step  → how many steps this model has been trained for
      max_steps  → the target step count the run was aiming at
      batch_size → needed to compute how much data was consumed (last_step*batch*block)
    These let a later run continue from where this one stopped without re-seeing data.
    """
    import os, json
    os.makedirs(save_dir, exist_ok=True)

    torch.save(model.state_dict(), os.path.join(save_dir, "model.pt"))

    conf = {
        "n_layer": cfg.n_layer, "n_head": cfg.n_head, "n_embd": cfg.n_embd,
        "block_size": cfg.block_size, "vocab_size": cfg.vocab_size,
        "has_tokenizer": tokenizer is not None,
        # resume bookkeeping
        "last_step": cur_step if cur_step is not None else getattr(cfg, "max_steps", 0),
        "max_steps": getattr(cfg, "max_steps", 0),
        "batch_size": getattr(cfg, "batch_size", 16),
    }
    with open(os.path.join(save_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, indent=2)

    if tokenizer is not None:
        tokenizer.save(os.path.join(save_dir, "tokenizer.json"))

    print(f"  Model saved → {save_dir}/ (model.pt, config.json"
          f"{', tokenizer.json' if tokenizer else ''})")

    # Generate a standalone chat.py — so the user can move the folder and run it
    try:
        from brsx_chat_template import write_standalone_chat
        write_standalone_chat(save_dir)
    except Exception as e:
        print(f"  (couldn't generate chat.py: {e})")


def load_model(save_dir="brsx_model", device=None):
    """
    Reload a saved model. Returns (model, cfg, tokenizer).
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
    """Apply a config dict from calibration onto CFG (overrides the provided keys)."""
    cfg = CFG()
    for k in ("n_layer", "n_head", "n_embd", "block_size",
              "batch_size", "learning_rate", "max_steps", "log_every"):
        if d and k in d and d[k] is not None:
            setattr(cfg, k, d[k])
    return cfg


def _lr_at(step_in_run, base_lr, warmup):
    """Warmup: ramp the LR up over the first `warmup` steps, then hold it flat.
    Starting at full LR makes the very first updates the most violent ones, right
    when the weights are random — the ramp takes that edge off."""
    if warmup and step_in_run < warmup:
        return base_lr * (step_in_run + 1) / warmup
    return base_lr


def train(config: dict = None, data_text: str = None, tokenizer=None,
          data_path: str = None, save_dir: str = "brsx_model", save_every: int = 0,
          resume_from: str = None, snd=None):
    """
    resume_from: path to a checkpoint FOLDER to continue from. When given:
      - weights are loaded from that folder's model.pt
      - the remaining steps = its max_steps - last_step  (unless the caller
        raised max_steps, in which case we train up to the new target)
      - the data stream is fast-forwarded past already-seen tokens
        (last_step * batch_size * block_size), so it doesn't re-see the same data.
    Optimizer state is NOT restored (kept light — no 2x checkpoint bloat);
    AdamW re-warms in a few steps, which is fine for approximate resume.

    snd: optional BRSXSoundManager — plays the loss as a tone while training.
    """
    # if a config is given (full.py / calibration) apply it, otherwise CFG defaults
    cfg = _apply_config_dict(config) if config else CFG()
    torch.manual_seed(cfg.seed)

    # ── RESUME: pull architecture + progress from the checkpoint config ──
    resume_info = None
    if resume_from:
        import os, json
        cfgp = os.path.join(resume_from, "config.json")
        mp = os.path.join(resume_from, "model.pt")
        if not (os.path.exists(cfgp) and os.path.exists(mp)):
            print(f"  [RESUME] '{resume_from}' has no config.json/model.pt — starting fresh.")
        else:
            with open(cfgp, encoding="utf-8") as f:
                rc = json.load(f)
            # architecture MUST match the checkpoint (can't resume into a different shape)
            for k in ("n_layer", "n_head", "n_embd", "block_size", "vocab_size"):
                if k in rc:
                    setattr(cfg, k, rc[k])
            last_step = int(rc.get("last_step", 0))
            ckpt_max  = int(rc.get("max_steps", 0))
            ckpt_batch = int(rc.get("batch_size", getattr(cfg, "batch_size", 16)))
            # target: caller's max_steps if bigger, else the checkpoint's original target
            caller_max = getattr(cfg, "max_steps", 0)
            target_max = max(caller_max, ckpt_max) if caller_max else ckpt_max
            remaining = max(0, target_max - last_step)
            resume_info = {
                "model_pt": mp, "last_step": last_step,
                "target_max": target_max, "remaining": remaining,
                "batch": ckpt_batch,
            }
            print(f"  [RESUME] checkpoint at step {last_step}/{ckpt_max}, "
                  f"target {target_max} → {remaining} steps to go")
            if remaining == 0:
                print("  [RESUME] already reached the target — nothing to train. "
                      "Raise max_steps to continue further.")
                return None, cfg, tokenizer
    # if a tokenizer is given, vocab_size becomes its vocab, otherwise 256 (byte-level)
    if tokenizer is not None:
        cfg.vocab_size = tokenizer.vocab_size

    stream_mode = data_path is not None

    if stream_mode:
        # STREAM mode: flow from the file without loading all data into RAM.
        # block_size safety: with a small sample, check whether the tokenizer
        # over-compresses (a few KB is enough, fast).
        import brsx_data as _dat
        probe_parts, _tot = [], 0
        for _ln in _dat.stream_lines(data_path):
            probe_parts.append(_ln); _tot += len(_ln)
            if _tot >= 64 * 1024:   # 64KB is enough for the check
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

    # System memory summary — your reference while chasing configs
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

    # ── RESUME: load checkpoint weights + figure out data skip ──
    skip_tokens = 0
    start_step = 1
    if resume_info:
        model.load_state_dict(torch.load(resume_info["model_pt"], map_location=cfg.device))
        print(f"  [RESUME] weights loaded from checkpoint")
        # continue the step counter from where we left off
        start_step = resume_info["last_step"] + 1
        cfg.max_steps = resume_info["target_max"]
        # fast-forward the data stream past already-seen tokens (sequential/no-shuffle → exact)
        skip_tokens = resume_info["last_step"] * resume_info["batch"] * cfg.block_size

    opt = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)

    # warmup = 1% of this run's steps (min 10): the LR ramps up instead of
    # slamming the randomly-initialised weights at full rate from step 1.
    run_steps = max(1, cfg.max_steps - start_step + 1)
    warmup = max(10, int(run_steps * 0.01))
    print(f"  Warmup: {warmup} steps (1% of {run_steps})")

    if stream_mode:
        get_batch = make_stream_batches(data_path, cfg, tokenizer, skip_tokens=skip_tokens)
    else:
        get_batch = make_batches(text, cfg, tokenizer)

    use_amp = (cfg.device == 'cuda' and cfg.precision == 'fp16')
    scaler  = torch.amp.GradScaler('cuda', enabled=use_amp)

    model.train()
    t0 = time.time()
    step = start_step
    oom_count = 0
    while step <= cfg.max_steps:
        try:
            # apply the warmup ramp for this step
            cur_lr = _lr_at(step - start_step, cfg.learning_rate, warmup)
            for g in opt.param_groups:
                g["lr"] = cur_lr

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
                # OOM → DON'T let the code stop. Shrink the batch, clear, continue.
                oom_count += 1
                if cfg.device == 'cuda':
                    torch.cuda.empty_cache()
                old_bs = cfg.batch_size
                cfg.batch_size = max(1, cfg.batch_size // 2)
                print(f"  ⚠️  OOM! batch_size {old_bs}→{cfg.batch_size} shrunk, continuing "
                      f"({oom_count} times total)")
                # rebuild the batch generator with the new batch_size.
                # NOTE: re-skip to the CURRENT step so we don't restart data from the top
                # after an OOM mid-run (keeps data position roughly consistent).
                if stream_mode:
                    _skip = step * cfg.batch_size * cfg.block_size
                    get_batch = make_stream_batches(data_path, cfg, tokenizer, skip_tokens=_skip)
                else:
                    get_batch = make_batches(text, cfg, tokenizer)
                if cfg.batch_size == 1 and oom_count > 5:
                    print("  ⚠️  OOM keeps happening even at batch_size=1, stopping training.")
                    break
                continue
            else:
                raise   # if not OOM, it's a real error, re-raise

        if snd:
            snd.step(loss.item())      # pitch tracks the loss, live

        if step % cfg.log_every == 0 or step == 1:
            dt = time.time() - t0
            ips = step / dt
            ram = _get_process_ram_mb()
            vused, vtotal = _get_vram_mb()
            mem = f"RAM {ram:.0f}MB"
            if vused is not None:
                mem += f" | VRAM {vused:.0f}/{vtotal:.0f}MB"
            print(f"  step {step:4d}/{cfg.max_steps} | loss {loss.item():.4f} "
                  f"| lr {cur_lr:.1e} | {ips:.1f} it/s | {mem}")

        # ── Intermediate checkpoint: save every save_every steps (less loss if it crashes) ──
        if save_every and save_dir and step % save_every == 0 and step < cfg.max_steps:
            print(f"  💾 saving checkpoint (step {step})...")
            save_model(model, cfg, tokenizer, save_dir, cur_step=step)

        step += 1

    print("-" * 60)
    print(f"  Training done. Total time: {time.time()-t0:.1f}s")
    mem_report("end")

    if snd:
        snd.play_success_melody()

    # ── Save model + tokenizer + config ──
    if save_dir:
        print("-" * 60)
        save_model(model, cfg, tokenizer, save_dir, cur_step=cfg.max_steps)

    return model, cfg, tokenizer


if __name__ == "__main__":
    train()
