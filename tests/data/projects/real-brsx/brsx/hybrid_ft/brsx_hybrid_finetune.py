"""
==============================================================
  brsx_hybrid_finetune.py  —  fine-tune a hybrid brsx model
==============================================================
Takes a trained hybrid model folder (from brsx_hybrid_train.py) and fine-tunes
it on new data. Two modes, auto-selected by VRAM:
    full  → update ALL weights          (needs more memory)
    lora  → update small adapter matrices only (light, fits small GPUs)

LoRA is applied to EVERY nn.Linear in the model, regardless of block type
(transformer attn/mlp, mamba projections, cnn pointwise, gru internals),
so it works for any hybrid architecture. Before saving, LoRA deltas are
MERGED back into the base weights → the output is a plain hybrid model that
the auto-generated chat.py loads with no LoRA knowledge needed.

Supports resume (checkpoint-based), same idea as training.

Requires: torch, tokenizers
Alongside: brsx_blocks.py, brsx_hybrid.py  (and the model folder to tune)

Run:  python brsx_hybrid_finetune.py
==============================================================
"""

import os, sys, json, time, copy
import torch
import torch.nn as nn
import torch.nn.functional as F

from brsx_hybrid import BrsxHybrid
import modelsound

try:
    from tokenizers import Tokenizer
except ImportError:
    print("[ERROR] 'tokenizers' required:  pip install tokenizers")
    sys.exit(1)

HF_REPO = "brsx-labs/datasets"
HF_FIELDS = ["chat", "code", "general", "math"]


# ─── input helpers ───────────────────────────────────────────────────
def ask(msg, default=None, cast=str):
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


def ask_choice(title, options):
    print(f"\n{title}")
    for k, v in options.items():
        print(f"   {k}) {v}")
    while True:
        c = input(" > Choice: ").strip()
        if c in options:
            return c
        print("   Pick from the list.")


# ─── LoRA: a low-rank adapter wrapped around an existing nn.Linear ────
class LoRALinear(nn.Module):
    """
    Wraps a frozen base Linear and adds a trainable low-rank update:
        y = base(x) + scale * (x @ A^T @ B^T)
    Only A and B train. merge() folds the update back into the base weight.
    """
    def __init__(self, base: nn.Linear, r=8, alpha=16, dropout=0.0):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad = False
        self.r = r
        self.scale = alpha / r
        d_in = base.in_features
        d_out = base.out_features
        self.A = nn.Parameter(torch.zeros(r, d_in))
        self.B = nn.Parameter(torch.zeros(d_out, r))
        nn.init.kaiming_uniform_(self.A, a=5 ** 0.5)
        # B stays zero → adapter starts as identity (no change at step 0)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        out = self.base(x)
        lora = self.drop(x) @ self.A.t() @ self.B.t()
        return out + self.scale * lora

    @torch.no_grad()
    def merge(self):
        """Fold the LoRA delta into the base weight and return the plain Linear."""
        delta = (self.B @ self.A) * self.scale       # (d_out, d_in)
        self.base.weight.data += delta
        return self.base


def _inject_lora(model, r=8, alpha=16, dropout=0.0):
    """Replace every nn.Linear in the model with a LoRALinear wrapper.
    Returns the count injected. Skips the tied head if it shares the embedding
    (tying + LoRA-merge would double-apply)."""
    injected = 0
    # collect (parent, attr_name, module) for all Linear children
    to_wrap = []
    for name, module in model.named_modules():
        # don't touch Linears inside MultiheadAttention — it accesses .weight
        # on its own in/out projections and wrapping them breaks the forward.
        if isinstance(module, nn.MultiheadAttention):
            continue
        for child_name, child in module.named_children():
            if isinstance(child, nn.Linear):
                # skip the LM head if it's weight-tied to the embedding
                full = f"{name}.{child_name}" if name else child_name
                if full == "head" and getattr(model, "head", None) is not None \
                   and model.head.weight is model.tok.weight:
                    continue
                to_wrap.append((module, child_name, child))
    for parent, attr, lin in to_wrap:
        setattr(parent, attr, LoRALinear(lin, r=r, alpha=alpha, dropout=dropout))
        injected += 1
    return injected


