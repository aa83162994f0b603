"""
brsx_mtp.py — AutoForge MTP (Multi-Token Prediction) branch

Trains a model that predicts 3 tokens ahead (DeepSeek-V3 style sequential MTP heads).

Logic:
  - Config → brsx_calibrate.calibrate() (identifies hardware by testing)
  - Tokenizer → LOAD from mtp_brsx_model/ if present, otherwise train BPE from
    the first 16MB of the data (vocab fixed at 8000)
  - Data → STREAM (local file or HF brsx-labs/datasets), first 16MB of bytes read
  - HF → user is asked for a field (chat/code/general/math), that file is streamed
  - Save → mtp_brsx_model/{config.json, model.pt, tokenizer.json, chat.py}
  - chat.py → reads config from the folder, builds the model, runs directly (no manual setup)

Usage:
    from brsx_mtp import train_mtp
    train_mtp(mode="mid")                       # asks for an HF field
    train_mtp(mode="mid", data_path="data.txt") # from a local file
"""

import os
import io
import json
import time
import shutil

import torch
import torch.nn as nn
import torch.nn.functional as F

import brsx_calibrate
import modelsound

# ─── Constants ───────────────────────────────────────────────────────
VOCAB_SIZE   = 8000                 # BPE target vocab (FIXED)
DATA_LIMIT   = 16 * 1024 * 1024     # first 16MB for tokenizer training (bytes)
MODEL_DIR    = "mtp_brsx_model"     # output folder
N_PRED       = 3                    # how many tokens ahead (number of MTP heads)
MTP_WEIGHTS  = [1.0, 0.7, 0.5]      # head loss weights (nearer token weighted more)
HF_REPO      = "brsx-labs/datasets"
HF_FIELDS    = ["chat", "code", "general", "math"]

SPECIAL_TOKENS = ["<pad>", "<unk>", "<bos>", "<eos>"]


# ─── LR warmup ───────────────────────────────────────────────────────
def _lr_at(step_in_run, base_lr, warmup):
    """Ramp the LR up over the first `warmup` steps, then hold it flat. Starting at
    full LR makes the very first updates the most violent ones, right when the
    weights are random — the ramp takes that edge off."""
    if warmup and step_in_run < warmup:
        return base_lr * (step_in_run + 1) / warmup
    return base_lr


# ─── Data flow (STREAM) ──────────────────────────────────────────────
def _stream_local_text(path, byte_limit=None):
    """Read a local file chunk by chunk (stream). Stop at byte_limit if given."""
    read = 0
    with open(path, "r", encoding="utf-8", errors="ignore") as f:
        while True:
            chunk = f.read(1 << 20)  # 1MB
            if not chunk:
                break
            if byte_limit is not None:
                b = len(chunk.encode("utf-8"))
                if read + b > byte_limit:
                    # trim the part exceeding the limit
                    remain = byte_limit - read
                    enc = chunk.encode("utf-8")[:remain]
                    yield enc.decode("utf-8", errors="ignore")
                    return
                read += b
            yield chunk


def _stream_hf_text(field, byte_limit=None):
    """
    STREAM the {field}.txt file from HF brsx-labs/datasets.
    The repo contains plain text files (chat/code/general/math .txt),
    so we open the file via hf_hub and read it line by line.
    """
    from huggingface_hub import hf_hub_download
    # Download the file (HF caches it — won't re-download). Even for a large file
    # reading is streamed: we process it chunk by chunk without loading it all into RAM.
    fpath = hf_hub_download(repo_id=HF_REPO, filename=f"{field}.txt",
                            repo_type="dataset")
    yield from _stream_local_text(fpath, byte_limit=byte_limit)


def _get_text_stream(data_path=None, hf_field=None, byte_limit=None):
    """Return the appropriate stream by source (local takes priority)."""
    if data_path is not None:
        return _stream_local_text(data_path, byte_limit=byte_limit)
    return _stream_hf_text(hf_field, byte_limit=byte_limit)


# ─── Tokenizer (load if present, else train from the first 16MB) ─────
def _tokenizer_path():
    return os.path.join(MODEL_DIR, "tokenizer.json")


