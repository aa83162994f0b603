import os, sys, json, time, math
import torch
from brsx_hybrid import BrsxHybrid, blocks_from_pattern
import brsx_calibrate as cal
from brsx_blocks import BLOCK_TYPES
import modelsound
try:
    from tokenizers import Tokenizer
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer
    from tokenizers.pre_tokenizers import ByteLevel
except ImportError:
    print("[ERROR] the 'tokenizers' package is required:  pip install tokenizers")
    sys.exit(1)
HF_REPO   = "brsx-labs/datasets"
HF_FIELDS = ["chat", "code", "general", "math"]
MODEL_DIR = "hybrid_brsx_model"
# ─── input helpers ───────────────────────────────────────────────────
def ask(msg, default=None, cast=str, hint=None):
    if hint:
        print(f"   ({hint})")
    sfx = f" [{default}]" if default is not None else ""
    while True:
        raw = input(f" > {msg}{sfx}: ").strip()
        if not raw and default is not None:
            return default
        if not raw:
            print("   Enter a value."); continue
        try:
            return cast(raw)
        except ValueError:
            print("   Invalid, try again.")
def ask_choice(title, options, hint=None):
    print(f"\n{title}")
    if hint:
        print(f"   ({hint})")
    for k, v in options.items():
        print(f"   {k}) {v}")
    while True:
        c = input(" > Choice: ").strip()
        if c in options:
            return c
        print("   Pick from the list.")
# ─── the key part: parse the user's architecture string ──────────────
def parse_blocks(text):
    """
    Turn a comma list like 'mamba, transformer ,cnn,gru' into a validated
    list of block names. Whitespace-tolerant, case-insensitive.
    Raises ValueError (with a helpful message) on any unknown name.
    """
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    if not parts:
        raise ValueError("empty architecture")
    bad = [p for p in parts if p not in BLOCK_TYPES]
    if bad:
        raise ValueError(f"unknown block(s): {bad}. "
                         f"Valid: {', '.join(BLOCK_TYPES)}")
    return parts
def ask_architecture():
    print("\n--- ARCHITECTURE ---")
    print(f"  Available block types: {', '.join(BLOCK_TYPES)}")
    print("  Two ways to define the layers:")
    print("    1) Manual  — write the EXACT layer order (best for experiments/ablations)")
    print("    2) Pattern — give block types + a layer count; the pattern repeats to fill")
    while True:
        mode = input(" > Mode (1=manual / 2=pattern) [1]: ").strip() or "1"
        if mode in ("1", "2"):
            break
        print("   ! Type 1 or 2.")
    if mode == "1":
        print("\n  MANUAL — comma list, order = bottom→top. Examples:")
        print("    mamba,transformer,cnn,gru        (one of each, 4 layers)")
        print("    mamba,transformer,mamba,transformer   (interleaved)")
        while True:
            raw = input(" > Layers: ").strip()
            try:
                blocks = parse_blocks(raw)
                break
            except ValueError as e:
                print(f"   ! {e}")
    else:
        print("\n  PATTERN — block types to repeat, then total layer count. Examples:")
        print("    pattern: mamba,transformer   count: 128")
        print("      → mamba,transformer,mamba,transformer, ... (128 layers)")
        print("    pattern: mamba,transformer,cnn,gru   count: 32")
        print("      → the 4 types cycle until 32 layers are filled")
        while True:
            praw = input(" > Pattern (block types, comma): ").strip()
            try:
                pattern = parse_blocks(praw)
                break
            except ValueError as e:
                print(f"   ! {e}")
        while True:
            try:
                n_layer = int(input(" > Number of layers: ").strip())
                if n_layer >= 1:
                    break
            except ValueError:
                pass
            print("   ! Enter a positive whole number.")
        blocks = blocks_from_pattern(pattern, n_layer)
    from collections import Counter
    summary = ", ".join(f"{k}×{v}" for k, v in Counter(blocks).items())
    print(f"   → {len(blocks)} layers: {summary}")
    if len(blocks) > 40:
        print(f"   (heads-up: {len(blocks)} layers is a big model — make sure your "
              f"hardware/mode can handle it)")
    return blocks