def _merge_all_lora(model):
    """Merge every LoRALinear back to a plain Linear (so chat.py loads cleanly)."""
    for name, module in model.named_modules():
        for child_name, child in list(module.named_children()):
            if isinstance(child, LoRALinear):
                setattr(module, child_name, child.merge())


# ─── data streaming (sequential → resumable) ─────────────────────────
def _stream_text(data_path=None, hf_field=None):
    if data_path is not None:
        while True:
            with open(data_path, "r", encoding="utf-8", errors="ignore") as f:
                while True:
                    ch = f.read(1 << 20)
                    if not ch:
                        break
                    yield ch
    else:
        from huggingface_hub import hf_hub_download
        print(f"   Downloading {hf_field}.txt from {HF_REPO}...")
        fp = hf_hub_download(repo_id=HF_REPO, filename=f"{hf_field}.txt",
                             repo_type="dataset")
        print(f"   ✓ {fp}")
        while True:
            with open(fp, "r", encoding="utf-8", errors="ignore") as f:
                while True:
                    ch = f.read(1 << 20)
                    if not ch:
                        break
                    yield ch


def _token_stream(tok, data_path=None, hf_field=None):
    eos = tok.token_to_id("<eos>") or 0
    for chunk in _stream_text(data_path, hf_field):
        for i in tok.encode(chunk).ids:
            yield i
        yield eos


def _batch_iter(gen, batch_size, block_size, device, skip_tokens=0):
    if skip_tokens > 0:
        print(f"  [RESUME] skipping ~{skip_tokens:,} tokens...")
        for _ in range(skip_tokens):
            next(gen)
    need = block_size + 1
    while True:
        rows = []
        for _ in range(batch_size):
            buf = []
            for tid in gen:
                buf.append(tid)
                if len(buf) >= need:
                    break
            if len(buf) < need:
                return
            rows.append(buf)
        data = torch.tensor(rows, dtype=torch.long, device=device)
        yield data[:, :block_size], data[:, 1:block_size + 1]


# ─── VRAM-based mode pick ────────────────────────────────────────────
def _auto_mode(model, device):
    """Full if there's clearly enough VRAM, else LoRA. On CPU → full (LoRA gives
    no memory win without a GPU, and full is simpler)."""
    if device != "cuda":
        return "full"
    free, total = torch.cuda.mem_get_info()
    free_gb = free / 1e9
    n_params = model.n_params()
    # full training ~ needs ~ (params * 4 bytes * ~4 for grad+optimizer states)
    need_gb = n_params * 16 / 1e9
    return "full" if free_gb > need_gb * 1.3 else "lora"


# ─── save (merges LoRA first) ────────────────────────────────────────
def _save(model, tok, config, out_dir, cur_step=None, had_lora=False):
    os.makedirs(out_dir, exist_ok=True)
    if had_lora:
        _merge_all_lora(model)         # fold adapters → plain hybrid model
    conf = dict(config)
    if cur_step is not None:
        conf["last_step"] = cur_step
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, ensure_ascii=False, indent=2)
    torch.save(model.state_dict(), os.path.join(out_dir, "model.pt"))
    tok.save(os.path.join(out_dir, "tokenizer.json"))
    _try_write_chat(out_dir)


def _try_write_chat(out_dir):
    """Reuse the trainer's chat.py generator if it's importable."""
    try:
        import brsx_hybrid_train as HT
        HT._write_chat_py(out_dir)
    except Exception as e:
        print(f"   (chat.py not generated: {e})")


