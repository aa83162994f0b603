import torch
import brsx_calibrate as cal
import brsx_train as trn
import brsx_data as dat
import modelsound
def _diagnostics():
    """TEMPORARY: compare the reference measurement vs actual training usage."""
    print("=" * 60)
    print("  DIAGNOSTICS: memory measurement")
    print("=" * 60)
    if not torch.cuda.is_available():
        print("  No GPU, skipping diagnostics."); return
    cfg = cal._make_config_from_scale(2.0)
    ctx = cal._ctx_for_params(cal._quick_params(cfg))
    u, n = cal._measure_single(cfg, 'cuda', 16, ctx)
    print(f"  >>> REFERENCE {n/1e6:.0f}M  measured: {u/(1024**3):.2f} GB")
    torch.cuda.empty_cache(); torch.cuda.synchronize()
    f0, t = torch.cuda.mem_get_info()
    m = cal._ProbeModel(cfg, vocab=3209, block_size=ctx).to('cuda')
    o = torch.optim.AdamW(m.parameters(), lr=3e-4); s = torch.amp.GradScaler('cuda')
    x = torch.randint(0, 3209, (16, ctx), device='cuda')
    y = torch.randint(0, 3209, (16, ctx), device='cuda')
    for _ in range(20):
        o.zero_grad()
        with torch.amp.autocast('cuda'): l = m(x, y)
        s.scale(l).backward(); s.step(o); s.update()
    torch.cuda.synchronize()
    f1, _ = torch.cuda.mem_get_info()
    print(f"  >>> IN TRAINING  used: {(f0-f1)/(1024**3):.2f} GB / total {t/(1024**3):.2f} GB")
    if u > 0:
        print(f"  >>> DIFF: training/reference = {(f0-f1)/u:.2f}x")
    print("=" * 60)
def _ask_mode() -> str:
    print("=" * 60)
    print("  brsx — choose model training mode")
    print("=" * 60)
    print("  min  → small + fast (try-and-see)")
    print("  mid  → balanced")
    print("  max  → the safe largest for this hardware")
    print("  my   → give your own target parameter count")
    print("-" * 60)
    while True:
        m = input("  Mode (min/mid/max/my): ").strip().lower()
        if m in ("min", "mid", "max", "my"):
            return m
        print("  ! Type min, mid, max or my.")

def _ask_target_params() -> int:
    """Get the target parameter count for 'my' mode. Accepts '40M', '40000000', '1.5B'."""
    while True:
        raw = input("  Target parameters (e.g. 40M): ").strip().lower().replace(" ", "")
        try:
            if raw.endswith("m"):
                return int(float(raw[:-1]) * 1_000_000)
            if raw.endswith("b"):
                return int(float(raw[:-1]) * 1_000_000_000)
            if raw.endswith("k"):
                return int(float(raw[:-1]) * 1_000)
            return int(float(raw))
        except ValueError:
            print("  ! Type a valid number (e.g. 40M, 25000000).")
def _ask_start_mode() -> str:
    """Fresh training or resume from a checkpoint?"""
    print("=" * 60)
    print("  START")
    print("=" * 60)
    print("  1) Fresh training (calibrate + train from scratch)")
    print("  2) Resume from a checkpoint (continue an earlier run)")
    print("-" * 60)
    while True:
        c = input("  Choice (1/2): ").strip()
        if c in ("1", "2"):
            return "fresh" if c == "1" else "resume"
        print("  ! Type 1 or 2.")