# ─── tokenizer ───────────────────────────────────────────────────────
def _train_tokenizer(sample_text, vocab_size):
    from tokenizers import decoders
    tok = Tokenizer(BPE(unk_token="<unk>"))
    tok.pre_tokenizer = ByteLevel(add_prefix_space=False)
    # ByteLevel decoder turns the Ġ space-markers back into real spaces on decode
    tok.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(vocab_size=vocab_size,
                         special_tokens=["<pad>", "<unk>", "<bos>", "<eos>"])
    tok.train_from_iterator([sample_text], trainer=trainer)
    return tok
# ─── data streaming (sequential / no-shuffle → resumable) ────────────
def _stream_text(data_path=None, hf_field=None):
    if data_path is not None:
        while True:
            with open(data_path, "r", encoding="utf-8", errors="ignore") as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    yield chunk
    else:
        from huggingface_hub import hf_hub_download
        print(f"   Downloading {hf_field}.txt from {HF_REPO} (first time may take a while)...")
        fp = hf_hub_download(repo_id=HF_REPO, filename=f"{hf_field}.txt",
                             repo_type="dataset")
        print(f"   ✓ dataset ready: {fp}")
        while True:
            with open(fp, "r", encoding="utf-8", errors="ignore") as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    yield chunk
def _token_stream(tok, data_path=None, hf_field=None):
    eos = tok.token_to_id("<eos>") or 0
    for chunk in _stream_text(data_path, hf_field):
        for i in tok.encode(chunk).ids:
            yield i
        yield eos
def _batch_iter(token_gen, batch_size, block_size, device, skip_tokens=0):
    if skip_tokens > 0:
        print(f"  [RESUME] skipping ~{skip_tokens:,} already-seen tokens...")
        for _ in range(skip_tokens):
            next(token_gen)
        print(f"  [RESUME] resumed.")
    need = block_size + 1
    while True:
        rows = []
        for _ in range(batch_size):
            buf = []
            for tid in token_gen:
                buf.append(tid)
                if len(buf) >= need:
                    break
            if len(buf) < need:
                return
            rows.append(buf)
        data = torch.tensor(rows, dtype=torch.long, device=device)
        yield data[:, :block_size], data[:, 1:block_size + 1]
# ─── sizing: pick n_embd from a rough parameter budget ───────────────
def _parse_params(raw):
    """Parse '50M' / '1.5B' / '25000000' → int. Accepts str or int."""
    if isinstance(raw, (int, float)):
        return int(raw)
    s = str(raw).strip().lower().replace(" ", "")
    try:
        if s.endswith("m"):
            return int(float(s[:-1]) * 1_000_000)
        if s.endswith("b"):
            return int(float(s[:-1]) * 1_000_000_000)
        if s.endswith("k"):
            return int(float(s[:-1]) * 1_000)
        return int(float(s))
    except ValueError:
        print(f"   (couldn't parse '{raw}', using 50M)")
        return 50_000_000
def _auto_dims(n_layers, target_params, vocab):
    """Rough n_embd so total params ≈ target. Not exact (block types differ),
    just a sensible starting point; the user can override."""
    # crude: params ≈ vocab*embd (tied) + n_layers * ~8*embd^2
    best_e = 128
    for e in range(64, 1025, 64):
        approx = vocab * e + n_layers * 8 * e * e
        if approx > target_params:
            break
        best_e = e
    return best_e
# ─── save / load ─────────────────────────────────────────────────────
def _save(model, tok, config, out_dir, cur_step=None):
    os.makedirs(out_dir, exist_ok=True)
    conf = dict(config)
    if cur_step is not None:
        conf["last_step"] = cur_step
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, ensure_ascii=False, indent=2)
    torch.save(model.state_dict(), os.path.join(out_dir, "model.pt"))
    tok.save(os.path.join(out_dir, "tokenizer.json"))
    try:
        _write_chat_py(out_dir)
    except Exception as e:
        print(f"   (couldn't generate chat.py: {e})")