def _load_or_train_tokenizer(data_path=None, hf_field=None, verbose=True):
    """
    LOAD mtp_brsx_model/tokenizer.json IF it exists.
    OTHERWISE train BPE from the first 16MB of the data (vocab=8000), then save.
    """
    from tokenizers import Tokenizer
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer
    from tokenizers.pre_tokenizers import ByteLevel
    from tokenizers.decoders import ByteLevel as ByteLevelDecoder

    tpath = _tokenizer_path()
    if os.path.exists(tpath):
        if verbose:
            print(f"  [TOKENIZER] existing found → loading: {tpath}")
        return Tokenizer.from_file(tpath)

    if verbose:
        print(f"  [TOKENIZER] not found → training from the first {DATA_LIMIT//(1024*1024)}MB "
              f"(vocab={VOCAB_SIZE})")

    tok = Tokenizer(BPE(unk_token="<unk>"))
    tok.pre_tokenizer = ByteLevel(add_prefix_space=False)
    tok.decoder = ByteLevelDecoder()  # cleans up Ġ→space in decode()
    trainer = BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIAL_TOKENS,
                         show_progress=verbose)

    # feed the first 16MB via stream (iterator, without loading it all into RAM)
    def _iter():
        stream = _get_text_stream(data_path, hf_field, byte_limit=DATA_LIMIT)
        for chunk in stream:
            yield chunk

    tok.train_from_iterator(_iter(), trainer=trainer)
    os.makedirs(MODEL_DIR, exist_ok=True)
    tok.save(tpath)
    if verbose:
        print(f"  [TOKENIZER] trained ({tok.get_vocab_size()} tokens) → {tpath}")
    return tok


# ─── Streaming token generator (training data) ───────────────────────
def _token_stream(tok, data_path=None, hf_field=None):
    """
    Stream ALL the data (NO limit — the whole thing for training) and yield token ids.
    Infinite loop: rewinds when the data ends (epoch logic).
    """
    eos = tok.token_to_id("<eos>")
    if eos is None:
        eos = 0
    while True:
        stream = _get_text_stream(data_path, hf_field, byte_limit=None)
        for chunk in stream:
            ids = tok.encode(chunk).ids
            for i in ids:
                yield i
            yield eos  # eos at the chunk boundary


def _batch_iter(token_gen, batch_size, block_size, n_pred, device, skip_tokens=0):
    """
    Produce MTP batches from the token stream.
    x: (B, T)  — input
    ys: n_pred (B, T) — targets shifted 1,2,3 tokens ahead

    For each row, block_size + n_pred tokens are drawn; the first block_size is
    the input, the shifts are targets.

    skip_tokens: for RESUME — throw away this many tokens first so training
    continues from where the checkpoint left off, instead of re-seeing data.
    The stream is sequential (no shuffle), so this skip is exact.
    """
    if skip_tokens > 0:
        print(f"  [RESUME] skipping ~{skip_tokens:,} already-seen tokens...")
        done = 0
        for _ in range(skip_tokens):
            next(token_gen)
            done += 1
        print(f"  [RESUME] resuming from token ~{done:,}")
    need = block_size + n_pred
    while True:
        rows = []
        for _ in range(batch_size):
            buf = []
            for tid in token_gen:
                buf.append(tid)
                if len(buf) >= need:
                    break
            if len(buf) < need:
                return  # stream ended (in practice won't happen due to infinite gen)
            rows.append(buf)
        data = torch.tensor(rows, dtype=torch.long, device=device)  # (B, need)
        x = data[:, :block_size]
        ys = [data[:, k:k + block_size] for k in range(1, n_pred + 1)]
        yield x, ys