def _resume_flow(device):
    """Resume path: ask for the checkpoint folder + optional new target, then train.
    Architecture and data-position come from the checkpoint, so we DON'T re-calibrate."""
    import os, json
    print("\n--- RESUME ---")
    while True:
        ckpt = input(" > Checkpoint folder (with model.pt + config.json): ").strip().strip('"')
        ckpt = os.path.abspath(os.path.expanduser(ckpt))
        cfgp = os.path.join(ckpt, "config.json")
        mp = os.path.join(ckpt, "model.pt")
        if os.path.exists(cfgp) and os.path.exists(mp):
            break
        print(f"   '{ckpt}' has no config.json/model.pt. Try again.")
    with open(cfgp, encoding="utf-8") as f:
        rc = json.load(f)
    last_step = int(rc.get("last_step", 0))
    ckpt_max = int(rc.get("max_steps", 0))
    print(f"   Checkpoint: {rc.get('n_params', '?') if isinstance(rc.get('n_params'), int) else ''}"
          f" step {last_step}/{ckpt_max} "
          f"| embd={rc.get('n_embd')} layer={rc.get('n_layer')}")
    # data: still needed to continue training on
    data_info = dat.ask_for_data()
    data_path = data_info.get("path")
    data_text = data_info.get("text")

    # tokenizer: MUST match the checkpoint (vocab_size can't change on resume,
    # or the weights won't load). We NEVER ask for a new tokenizer here.
    tokenizer = None
    tp = os.path.join(ckpt, "tokenizer.json")
    if rc.get("has_tokenizer") and os.path.exists(tp):
        from brsx_tokenizer import BPETokenizer
        tokenizer = BPETokenizer(); tokenizer.load(tp)
        print(f"   Reusing checkpoint tokenizer (vocab={tokenizer.vocab_size})")
    else:
        # checkpoint was byte-level (vocab=256) → stay byte-level
        print("   Checkpoint is byte-level (no tokenizer) → continuing byte-level")
    # new target: default = original max_steps; user may raise it to train further
    print("\n--- TARGET ---")
    print(f"   Original target was {ckpt_max} steps ({last_step} done, "
          f"{max(0, ckpt_max-last_step)} left).")
    print("   Press Enter to finish the original target, or enter a HIGHER number to go further.")
    try:
        t_in = input(f"   Max steps [{ckpt_max}]: ").strip()
        new_max = int(t_in) if t_in else ckpt_max
    except Exception:
        new_max = ckpt_max
    if new_max < last_step:
        print(f"   (that's below what's already done; keeping {ckpt_max})")
        new_max = ckpt_max
    out_dir = input("   Output folder [brsx_model_resumed]: ").strip() or "brsx_model_resumed"
    out_dir = os.path.abspath(os.path.expanduser(out_dir))
    want_sound = modelsound.ask_sound(default_yes=True)
    train_cfg = {"max_steps": new_max}   # arch comes from checkpoint; trainer fills the rest
    print("\n  Resuming training...\n")
    snd = modelsound.make_sound(want_sound)
    try:
        trn.train(train_cfg, data_text=data_text, tokenizer=tokenizer,
                  data_path=data_path, save_dir=out_dir, save_every=0,
                  resume_from=ckpt, snd=snd)
    finally:
        if snd:
            snd.close()          # never leave the audio stream open, even on Ctrl+C
    print(f"\n  Done. Resumed model saved to {out_dir}")