def _load_for_resume(ckpt_dir, device):
    cfgp = os.path.join(ckpt_dir, "config.json")
    mp   = os.path.join(ckpt_dir, "model.pt")
    tp   = os.path.join(ckpt_dir, "tokenizer.json")
    for pth, name in ((cfgp, "config.json"), (mp, "model.pt"), (tp, "tokenizer.json")):
        if not os.path.exists(pth):
            raise FileNotFoundError(f"{ckpt_dir} has no {name}")
    with open(cfgp, encoding="utf-8") as f:
        config = json.load(f)
    tok = Tokenizer.from_file(tp)
    model = BrsxHybrid(config).to(device)
    model.load_state_dict(torch.load(mp, map_location=device))
    return model, tok, config
# ─── LR schedule: warmup low→high, then flat (helps fresh AND resume) ─
def _lr_at(step, base_lr, warmup):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    return base_lr
def _nan_grad_blocks(model):
    """Which layers produced a non-finite gradient? Names the culprit instead of
    leaving us guessing which of mamba/transformer/cnn/gru blew up."""
    bad = []
    for i, layer in enumerate(getattr(model, "layers", [])):
        kind = type(layer).__name__.replace("Block", "").lower()
        for p_ in layer.parameters():
            if p_.grad is not None and not torch.isfinite(p_.grad).all():
                bad.append(f"L{i}:{kind}")
                break
    return ", ".join(bad) if bad else "none in layers (embed/head?)"