# ─── fine-tune core ──────────────────────────────────────────────────
def _run_ft(model, tok, config, data_path, hf_field, lr, steps, batch_size,
            mode, save_every, out_dir, device, start_step=0, skip_tokens=0,
            warmup=None, verbose=True, clip_norm=1.0, snd=None):
    """Same numerical safeguards as the trainer: gradient clipping, a 1%-of-steps
    warmup, and a non-finite-gradient guard. Fine-tuning needs these just as much —
    arguably more, since a NaN gradient silently kills the LoRA adapters and the
    loss still looks finite, so you'd never know the run was dead."""
    block_size = config["block_size"]
    had_lora = (mode == "lora")

    # only train what should train
    if had_lora:
        params = [p for p in model.parameters() if p.requires_grad]
    else:
        for p in model.parameters():
            p.requires_grad = True
        params = list(model.parameters())

    opt = torch.optim.AdamW(params, lr=lr)
    use_amp = (device == "cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    gen = _token_stream(tok, data_path, hf_field)
    batches = _batch_iter(gen, batch_size, block_size, device, skip_tokens=skip_tokens)

    if warmup is None:
        warmup = max(10, int((steps - start_step) * 0.01))   # 1% of steps

    os.makedirs(out_dir, exist_ok=True)
    model.train()
    t0 = time.time()
    running = 0.0
    running_gn = 0.0
    bad_gn = 0
    log_every = max(10, steps // 20)
    if verbose:
        print(f"  (warmup {warmup} steps = 1% | grad clip "
              f"{'OFF' if not clip_norm else f'max_norm={clip_norm}'})")
    for step in range(start_step + 1, steps + 1):
        cur_lr = lr * min(1.0, (step - start_step) / max(1, warmup))
        for g in opt.param_groups:
            g["lr"] = cur_lr
        try:
            x, y = next(batches)
        except StopIteration:
            print("  [DATA] stream exhausted — stopping."); break
        opt.zero_grad(set_to_none=True)
        if use_amp:
            with torch.amp.autocast("cuda"):
                _, loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)              # AMP scales grads; undo before clip
            grad_norm = torch.nn.utils.clip_grad_norm_(
                params, max_norm=(clip_norm if clip_norm else 1e9))
            # a finite loss can still come with NaN grads — never let those through
            if not torch.isfinite(grad_norm):
                bad_gn += 1
                if snd:
                    snd.step(float("nan"))     # siren: this update was thrown away
                opt.zero_grad(set_to_none=True)
                scaler.update()
                continue
            scaler.step(opt); scaler.update()
        else:
            _, loss = model(x, y)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(
                params, max_norm=(clip_norm if clip_norm else 1e9))
            if not torch.isfinite(grad_norm):
                bad_gn += 1
                opt.zero_grad(set_to_none=True)
                continue
            opt.step()
        running += loss.item()
        running_gn += float(grad_norm)
        if snd:
            snd.step(loss.item())          # pitch tracks the loss, live
        if verbose and (step % log_every == 0 or step == start_step + 1):
            ips = (step - start_step) / (time.time() - t0)
            n = log_every if step != start_step + 1 else 1
            avg = running / n
            avg_gn = running_gn / n
            running = 0.0
            running_gn = 0.0
            print(f"  step {step}/{steps} | loss {avg:.3f} | grad_norm {avg_gn:.2f} "
                  f"| lr {cur_lr:.1e} | {ips:.2f} it/s"
                  + (f" | skipped {bad_gn}" if bad_gn else ""))
        # checkpoint: save a MERGED copy so it's resumable AND usable, but keep
        # training the un-merged adapters in memory (deepcopy for the merge).
        if save_every and step % save_every == 0 and step < steps:
            _checkpoint(model, tok, config, out_dir, step, had_lora)
            if verbose:
                print(f"   [checkpoint] {out_dir}")

    # final save (merges LoRA in place)
    _save(model, tok, config, out_dir, cur_step=steps, had_lora=had_lora)
    if snd:
        snd.play_success_melody()
    if verbose:
        print(f"\n Fine-tune done ({time.time()-t0:.1f}s). Saved → {out_dir}")


def _checkpoint(model, tok, config, out_dir, step, had_lora):
    """Save a resumable checkpoint. For LoRA we merge a DEEPCOPY so training
    continues with adapters intact (merging in-place would freeze progress)."""
    if had_lora:
        snap = copy.deepcopy(model)
        _merge_all_lora(snap)
        conf = dict(config); conf["last_step"] = step
        with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
            json.dump(conf, f, ensure_ascii=False, indent=2)
        torch.save(snap.state_dict(), os.path.join(out_dir, "model.pt"))
        tok.save(os.path.join(out_dir, "tokenizer.json"))
        _try_write_chat(out_dir)
        del snap
    else:
        _save(model, tok, config, out_dir, cur_step=step, had_lora=False)


# ─── load a model folder ─────────────────────────────────────────────
def _load_model(folder, device):
    cfgp = os.path.join(folder, "config.json")
    mp = os.path.join(folder, "model.pt")
    tp = os.path.join(folder, "tokenizer.json")
    for pth, n in ((cfgp, "config.json"), (mp, "model.pt"), (tp, "tokenizer.json")):
        if not os.path.exists(pth):
            raise FileNotFoundError(f"{folder} has no {n}")
    with open(cfgp, encoding="utf-8") as f:
        config = json.load(f)
    tok = Tokenizer.from_file(tp)
    model = BrsxHybrid(config).to(device)
    model.load_state_dict(torch.load(mp, map_location=device))
    return model, tok, config


# ─── main ────────────────────────────────────────────────────────────
def main():
    print("=" * 60)
    print("        brsx Hybrid Fine-tune")
    print("=" * 60)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f" Device: {device}")

    start = ask_choice("Start:", {"1": "fresh fine-tune", "2": "resume a fine-tune"})

    # model to fine-tune
    while True:
        folder = input(" > Model folder to fine-tune: ").strip().strip('"')
        folder = os.path.abspath(os.path.expanduser(folder))
        try:
            model, tok, config = _load_model(folder, device)
            break
        except FileNotFoundError as e:
            print(f"   ! {e}")

    from collections import Counter
    summ = ", ".join(f"{k}×{v}" for k, v in Counter(config["blocks"]).items())
    print(f"   Loaded: {summ} | ~{model.n_params()/1e6:.1f}M params")

    # data
    dp = input(" > Fine-tune data .txt (EMPTY = ready-made dataset): ").strip()
    data_path, hf_field = None, None
    if dp and os.path.exists(dp):
        data_path = dp
    else:
        k = ask_choice("Field:", {str(i+1): f for i, f in enumerate(HF_FIELDS)})
        hf_field = HF_FIELDS[int(k) - 1]

    # mode: auto by VRAM, user can override
    auto = _auto_mode(model, device)
    print(f"\n  Suggested mode (by VRAM): {auto}")
    mk = ask_choice("Fine-tune mode:", {"1": f"auto ({auto})", "2": "full", "3": "lora"})
    mode = auto if mk == "1" else ("full" if mk == "2" else "lora")

    lora_r = 8
    if mode == "lora":
        lora_r = ask("LoRA rank (higher=more capacity)", default=8, cast=int)
        n = _inject_lora(model, r=lora_r, alpha=lora_r * 2)
        model = model.to(device)   # move NEW LoRA params (A,B) onto the device too
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        print(f"   LoRA injected into {n} Linear layers "
              f"| trainable {trainable/1e6:.2f}M / {model.n_params()/1e6:.1f}M")

    lr = ask("Learning rate", default=1e-4 if mode == "full" else 3e-4, cast=float)
    steps = ask("Steps", default=500, cast=int)
    batch = ask("Batch size", default=4, cast=int)
    print("   (grad clipping keeps a spike from one block type wrecking the run)")
    clip = ask("Grad clip norm (0 = off)", default=1.0, cast=float)
    want_sound = modelsound.ask_sound(default_yes=True)

    config["ft_mode"] = mode
    config["max_steps"] = steps
    config["batch_size"] = batch

    start_step, skip_tokens = 0, 0
    if start == "2":
        start_step = int(config.get("last_step", 0))
        skip_tokens = start_step * batch * config["block_size"]
        print(f"   Resuming from step {start_step}")

    save_every = ask("Checkpoint every N steps (0=off)",
                     default=max(1, steps // 5), cast=int)
    out_dir = input(" > Output folder [hybrid_ft_model]: ").strip() or "hybrid_ft_model"
    out_dir = os.path.abspath(os.path.expanduser(out_dir))

    print(f"\n  Fine-tuning ({mode}) {steps} steps → {out_dir}\n")
    snd = modelsound.make_sound(want_sound)
    try:
        _run_ft(model, tok, config, data_path, hf_field, lr, steps, batch, mode,
                save_every, out_dir, device, start_step=start_step,
                skip_tokens=skip_tokens, clip_norm=clip, snd=snd)
    finally:
        if snd:
            snd.close()   # never leave the audio stream open
    print("\nDone.")


if __name__ == "__main__":
    main()