def main():
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    # ── 0) Fresh or resume? ──
    if _ask_start_mode() == "resume":
        _resume_flow(device)
        return
    # ── 1) Data: do you have it? get the path (for streaming) ──
    data_info = dat.ask_for_data()
    data_path = data_info.get("path")     # file path for streaming
    data_text = data_info.get("text")     # None (stream) or embedded fallback
    # ── 2) Tokenizer: have one (load) or train from data (sample from path) ──
    tokenizer = None
    if data_path:
        print()
        tokenizer = dat.ask_for_tokenizer(path=data_path)
    # ── 3) Choose mode ──
    mode = _ask_mode()
    # ── 4) Calibration: find a config by testing the hardware ──
    print("\n  Measuring hardware, please wait...\n")
    if mode == "my":
        target = _ask_target_params()
        print()
        cfg = cal.calibrate_to_params(target, device)
    else:
        cfg = cal.calibrate(mode, device)
    # ── Summary of the found config ──
    print("\n" + "=" * 60)
    print("  SELECTED CONFIG")
    print("=" * 60)
    print(f"  Mode       : {mode}")
    print(f"  Parameters : ~{cfg['n_params']/1e6:.1f}M")
    print(f"  n_embd     : {cfg['n_embd']}")
    print(f"  n_layer    : {cfg['n_layer']}")
    print(f"  n_head     : {cfg['n_head']}")
    print(f"  ctx        : {cfg.get('block_size', '?')}")
    if tokenizer is not None:
        print(f"  Vocab      : {tokenizer.vocab_size} (tokenizer)")
    else:
        print(f"  Vocab      : 256 (byte-level)")
    if cfg.get("capped_to_max"):
        print(f"  NOTE       : your request exceeded the ceiling, pulled to max")
    if cfg.get("measured_ips"):
        print(f"  Measured speed: {cfg['measured_ips']:.2f} it/s")
    if cfg.get("mem_frac"):
        print(f"  Memory     : {int(cfg['mem_frac']*100)}% full")
    print("=" * 60)
    # ── 5) Training settings: suggest based on model+data, let the user confirm ──
    n_params = cfg.get("n_params", 100e6)
    batch = cfg.get("start_batch", 16)
    ctx = cfg.get("block_size", 256)
    # LR: shrinks as the model grows (a large model is more sensitive)
    if n_params < 100e6:
        sug_lr = 3e-4
    elif n_params < 500e6:
        sug_lr = 2e-4
    else:
        sug_lr = 1e-4
    # Steps: enough to see the data ~3 times (1 epoch = tokens / (batch*ctx))
    sug_steps = 5000  # reasonable default if data size is unknown
    if data_path:
        try:
            import os
            data_bytes = os.path.getsize(data_path)
            approx_tokens = data_bytes / 4         # ~4 bytes/token rough
            one_epoch = max(1, int(approx_tokens / (batch * ctx)))
            sug_steps = max(500, min(one_epoch * 3, 50000))  # 3 epochs, between 500-50000
        except Exception:
            pass
    print("\n" + "=" * 60)
    print("  TRAINING SETTINGS (suggested based on model + data)")
    print("=" * 60)
    print(f"  Step count  : {sug_steps}")
    print(f"  Learning rate: {sug_lr:g}")
    print("-" * 60)
    print("  Press Enter to confirm, or enter a new value to change it.")
    try:
        s_in = input(f"  Steps [{sug_steps}]: ").strip()
        steps = int(s_in) if s_in else sug_steps
    except Exception:
        steps = sug_steps
    try:
        l_in = input(f"  LR   [{sug_lr:g}]: ").strip()
        lr = float(l_in) if l_in else sug_lr
    except Exception:
        lr = sug_lr
    print(f"  → Selected: {steps} steps, LR {lr:g}")
    # Checkpoint frequency: so a crash in a long run loses less progress
    sug_ckpt = max(0, steps // 5) if steps >= 1000 else 0   # ~5 checkpoints (off for short runs)
    if sug_ckpt:
        print("-" * 60)
        print(f"  Intermediate save (checkpoint): every how many steps? (less loss if it crashes)")
        print(f"  Suggested: {sug_ckpt} (0 = off, save only at the end)")
        try:
            c_in = input(f"  Checkpoint [{sug_ckpt}]: ").strip()
            save_every = int(c_in) if c_in else sug_ckpt
        except Exception:
            save_every = sug_ckpt
    else:
        save_every = 0
    if save_every:
        print(f"  → A checkpoint will be saved every {save_every} steps")
    print("=" * 60)
    want_sound = modelsound.ask_sound(default_yes=True)
    # ── 6) Training: stream (path) or embedded (text) ──
    train_cfg = {
        "n_layer": cfg["n_layer"],
        "n_head" : cfg["n_head"],
        "n_embd" : cfg["n_embd"],
        "block_size": cfg.get("block_size", 256),
        "batch_size": cfg.get("start_batch", 16),   # batch verified during calibration
        "max_steps": steps,
        "learning_rate": lr,
    }
    print("\n  Training starting...\n")
    snd = modelsound.make_sound(want_sound)
    try:
        trn.train(train_cfg, data_text=data_text, tokenizer=tokenizer,
                  data_path=data_path, save_every=save_every, snd=snd)
    finally:
        if snd:
            snd.close()          # never leave the audio stream open, even on Ctrl+C
if __name__ == "__main__":
    main()