# ─── training core ───────────────────────────────────────────────────
def _run_training(model, tok, config, data_path, hf_field, lr, steps,
                  batch_size, save_every, out_dir, device, start_step=0,
                  skip_tokens=0, warmup=None, verbose=True, clip_norm=1.0,
                  snd=None):
    """clip_norm: max gradient norm. Set to 0/None to DISABLE clipping entirely
    (useful for diagnosing whether clipping is helping or strangling learning)."""
    block_size = config["block_size"]
    # warmup = 1% of this run's steps (min 10). A fixed 100 was too long for short
    # runs and too short for long ones; scaling it keeps the early-step LR ramp
    # proportional, which is what stops the first updates from blowing up.
    if warmup is None:
        warmup = max(10, int((steps - start_step) * 0.01))
    if verbose:
        print(f"  (warmup: {warmup} steps = 1% of {steps - start_step})")
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    use_amp = (device == "cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    tstream = _token_stream(tok, data_path, hf_field)
    batches = _batch_iter(tstream, batch_size, block_size, device,
                          skip_tokens=skip_tokens)
    os.makedirs(out_dir, exist_ok=True)
    model.train()
    t0 = time.time()
    running = 0.0
    running_gn = 0.0
    bad_gn_count = 0
    log_every = max(10, steps // 20)
    if verbose:
        print(f"  (grad clipping: {'OFF' if not clip_norm else f'max_norm={clip_norm}'})")
    for step in range(start_step + 1, steps + 1):
        # warmup is relative to this run's start
        cur_lr = _lr_at(step - start_step - 1, lr, warmup)
        for g in opt.param_groups:
            g["lr"] = cur_lr
        try:
            x, y = next(batches)
        except StopIteration:
            print("  [DATA] stream exhausted — stopping early.")
            break
        opt.zero_grad(set_to_none=True)
        if use_amp:
            with torch.amp.autocast("cuda"):
                _, loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)          # AMP keeps grads scaled; undo before clip
            grad_norm = torch.nn.utils.clip_grad_norm_(
                model.parameters(), max_norm=(clip_norm if clip_norm else 1e9))
            # THE important guard: the loss can be perfectly finite while a single
            # block's BACKWARD produces NaN/inf. If that reaches opt.step() it
            # poisons every weight and the model never recovers (loss flatlines).
            if not torch.isfinite(grad_norm):
                bad_gn_count += 1
                if snd:
                    snd.step(float("nan"))     # siren: this update was thrown away
                if verbose and bad_gn_count <= 3:
                    print(f"  [WARN] non-finite grad at step {step} — update skipped"
                          f" (culprit blocks: {_nan_grad_blocks(model)})")
                opt.zero_grad(set_to_none=True)
                scaler.update()            # let AMP lower its scale and retry
                continue
            scaler.step(opt); scaler.update()
        else:
            _, loss = model(x, y)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(
                model.parameters(), max_norm=(clip_norm if clip_norm else 1e9))
            if not torch.isfinite(grad_norm):
                bad_gn_count += 1
                if verbose and bad_gn_count <= 3:
                    print(f"  [WARN] non-finite grad at step {step} — update skipped"
                          f" (culprit blocks: {_nan_grad_blocks(model)})")
                opt.zero_grad(set_to_none=True)
                continue
            opt.step()
        if not torch.isfinite(loss):
            if verbose:
                print(f"  [WARN] non-finite loss at step {step} — skipping this update")
            opt.zero_grad(set_to_none=True)
            continue
        running_gn += float(grad_norm)
        running += loss.item()
        if snd:
            snd.step(loss.item())          # pitch tracks the loss, live
        if verbose and (step % log_every == 0 or step == start_step + 1):
            ips = (step - start_step) / (time.time() - t0)
            n = log_every if step != start_step + 1 else 1
            avg = running / n
            avg_gn = running_gn / n
            running = 0.0
            running_gn = 0.0
            v = torch.cuda.memory_allocated()/1e6 if device == "cuda" else 0
            print(f"  step {step}/{steps} | loss {avg:.3f} | grad_norm {avg_gn:.2f} "
                  f"| lr {cur_lr:.1e} | {ips:.2f} it/s"
                  + (f" | skipped {bad_gn_count}" if bad_gn_count else "")
                  + (f" | VRAM {v:.0f}MB" if device=='cuda' else ""))
        if save_every and step % save_every == 0 and step < steps:
            _save(model, tok, config, out_dir, cur_step=step)
            if verbose:
                print(f"   [checkpoint] {out_dir}")
    _save(model, tok, config, out_dir, cur_step=steps)
    if snd:
        snd.play_success_melody()
    if verbose:
        print(f"\n Training done ({time.time()-t0:.1f}s). Saved → {out_dir}")
    return model
# ─── main (interactive) ──────────────────────────────────────────────
def main():
    print("=" * 60)
    print("        brsx Hybrid Trainer  (mamba/transformer/cnn/gru)")
    print("=" * 60)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f" Device: {device}"
          + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else ""))
    # fresh or resume?
    print("\n" + "=" * 60)
    print("  1) Fresh training")
    print("  2) Resume from a checkpoint")
    print("=" * 60)
    start = ask_choice("Start mode:", {"1": "fresh", "2": "resume"})
    if start == "2":
        _resume_interactive(device)
        return
    # ── FRESH ──
    blocks = ask_architecture()
    # data
    print("\n--- DATA ---")
    dp = input(" > Data .txt path (EMPTY = stream a ready-made dataset): ").strip()
    data_path, hf_field = None, None
    if dp and os.path.exists(dp):
        data_path = dp
        print(f"   Using {dp}")
    else:
        if dp:
            print(f"   '{dp}' not found → ready-made dataset.")
        k = ask_choice("Field:", {str(i+1): f for i, f in enumerate(HF_FIELDS)})
        hf_field = HF_FIELDS[int(k) - 1]
    # tokenizer: train from a sample of the data
    print("\n--- TOKENIZER ---")
    vocab = ask("Vocab size", default=8000, cast=int)
    print("   Reading a sample to train the tokenizer...")
    sample = ""
    for chunk in _stream_text(data_path, hf_field):
        sample += chunk
        if len(sample) > 8 * 1024 * 1024:
            break
    tok = _train_tokenizer(sample, vocab)
    real_vocab = tok.get_vocab_size()
    print(f"   Tokenizer ready (vocab={real_vocab})")
    # ── SIZE via calibration (min/mid/max/my), same engine as the rest of brsx ──
    print("\n--- SIZE (auto-calibrated to your hardware) ---")
    print("  min → small+fast | mid → balanced | max → largest safe | my → your target")
    while True:
        smode = input(" > Mode (min/mid/max/my): ").strip().lower()
        if smode in ("min", "mid", "max", "my"):
            break
        print("   ! min, mid, max or my.")
    print("\n  Measuring hardware (a few probe steps)...\n")
    if smode == "my":
        tgt = _parse_params(ask("Target params (e.g. 50M)", default="50M"))
        ccfg = cal.calibrate_to_params(tgt, device)
    else:
        ccfg = cal.calibrate(smode, device)
    n_embd = ccfg["n_embd"]
    n_head = ccfg["n_head"]
    ctx    = ccfg.get("block_size", 256)
    print(f"  → ~{ccfg.get('n_params',0)/1e6:.1f}M | n_embd={n_embd} "
          f"n_head={n_head} ctx={ctx}")
    config = {
        "n_embd": n_embd, "n_head": n_head, "block_size": ctx,
        "vocab_size": real_vocab, "blocks": blocks, "dropout": 0.0,
    }
    model = BrsxHybrid(config).to(device)
    print(f"\n  Model: {model.layer_summary()} | ~{model.n_params()/1e6:.1f}M params")
    # training settings
    print("\n--- TRAINING ---")
    lr = ask("Learning rate", default=3e-4, cast=float)
    steps = ask("Max steps", default=2000, cast=int)
    batch = ask("Batch size", default=8, cast=int, hint="lower if OOM")
    clip = ask("Grad clip norm (0 = off)", default=1.0, cast=float,
               hint="mixing 4 block types can spike gradients; clipping tames that. "
                    "If loss plateaus high, try a larger value (5) or 0 to disable.")
    want_sound = modelsound.ask_sound(default_yes=True)
    config["max_steps"] = steps
    config["batch_size"] = batch
    config["clip_norm"] = clip
    # checkpoint: always offered — this is what makes resume useful if it crashes
    sug_ck = max(1, steps // 5)
    print("  Checkpoints let you resume if training stops/crashes.")
    save_every = ask("Checkpoint every N steps (0=off)", default=sug_ck, cast=int)
    out_dir = ask("Output folder", default=MODEL_DIR)
    out_dir = os.path.abspath(os.path.expanduser(out_dir))
    print("\n" + "=" * 60)
    print(f"  {model.layer_summary()} | {n_embd}d | ctx {ctx} | ~{model.n_params()/1e6:.1f}M")
    print(f"  lr {lr} | {steps} steps | batch {batch} | out {out_dir}")
    print("=" * 60)
    if input(" Start? (y/n) [y]: ").strip().lower() not in ("", "y", "yes"):
        print("Cancelled."); return
    print("\n  Training...\n")
    snd = modelsound.make_sound(want_sound)
    try:
        _run_training(model, tok, config, data_path, hf_field, lr, steps,
                      batch, save_every, out_dir, device, clip_norm=clip, snd=snd)
    finally:
        if snd:
            snd.close()          # never leave the audio stream open, even on Ctrl+C
    print("\nDone.")
def _resume_interactive(device):
    print("\n--- RESUME ---")
    while True:
        ck = input(" > Checkpoint folder: ").strip().strip('"')
        ck = os.path.abspath(os.path.expanduser(ck))
        if os.path.exists(os.path.join(ck, "config.json")) and \
           os.path.exists(os.path.join(ck, "model.pt")):
            break
        print(f"   '{ck}' has no config.json/model.pt. Try again.")
    model, tok, config = _load_for_resume(ck, device)
    last_step = int(config.get("last_step", 0))
    ckpt_max  = int(config.get("max_steps", 0))
    batch     = int(config.get("batch_size", 8))
    from collections import Counter
    summ = ", ".join(f"{k}×{v}" for k, v in Counter(config["blocks"]).items())
    print(f"   Checkpoint: {summ} | step {last_step}/{ckpt_max} "
          f"| ~{model.n_params()/1e6:.1f}M")
    # data
    dp = input(" > Data .txt path (EMPTY = ready-made dataset): ").strip()
    data_path, hf_field = None, None
    if dp and os.path.exists(dp):
        data_path = dp
    else:
        k = ask_choice("Field:", {str(i+1): f for i, f in enumerate(HF_FIELDS)})
        hf_field = HF_FIELDS[int(k) - 1]
    print(f"\n   {last_step}/{ckpt_max} done. Enter to finish target, "
          f"or a HIGHER number to go further.")
    t = input(f"   Max steps [{ckpt_max}]: ").strip()
    new_max = int(t) if t else ckpt_max
    if new_max <= last_step:
        print("   Nothing left to train (target already met)."); return
    out_dir = input("   Output folder [hybrid_brsx_model_resumed]: ").strip() \
              or "hybrid_brsx_model_resumed"
    out_dir = os.path.abspath(os.path.expanduser(out_dir))
    config["max_steps"] = new_max
    lr = float(config.get("lr", 3e-4))
    skip_tokens = last_step * batch * config["block_size"]
    # checkpoint during resume too, so a second crash is also recoverable
    remaining = new_max - last_step
    sug_ck = max(1, remaining // 5)
    save_every = ask("Checkpoint every N steps (0=off)", default=sug_ck, cast=int)
    want_sound = modelsound.ask_sound(default_yes=True)
    print(f"\n  Resuming {last_step}→{new_max}...\n")
    snd = modelsound.make_sound(want_sound)
    try:
        _run_training(model, tok, config, data_path, hf_field, lr, new_max,
                      batch, save_every, out_dir, device, start_step=last_step,
                      skip_tokens=skip_tokens,
                      clip_norm=float(config.get("clip_norm", 1.0)), snd=snd)
    finally:
        if snd:
            snd.close()
    print(f"\nDone. Saved → {out_dir}")
# ─── standalone chat.py generation ───────────────────────────────────
def _write_chat_py(out_dir):
    """Generate a standalone chat.py in out_dir. Embeds the block + model source
    (runs with only torch+tokenizers) plus a config-driven chat loop that rebuilds
    whatever architecture config.json lists. The chat body lives in
    _chat_main_template.py (separate file to avoid string-escaping issues)."""
    import brsx_blocks, brsx_hybrid
    here = os.path.dirname(os.path.abspath(__file__))
    blocks_src = open(brsx_blocks.__file__, encoding="utf-8").read()
    hybrid_src = open(brsx_hybrid.__file__, encoding="utf-8").read()
    chat_main = open(os.path.join(here, "_chat_main_template.py"),
                     encoding="utf-8").read()
    # inline the blocks into hybrid (drop hybrid's own import of them)
    hybrid_src = hybrid_src.replace(
        "from brsx_blocks import make_block, RMSNorm", "")
    parts = [
        "# AUTO-GENERATED standalone chat.py for a brsx hybrid model.",
        "# Rebuilds whatever blocks config.json lists. Do not edit by hand.",
        "",
        "# ===== embedded: brsx_blocks.py =====",
        blocks_src,
        "",
        "# ===== embedded: brsx_hybrid.py =====",
        hybrid_src,
        "",
        "# ===== chat loop =====",
        chat_main,
    ]
    with open(os.path.join(out_dir, "chat.py"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
if __name__ == "__main__":
    main()