# ─── MTP Model (shared trunk + N sequential heads) ───────────────────
class _Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln1  = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln2  = nn.LayerNorm(n_embd)
        self.mlp  = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                  nn.Linear(4 * n_embd, n_embd))
        self.register_buffer("mask", torch.triu(
            torch.ones(block_size, block_size) * float("-inf"), diagonal=1))

    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:T, :T], need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class BrsxMTP(nn.Module):
    """
    Multi-Token Prediction model.

    A shared trunk (embedding + N-1 transformer blocks) is shared across all heads.
    Then each prediction head has its own transformer block + lm_head
    (DeepSeek-V3 sequential MTP: head k takes the trunk output, passes it through
    its own block, and predicts the (k+1)-th token).
    """
    def __init__(self, config):
        super().__init__()
        self.config = config
        ne = config["n_embd"]
        nl = config["n_layer"]
        nh = config["n_head"]
        bs = config["block_size"]
        V  = config["vocab_size"]
        self.n_pred = config["n_pred"]

        self.tok = nn.Embedding(V, ne)
        self.pos = nn.Embedding(bs, ne)

        # shared trunk: a portion of the total layers is shared
        n_trunk = max(1, nl - self.n_pred)  # the rest go to the head blocks
        self.trunk = nn.ModuleList([_Block(ne, nh, bs) for _ in range(n_trunk)])

        # for each head: 1 transformer block + lm_head
        self.head_blocks = nn.ModuleList([_Block(ne, nh, bs) for _ in range(self.n_pred)])
        self.lnf = nn.LayerNorm(ne)
        self.heads = nn.ModuleList([nn.Linear(ne, V, bias=False) for _ in range(self.n_pred)])

        self.block_size = bs

    def forward(self, idx, targets_list=None, weights=None):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.tok(idx) + self.pos(pos)[None]
        for b in self.trunk:
            x = b(x)

        logits_list = []
        for k in range(self.n_pred):
            h = self.head_blocks[k](x)
            logits_list.append(self.heads[k](self.lnf(h)))

        if targets_list is None:
            return logits_list  # inference: each head's logits

        if weights is None:
            weights = [1.0] * self.n_pred
        total = 0.0
        parts = []
        for k in range(self.n_pred):
            lg = logits_list[k]
            loss_k = F.cross_entropy(lg.reshape(-1, lg.size(-1)),
                                     targets_list[k].reshape(-1))
            total = total + weights[k] * loss_k
            parts.append(loss_k.item())
        return total, parts

    def n_params(self):
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """
        BLOCK GENERATION: each step produces 3 tokens at once from the 3 heads (the MTP gain).
        One forward → head[0]=+1, head[1]=+2, head[2]=+3 tokens. All three are appended,
        the next forward continues on top of these 3 tokens → ~n_pred times fewer forwards.

        Excess is trimmed once max_new_tokens is reached (a block may overshoot).
        """
        def _pick(logits_row):
            logits_row = logits_row / max(temperature, 1e-6)
            if top_k is not None:
                v, _ = torch.topk(logits_row, min(top_k, logits_row.size(-1)))
                logits_row[logits_row < v[:, [-1]]] = -float("inf")
            probs = F.softmax(logits_row, dim=-1)
            return torch.multinomial(probs, num_samples=1)  # (B,1)

        produced = 0
        while produced < max_new_tokens:
            idx_cond = idx[:, -self.block_size:]
            logits_list = self.forward(idx_cond)  # one forward, n_pred heads
            # 1 token from the last position of each head → a block of 3 tokens
            block = [_pick(logits_list[k][:, -1, :]) for k in range(self.n_pred)]
            block = torch.cat(block, dim=1)        # (B, n_pred)
            idx = torch.cat([idx, block], dim=1)
            produced += self.n_pred
        # trim block overshoot
        if produced > max_new_tokens:
            idx = idx[:, :idx.size(1) - (produced - max_new_tokens)]
        return idx


# ─── Training ─────────────────────────────────────────────────────────
def _fit_batch_real_vocab(config, device, batch_size, min_batch=2, verbose=True):
    """
    Build the model on GPU with the REAL vocab + n_pred heads and try 2 steps.
    Halve the batch on OOM (down to min_batch). Prevents the OOM that can occur
    at 8000 because calibration assumes vocab=3209.
    Returns: a safe batch_size.
    """
    import gc
    b = batch_size
    while b >= min_batch:
        try:
            gc.collect(); torch.cuda.empty_cache()
            model = BrsxMTP(config).to(device)
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            scaler = torch.amp.GradScaler("cuda", enabled=True)
            bs = config["block_size"]; V = config["vocab_size"]
            x = torch.randint(0, V, (b, bs), device=device)
            ys = [torch.randint(0, V, (b, bs), device=device)
                  for _ in range(config["n_pred"])]
            for _ in range(2):
                opt.zero_grad(set_to_none=True)
                with torch.amp.autocast("cuda"):
                    loss, _ = model(x, ys, weights=config["mtp_weights"])
                scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
            torch.cuda.synchronize()
            del model, opt, x, ys, loss, scaler
            gc.collect(); torch.cuda.empty_cache()
            if verbose and b != batch_size:
                print(f"  [VRAM] safe batch={b} with real vocab={V}")
            return b
        except (RuntimeError, torch.cuda.OutOfMemoryError):
            gc.collect(); torch.cuda.empty_cache()
            if verbose:
                print(f"  [VRAM] batch {b} OOM with real vocab={config['vocab_size']} "
                      f"→ trying {b//2}")
            b //= 2
    if verbose:
        print(f"  [VRAM] dropped to min batch={min_batch}")
    return min_batch


def _resume_mtp(resume_from, data_path, hf_field, steps, lr,
                log_every, save_dir, device, verbose, snd=None):
    """Continue training an MTP checkpoint. Architecture, tokenizer, n_pred and
    data-position all come from the checkpoint — we do NOT re-calibrate and do NOT
    re-train the tokenizer (vocab must match or the weights won't load).
    Optimizer state is not restored (approximate resume, no checkpoint bloat)."""
    from tokenizers import Tokenizer

    cfgp = os.path.join(resume_from, "config.json")
    mp   = os.path.join(resume_from, "model.pt")
    tp   = os.path.join(resume_from, "tokenizer.json")
    for pth, name in ((cfgp, "config.json"), (mp, "model.pt"), (tp, "tokenizer.json")):
        if not os.path.exists(pth):
            raise FileNotFoundError(f"{resume_from} has no {name} — can't resume.")

    with open(cfgp, encoding="utf-8") as f:
        config = json.load(f)
    if "n_pred" not in config:
        raise ValueError("checkpoint config has no 'n_pred' — not an MTP model.")

    last_step  = int(config.get("last_step", 0))
    ckpt_max   = int(config.get("max_steps", 0))
    batch_size = int(config.get("batch_size", 16))
    block_size = config["block_size"]

    # target: caller's steps if higher, else the checkpoint's original target
    target_max = max(steps, ckpt_max) if steps else ckpt_max
    remaining  = max(0, target_max - last_step)

    if verbose:
        print(f"[RESUME] MTP checkpoint at step {last_step}/{ckpt_max} "
              f"| embd={config['n_embd']} layer={config['n_layer']} "
              f"n_pred={config['n_pred']} vocab={config['vocab_size']}")
        print(f"[RESUME] target {target_max} → {remaining} steps to go")
    if remaining == 0:
        print("[RESUME] already reached the target — nothing to train. "
              "Pass a higher 'steps' to continue further.")
        return None, None, config

    # tokenizer from the checkpoint (never re-train — vocab must match)
    tok = Tokenizer.from_file(tp)

    # data source (still need something to train on)
    if data_path is None and hf_field is None:
        hf_field = _ask_field()

    # model from checkpoint config + weights
    model = BrsxMTP(config).to(device)
    model.load_state_dict(torch.load(mp, map_location=device))
    if verbose:
        print(f"[RESUME] weights loaded (~{model.n_params()/1e6:.1f}M params)")

    lr = lr if lr is not None else 3e-4
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    use_amp = (device == "cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    # warmup = 1% of the steps THIS run will actually do
    warmup = max(10, int(remaining * 0.01))
    if verbose:
        print(f"[RESUME] warmup {warmup} steps (1% of {remaining})")

    # data stream, fast-forwarded past already-seen tokens
    skip_tokens = last_step * batch_size * block_size
    tstream = _token_stream(tok, data_path, hf_field)
    batches = _batch_iter(tstream, batch_size, block_size, config["n_pred"],
                          device, skip_tokens=skip_tokens)

    # keep max_steps current in config for the next resume
    config["max_steps"] = target_max
    weights = config.get("mtp_weights", MTP_WEIGHTS)

    out = save_dir or MODEL_DIR
    os.makedirs(out, exist_ok=True)
    model.train()
    t0 = time.time()
    running = 0.0
    for step in range(last_step + 1, target_max + 1):
        cur_lr = _lr_at(step - last_step - 1, lr, warmup)
        for g in opt.param_groups:
            g["lr"] = cur_lr

        x, ys = next(batches)
        opt.zero_grad(set_to_none=True)
        if use_amp:
            with torch.amp.autocast("cuda"):
                loss, parts = model(x, ys, weights=weights)
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else:
            loss, parts = model(x, ys, weights=weights)
            loss.backward(); opt.step()

        if snd:
            snd.step(loss.item())      # pitch tracks the loss, live

        running += loss.item()
        if verbose and step % log_every == 0:
            ips = (step - last_step) / (time.time() - t0)
            avg = running / log_every
            running = 0.0
            pstr = "/".join(f"{p:.2f}" for p in parts)
            print(f"  step {step}/{target_max} | loss {avg:.3f} "
                  f"(heads {pstr}) | lr {cur_lr:.1e} | {ips:.2f} it/s")

    if snd:
        snd.play_success_melody()

    _save_all(model, tok, config, verbose=verbose, save_dir=out, cur_step=target_max)
    if verbose:
        print(f"[RESUME DONE] model saved → {out}/")
    return model, tok, config


def train_mtp(mode=None, data_path=None, hf_field=None,
              steps=None, batch_size=None, lr=None, log_every=50,
              save_every=None, target_params=None,
              interactive=True, device=None, verbose=True,
              resume_from=None, save_dir=None, snd=None):
    """
    Train the MTP model.

    mode         : "min"/"mid"/"max"/"my" → config via brsx_calibrate.
                   ASKED if None and interactive.
    data_path    : local .txt (if given, HF is not used)
    hf_field     : "chat"/"code"/"general"/"math" (if no data_path; ASKED if None)
    steps/lr/save_every : ASKED if None and interactive (Enter=default).
    target_params: target parameters for "my" mode (asked if None).
    interactive  : True → asks for missing parameters from stdin.
    snd          : optional BRSXSoundManager — plays the loss as a tone while training.
    """
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"

    # ── Interactive: fresh or resume? (only if not already told programmatically) ──
    if interactive and resume_from is None:
        print("=" * 60)
        print("  START")
        print("=" * 60)
        print("  1) Fresh training (calibrate + train from scratch)")
        print("  2) Resume from a checkpoint (continue an earlier MTP run)")
        print("-" * 60)
        while True:
            _c = input("  Choice (1/2): ").strip()
            if _c in ("1", "2"):
                break
            print("  ! Type 1 or 2.")
        if _c == "2":
            # gather the checkpoint folder + new target + output folder
            while True:
                _ck = input("  Checkpoint folder (with model.pt + config.json): ").strip().strip('"')
                _ck = os.path.abspath(os.path.expanduser(_ck))
                if os.path.exists(os.path.join(_ck, "config.json")) and \
                   os.path.exists(os.path.join(_ck, "model.pt")):
                    break
                print(f"   '{_ck}' has no config.json/model.pt. Try again.")
            # show progress, ask for a (possibly higher) target
            with open(os.path.join(_ck, "config.json"), encoding="utf-8") as _f:
                _rc = json.load(_f)
            _last = int(_rc.get("last_step", 0)); _cmax = int(_rc.get("max_steps", 0))
            print(f"   Checkpoint: step {_last}/{_cmax} "
                  f"| embd={_rc.get('n_embd')} layer={_rc.get('n_layer')} "
                  f"n_pred={_rc.get('n_pred')}")
            print(f"   Press Enter to finish the original target ({_cmax}), "
                  f"or type a HIGHER number to go further.")
            _t = input(f"   Max steps [{_cmax}]: ").strip()
            _steps = int(_t) if _t else _cmax
            _out = input("   Output folder [mtp_brsx_model_resumed]: ").strip() \
                   or "mtp_brsx_model_resumed"
            _out = os.path.abspath(os.path.expanduser(_out))
            # data source: still needed
            if data_path is None and hf_field is None:
                hf_field = _ask_field()
            _want_sound = modelsound.ask_sound(default_yes=True)
            _snd = modelsound.make_sound(_want_sound)
            try:
                return _resume_mtp(_ck, data_path, hf_field, _steps, lr,
                                   log_every, _out, device, verbose, snd=_snd)
            finally:
                if _snd:
                    _snd.close()   # never leave the audio stream open

    # ══ RESUME PATH (programmatic) ═════════════════════════════════════
    if resume_from is not None:
        return _resume_mtp(resume_from, data_path, hf_field, steps, lr,
                           log_every, save_dir, device, verbose, snd=snd)

    # ── Training parameters (interactive: mode/lr/steps/ckpt) ──
    if interactive:
        mode, lr, steps, save_every, target_params = _ask_train_params(
            mode=mode, lr=lr, steps=steps, save_every=save_every,
            target_params=target_params)
    else:
        # non-interactive defaults
        mode = mode or "mid"
        lr = lr if lr is not None else 3e-4
        steps = steps if steps is not None else 2000
        save_every = save_every if save_every is not None else 500

    # sound: ask once, here, so it covers the whole fresh-training run
    _own_snd = None
    if snd is None and interactive:
        _want_sound = modelsound.ask_sound(default_yes=True)
        _own_snd = modelsound.make_sound(_want_sound)
        snd = _own_snd

    try:
        return _train_mtp_fresh(mode, data_path, hf_field, steps, batch_size, lr,
                                log_every, save_every, target_params, device,
                                verbose, save_dir, snd)
    finally:
        if _own_snd:
            _own_snd.close()   # never leave the audio stream open, even on Ctrl+C


def _train_mtp_fresh(mode, data_path, hf_field, steps, batch_size, lr,
                     log_every, save_every, target_params, device,
                     verbose, save_dir, snd):
    """The fresh-training body (split out so the sound manager can be closed
    reliably in train_mtp's finally block)."""
    # ── Data source selection ──
    if data_path is None and hf_field is None:
        hf_field = _ask_field()
    if data_path is not None:
        if verbose:
            print(f"[DATA] local: {data_path}")
    else:
        if hf_field not in HF_FIELDS:
            raise ValueError(f"hf_field '{hf_field}' is invalid. Options: {HF_FIELDS}")
        if verbose:
            print(f"[DATA] HF: {HF_REPO} → {hf_field}.txt (stream)")

    # ── 1) Tokenizer (load if present, else train from the first 16MB) ──
    tok = _load_or_train_tokenizer(data_path, hf_field, verbose=verbose)
    real_vocab = tok.get_vocab_size()

    # ── 2) Config (by testing the hardware) ──
    if verbose:
        print(f"[CONFIG] calibration starting (mode={mode}, device={device})")
    if mode == "my":
        if target_params is None:
            target_params = 100_000_000  # safety default
        cal = brsx_calibrate.calibrate_to_params(
            target_params, device=device, verbose=verbose)
    else:
        cal = brsx_calibrate.calibrate(mode, device=device, verbose=verbose)
    if batch_size is None:
        batch_size = cal.get("start_batch", 16)

    config = {
        "n_embd": cal["n_embd"],
        "n_layer": cal["n_layer"],
        "n_head": cal["n_head"],
        "block_size": cal["block_size"],
        "vocab_size": real_vocab,
        "n_pred": N_PRED,
        "mtp_weights": MTP_WEIGHTS,
        "mode": mode,
        # resume bookkeeping (batch/max filled just below once known)
        "max_steps": steps,
    }
    if verbose:
        print(f"[CONFIG] embd={config['n_embd']} layer={config['n_layer']} "
              f"head={config['n_head']} ctx={config['block_size']} "
              f"vocab={real_vocab} n_pred={N_PRED}")

    # ── 2b) Memory verification with the REAL vocab ──
    # Calibration assumes vocab=3209; our vocab is 8000 + n_pred heads → the embedding
    # and lm_heads take up more space. Try with the real vocab on GPU and if it doesn't
    # fit, lower the batch to prevent OOM (without touching the calibration file).
    if device == "cuda":
        batch_size = _fit_batch_real_vocab(
            config, device, batch_size, verbose=verbose)
    config["batch_size"] = batch_size   # needed to compute data skip on resume

    # ── 3) Model ──
    model = BrsxMTP(config).to(device)
    if verbose:
        print(f"[MODEL] ~{model.n_params()/1e6:.1f}M parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    use_amp = (device == "cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    # warmup = 1% of the run
    warmup = max(10, int(steps * 0.01))
    if verbose:
        print(f"[TRAIN] warmup {warmup} steps (1% of {steps})")

    # ── 4) Data flow ──
    tstream = _token_stream(tok, data_path, hf_field)
    batches = _batch_iter(tstream, batch_size, config["block_size"], N_PRED, device)

    # ── 5) Training loop ──
    os.makedirs(MODEL_DIR, exist_ok=True)
    model.train()
    t0 = time.time()
    running = 0.0
    for step in range(1, steps + 1):
        cur_lr = _lr_at(step - 1, lr, warmup)
        for g in opt.param_groups:
            g["lr"] = cur_lr

        x, ys = next(batches)
        opt.zero_grad(set_to_none=True)
        if use_amp:
            with torch.amp.autocast("cuda"):
                loss, parts = model(x, ys, weights=MTP_WEIGHTS)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss, parts = model(x, ys, weights=MTP_WEIGHTS)
            loss.backward()
            opt.step()

        if snd:
            snd.step(loss.item())      # pitch tracks the loss, live

        running += loss.item()
        if verbose and step % log_every == 0:
            ips = step / (time.time() - t0)
            avg = running / log_every
            running = 0.0
            pstr = "/".join(f"{p:.2f}" for p in parts)
            print(f"  step {step}/{steps} | loss {avg:.3f} "
                  f"(heads {pstr}) | lr {cur_lr:.1e} | {ips:.2f} it/s")

        if save_every > 0 and step % save_every == 0:
            _save_all(model, tok, config, verbose=verbose,
                      save_dir=save_dir, cur_step=step)

    if snd:
        snd.play_success_melody()

    _save_all(model, tok, config, verbose=verbose,
              save_dir=save_dir, cur_step=steps)
    if verbose:
        print(f"[DONE] model saved → {MODEL_DIR}/")
    return model, tok, config


def _ask_field():
    """Ask the user for the HF field (stdin)."""
    print(f"\nWhich field? {HF_FIELDS}")
    while True:
        c = input("Choice: ").strip().lower()
        if c in HF_FIELDS:
            return c
        print(f"Invalid. Options: {HF_FIELDS}")


def _ask(prompt, default, cast):
    """
    Enter → use default; if a value is typed, cast it.
    Re-asks on invalid input.
    """
    while True:
        raw = input(f"{prompt} [Enter={default}]: ").strip()
        if raw == "":
            return default
        try:
            return cast(raw)
        except (ValueError, TypeError):
            print("  invalid value, try again")


def _ask_train_params(mode=None, lr=None, steps=None, save_every=None,
                      target_params=None):
    """
    Ask for training parameters interactively. Parameters already given (not None)
    are not asked. Enter → default, if a value is typed that is used.
    Returns: (mode, lr, steps, save_every, target_params)
    """
    print("\n=== TRAINING SETTINGS (Enter=confirm, type a value=change) ===")

    # mode: min/mid/max/my
    if mode is None:
        while True:
            m = input("Mode (min/mid/max/my) [Enter=mid]: ").strip().lower()
            if m == "":
                mode = "mid"; break
            if m in ("min", "mid", "max", "my"):
                mode = m; break
            print("  invalid — min/mid/max/my")

    # my → target parameter count (asked in millions, easier)
    if mode == "my" and target_params is None:
        m_val = _ask("Target parameters (Millions)", 100, float)
        target_params = int(m_val * 1e6)

    if lr is None:
        lr = _ask("Learning rate", 3e-4, float)
    if steps is None:
        steps = _ask("Max steps", 2000, int)
    if save_every is None:
        save_every = _ask("Checkpoint interval (0=off, every N steps)", 500, int)

    print(f"\n  → mode={mode}"
          + (f" (~{target_params/1e6:.0f}M)" if mode == "my" else "")
          + f" | lr={lr} | max_steps={steps} | ckpt={save_every}\n")
    return mode, lr, steps, save_every, target_params


# ─── Save (config.json, model.pt, tokenizer.json, chat.py) ───────────
def _save_all(model, tok, config, verbose=True, save_dir=None, cur_step=None):
    """Save the MTP model. If save_dir is given, save there (resume → new folder),
    otherwise the default MODEL_DIR. Resume bookkeeping (last_step/max_steps/batch_size)
    is written into config so a later run can continue without re-seeing data."""
    out = save_dir or MODEL_DIR
    os.makedirs(out, exist_ok=True)
    conf = dict(config)
    if cur_step is not None:
        conf["last_step"] = cur_step
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, ensure_ascii=False, indent=2)
    torch.save(model.state_dict(), os.path.join(out, "model.pt"))
    tok.save(os.path.join(out, "tokenizer.json"))
    _write_chat_py(out_dir=out)
    if verbose:
        print(f"  [SAVE] {out}/ (config.json + model.pt + tokenizer.json + chat.py)")


def _write_chat_py(out_dir=None):
    """
    Write mtp_brsx_model/chat.py. This file:
      - reads config.json, builds the model skeleton from the config
      - loads model.pt + tokenizer.json
      - runs a chat loop from the command line
    It also embeds the model definition inside → no external dependency, the folder is portable on its own.
    """
    chat_code = '''"""
chat.py — chat with mtp_brsx_model (auto-generated)

Reads config.json / model.pt / tokenizer.json from the folder.
NO manual setup — everything comes from the config.

Usage:  python chat.py
"""
import os, json
import torch
import torch.nn as nn
import torch.nn.functional as F
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "config.json"), encoding="utf-8") as f:
    CONFIG = json.load(f)

tok = Tokenizer.from_file(os.path.join(HERE, "tokenizer.json"))


class _Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln1  = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln2  = nn.LayerNorm(n_embd)
        self.mlp  = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                  nn.Linear(4 * n_embd, n_embd))
        self.register_buffer("mask", torch.triu(
            torch.ones(block_size, block_size) * float("-inf"), diagonal=1))
    def forward(self, x):
        T = x.size(1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:T, :T], need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class BrsxMTP(nn.Module):
    def __init__(self, config):
        super().__init__()
        ne = config["n_embd"]; nl = config["n_layer"]; nh = config["n_head"]
        bs = config["block_size"]; V = config["vocab_size"]
        self.n_pred = config["n_pred"]; self.block_size = bs
        self.tok = nn.Embedding(V, ne)
        self.pos = nn.Embedding(bs, ne)
        n_trunk = max(1, nl - self.n_pred)
        self.trunk = nn.ModuleList([_Block(ne, nh, bs) for _ in range(n_trunk)])
        self.head_blocks = nn.ModuleList([_Block(ne, nh, bs) for _ in range(self.n_pred)])
        self.lnf = nn.LayerNorm(ne)
        self.heads = nn.ModuleList([nn.Linear(ne, V, bias=False) for _ in range(self.n_pred)])
    def forward(self, idx):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.tok(idx) + self.pos(pos)[None]
        for b in self.trunk: x = b(x)
        # logits of all heads (for block generation)
        return [self.heads[k](self.lnf(self.head_blocks[k](x))) for k in range(self.n_pred)]
    @torch.no_grad()
    def generate(self, idx, max_new_tokens=200, temperature=0.8, top_k=40):
        # BLOCK GENERATION: n_pred tokens at once from n_pred heads per forward
        eos = tok.token_to_id("<eos>")
        def _pick(row):
            row = row / max(temperature, 1e-6)
            if top_k is not None:
                v, _ = torch.topk(row, min(top_k, row.size(-1)))
                row[row < v[:, [-1]]] = -float("inf")
            return torch.multinomial(F.softmax(row, dim=-1), num_samples=1)
        produced = 0
        while produced < max_new_tokens:
            idx_cond = idx[:, -self.block_size:]
            logits_list = self.forward(idx_cond)
            stop = False
            for k in range(self.n_pred):
                nxt = _pick(logits_list[k][:, -1, :])
                idx = torch.cat([idx, nxt], dim=1)
                produced += 1
                if eos is not None and nxt.item() == eos:
                    stop = True; break
                if produced >= max_new_tokens:
                    stop = True; break
            if stop:
                break
        return idx


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = BrsxMTP(CONFIG).to(device)
    state = torch.load(os.path.join(HERE, "model.pt"), map_location=device)
    model.load_state_dict(state)
    model.eval()
    print(f"mtp_brsx_model loaded | {sum(p.numel() for p in model.parameters())/1e6:.1f}M "
          f"| ctx={CONFIG['block_size']} | device={device}")
    print("Exit: empty line / Ctrl+C\\n")
    while True:
        try:
            prompt = input(">>> ").strip()
        except (EOFError, KeyboardInterrupt):
            print(); break
        if not prompt:
            break
        ids = tok.encode(prompt).ids
        idx = torch.tensor([ids], dtype=torch.long, device=device)
        out = model.generate(idx, max_new_tokens=200, temperature=0.8, top_k=40)
        text = tok.decode(out[0].tolist())
        print(text.strip(), "\\n")


if __name__ == "__main__":
    main()
'''
    _dest = out_dir or MODEL_DIR
    with open(os.path.join(_dest, "chat.py"), "w", encoding="utf-8") as f:
        f.write(chat_code)


if __name__ == "__main__":
    # no args: mode/lr/step/ckpt + HF field are asked, then it trains
    train_mtp()
