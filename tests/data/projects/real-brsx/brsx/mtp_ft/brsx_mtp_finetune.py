"""
==============================================================
  brsx_mtp_finetune.py  —  Fine-Tune for brsx's MTP models
==============================================================
Fine-tunes a model trained with the MTP branch. The model is BrsxMTP:
a shared trunk + N sequential prediction heads (DeepSeek-V3 style), saved as
mtp_brsx_model/{config.json, model.pt, tokenizer.json}.

SELF-CONTAINED: the only thing it needs from outside is the trained model
folder (mtp_brsx_model/). The model definition, tokenizer loading, data
streaming and batching are all embedded here — no other .py file required.

- Architecture rebuilt IDENTICALLY from config.json (n_pred + mtp_weights kept).
- LoRA is injected into the MLP Linear layers of BOTH the trunk AND every head
  block (covers the whole depth). Not into MultiheadAttention out_proj (PyTorch
  resolves it via .weight, wrapping breaks it) — MLP LoRA is enough.
- 'full' mode trains all weights.
- Interactive: everything asked at runtime, no flags.
- Data: a local .txt, OR streamed from brsx-labs/datasets by field.

Requires:  torch, tokenizers, huggingface_hub   (all in the brsx package deps)

Run:  python brsx_mtp_finetune.py
==============================================================
"""

import os, sys, json, time, math
import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tokenizers import Tokenizer
except ImportError:
    print("[ERROR] the 'tokenizers' package is required:  pip install tokenizers")
    sys.exit(1)


# ─── Constants (mirror of the MTP branch) ────────────────────────────
DATA_LIMIT = 16 * 1024 * 1024          # not used for FT (full stream), kept for parity
HF_REPO    = "brsx-labs/datasets"
HF_FIELDS  = ["chat", "code", "general", "math"]
DEFAULT_MTP_WEIGHTS = [1.0, 0.7, 0.5]  # fallback if config lacks them


# ─── Embedded model definition (identical skeleton to the MTP branch) ─
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
    """Shared trunk + N sequential prediction heads (rebuilt from config)."""
    def __init__(self, config):
        super().__init__()
        self.config = config
        ne = config["n_embd"]; nl = config["n_layer"]; nh = config["n_head"]
        bs = config["block_size"]; V = config["vocab_size"]
        self.n_pred = config["n_pred"]
        self.block_size = bs

        self.tok = nn.Embedding(V, ne)
        self.pos = nn.Embedding(bs, ne)
        n_trunk = max(1, nl - self.n_pred)
        self.trunk = nn.ModuleList([_Block(ne, nh, bs) for _ in range(n_trunk)])
        self.head_blocks = nn.ModuleList([_Block(ne, nh, bs) for _ in range(self.n_pred)])
        self.lnf = nn.LayerNorm(ne)
        self.heads = nn.ModuleList([nn.Linear(ne, V, bias=False) for _ in range(self.n_pred)])

    def forward(self, idx, targets_list=None, weights=None):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.tok(idx) + self.pos(pos)[None]
        for b in self.trunk:
            x = b(x)
        logits_list = [self.heads[k](self.lnf(self.head_blocks[k](x)))
                       for k in range(self.n_pred)]
        if targets_list is None:
            return logits_list
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


# ─── Embedded data streaming (local file or HF, byte-limited optional) ─
def _stream_local_text(path, byte_limit=None):
    read = 0
    with open(path, "r", encoding="utf-8", errors="ignore") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            if byte_limit is not None:
                b = len(chunk.encode("utf-8"))
                if read + b > byte_limit:
                    remain = byte_limit - read
                    yield chunk.encode("utf-8")[:remain].decode("utf-8", errors="ignore")
                    return
                read += b
            yield chunk


def _stream_hf_text(field, byte_limit=None):
    from huggingface_hub import hf_hub_download
    fpath = hf_hub_download(repo_id=HF_REPO, filename=f"{field}.txt",
                            repo_type="dataset")
    yield from _stream_local_text(fpath, byte_limit=byte_limit)


def _get_text_stream(data_path=None, hf_field=None, byte_limit=None):
    if data_path is not None:
        return _stream_local_text(data_path, byte_limit=byte_limit)
    return _stream_hf_text(hf_field, byte_limit=byte_limit)


def _token_stream(tok, data_path=None, hf_field=None):
    """Infinite token stream (rewinds at end). Yields token ids, eos at chunk edges."""
    eos = tok.token_to_id("<eos>")
    if eos is None:
        eos = 0
    while True:
        for chunk in _get_text_stream(data_path, hf_field, byte_limit=None):
            for i in tok.encode(chunk).ids:
                yield i
            yield eos


def _batch_iter(token_gen, batch_size, block_size, n_pred, device):
    """MTP batches: x=(B,T), ys=n_pred shifted (B,T) targets."""
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
                return
            rows.append(buf)
        data = torch.tensor(rows, dtype=torch.long, device=device)
        x = data[:, :block_size]
        ys = [data[:, k:k + block_size] for k in range(1, n_pred + 1)]
        yield x, ys


# ─── Input helpers ───────────────────────────────────────────────────
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


# ─── LoRA ─────────────────────────────────────────────────────────────
class LoRALinear(nn.Module):
    """Wraps an nn.Linear. Original weight frozen; only A,B trained."""
    def __init__(self, base: nn.Linear, r=8, alpha=16, dropout=0.0):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad = False
        self.scale = alpha / r
        self.drop = nn.Dropout(dropout)
        self.A = nn.Linear(base.in_features, r, bias=False)
        self.B = nn.Linear(r, base.out_features, bias=False)
        nn.init.kaiming_uniform_(self.A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.B.weight)

    def forward(self, x):
        return self.base(x) + self.scale * self.B(self.A(self.drop(x)))

    @torch.no_grad()
    def merge(self):
        """Fold the LoRA update into the base weight and return a plain nn.Linear.
        base.weight += scale * (B @ A). After this the layer is indistinguishable
        from an ordinary Linear, so the standard model/chat.py loads it with no
        knowledge of LoRA."""
        delta = self.scale * (self.B.weight @ self.A.weight)   # (out, in)
        merged = nn.Linear(self.base.in_features, self.base.out_features,
                           bias=self.base.bias is not None)
        merged.weight.copy_(self.base.weight + delta)
        if self.base.bias is not None:
            merged.bias.copy_(self.base.bias)
        return merged


def _inject_into_block(block, r, alpha, dropout):
    n = 0
    for i, layer in enumerate(block.mlp):
        if isinstance(layer, nn.Linear):
            block.mlp[i] = LoRALinear(layer, r, alpha, dropout)
            n += 1
    return n


def inject_lora_mtp(model, r=8, alpha=16, dropout=0.05):
    """LoRA into MLP Linears of BOTH the trunk AND every head block."""
    n_trunk = sum(_inject_into_block(blk, r, alpha, dropout) for blk in model.trunk)
    n_heads = sum(_inject_into_block(hb, r, alpha, dropout) for hb in model.head_blocks)
    print(f"   LoRA injected: {n_trunk} (trunk) + {n_heads} (heads) "
          f"= {n_trunk + n_heads} layers")
    if n_trunk + n_heads == 0:
        print("   [!] No LoRA layers injected — block.mlp structure may differ.")
    return model


def _merge_block(block):
    """Replace any LoRALinear in a block's MLP with its merged plain Linear."""
    for i, layer in enumerate(block.mlp):
        if isinstance(layer, LoRALinear):
            block.mlp[i] = layer.merge()


def merge_lora_mtp(model):
    """Merge every LoRA layer back into the weights → model becomes a plain BrsxMTP.
    Must run before saving in LoRA mode so the saved model.pt matches the normal
    architecture (chat.py can load it without knowing LoRA existed)."""
    for blk in model.trunk:
        _merge_block(blk)
    for hb in model.head_blocks:
        _merge_block(hb)
    return model


# ─── Load MTP model + tokenizer ──────────────────────────────────────
def load_mtp(model_dir, device):
    cfgp = os.path.join(model_dir, "config.json")
    mp   = os.path.join(model_dir, "model.pt")
    tp   = os.path.join(model_dir, "tokenizer.json")
    for pth, name in ((cfgp, "config.json"), (mp, "model.pt"), (tp, "tokenizer.json")):
        if not os.path.exists(pth):
            print(f"[ERROR] {model_dir} must contain {name}.")
            sys.exit(1)

    with open(cfgp, encoding="utf-8") as f:
        config = json.load(f)

    if "n_pred" not in config:
        print("[ERROR] config.json has no 'n_pred' — this isn't an MTP model.")
        print("        Use the standard brsx (.pt) fine-tune tool instead.")
        sys.exit(1)

    model = BrsxMTP(config).to(device)
    model.load_state_dict(torch.load(mp, map_location=device))
    print(f"   MTP model loaded: {model.n_params()/1e6:.1f}M params "
          f"| n_pred={config['n_pred']} | n_layer={config['n_layer']} "
          f"n_embd={config['n_embd']} vocab={config['vocab_size']}")

    tok = Tokenizer.from_file(tp)
    return model, config, tok


# ─── Data source prompt ──────────────────────────────────────────────
def get_data_source():
    print("\n--- DATA ---")
    path = input(" > Data .txt path (EMPTY = stream a ready-made dataset): ").strip()
    if path:
        if os.path.exists(path):
            print(f"   Found: {path}")
            return path, None
        print(f"   '{path}' not found, switching to a ready-made dataset.")
    dom = ask_choice("Which field?", {str(i+1): f for i, f in enumerate(HF_FIELDS)})
    field = HF_FIELDS[int(dom) - 1]
    print(f"   Field: {field} (streamed from {HF_REPO})")
    return None, field


# ─── Save ─────────────────────────────────────────────────────────────
def _save(model, tok, config, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    conf = dict(config)
    conf["finetuned"] = True
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, ensure_ascii=False, indent=2)
    torch.save(model.state_dict(), os.path.join(out_dir, "model.pt"))
    tok.save(os.path.join(out_dir, "tokenizer.json"))


# ─── Training ─────────────────────────────────────────────────────────
def train_mtp_ft(model, config, tok, data_path, hf_field, mode,
                 steps, lr, batch, out_dir, save_every, device):
    n_pred = config["n_pred"]
    weights = config.get("mtp_weights", DEFAULT_MTP_WEIGHTS)
    block_size = config["block_size"]

    if mode == "lora":
        params = [p for p in model.parameters() if p.requires_grad]
    else:
        for p in model.parameters():
            p.requires_grad = True
        params = list(model.parameters())
    print(f"   Trainable params: {sum(p.numel() for p in params)/1e6:.2f}M")

    opt = torch.optim.AdamW(params, lr=lr)
    use_amp = (device == "cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    tstream = _token_stream(tok, data_path, hf_field)
    batches = _batch_iter(tstream, batch, block_size, n_pred, device)

    os.makedirs(out_dir, exist_ok=True)
    model.train()
    t0 = time.time()
    running = 0.0
    log_every = 20
    for step in range(1, steps + 1):
        x, ys = next(batches)
        opt.zero_grad(set_to_none=True)
        if use_amp:
            with torch.amp.autocast("cuda"):
                loss, parts = model(x, ys, weights=weights)
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else:
            loss, parts = model(x, ys, weights=weights)
            loss.backward(); opt.step()

        running += loss.item()
        if step % log_every == 0 or step == 1:
            ips = step / (time.time() - t0)
            avg = running / (log_every if step != 1 else 1)
            running = 0.0
            pstr = "/".join(f"{p:.2f}" for p in parts)
            v = torch.cuda.memory_allocated()/1e6 if device == "cuda" else 0
            print(f" step {step}/{steps} | loss {avg:.3f} (heads {pstr}) | {ips:.2f} it/s"
                  + (f" | VRAM {v:.0f}MB" if device == 'cuda' else ""))

        if save_every and step % save_every == 0 and step < steps:
            # checkpoints must also be reloadable → merge a temporary copy in lora mode
            if mode == "lora":
                import copy
                snap = merge_lora_mtp(copy.deepcopy(model))
                _save(snap, tok, config, out_dir)
                del snap
            else:
                _save(model, tok, config, out_dir)
            print(f"   [checkpoint] {out_dir}")

    if mode == "lora":
        merge_lora_mtp(model)          # fold adapters back → plain BrsxMTP
        print("   LoRA merged into weights (saved as a standard model).")
    _save(model, tok, config, out_dir)
    print(f"\n Training finished ({time.time()-t0:.1f}s). Saved -> {out_dir}")


# ─── main ─────────────────────────────────────────────────────────────
def main():
    print("=" * 60)
    print("        brsx MTP Fine-Tune  (for MTP models)")
    print("=" * 60)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f" Device: {device}"
          + (f" ({torch.cuda.get_device_name(0)})" if device == 'cuda' else ""))

    print("\n--- MODEL ---")
    print("Folder of the MTP model to fine-tune")
    print("(model.pt + config.json + tokenizer.json, config must contain n_pred).")
    model_dir = ask("MTP model folder", default="mtp_brsx_model")
    model_dir = os.path.abspath(os.path.expanduser(model_dir))

    model, config, tok = load_mtp(model_dir, device)

    mode_key = ask_choice("FT type:", {
        "1": "lora - Only small adapters trained (fast, low memory, RECOMMENDED)",
        "2": "full - Whole model trained (stronger but more memory)",
    }, hint="If unsure, pick 1 (lora)")
    mode = {"1": "lora", "2": "full"}[mode_key]

    if mode == "lora":
        r = ask("LoRA rank r (typically 4-16)", default=8, cast=int,
                hint="Larger r = more capacity, more params")
        model = inject_lora_mtp(model, r=r, alpha=2*r, dropout=0.05)
        model.to(device)

    data_path, hf_field = get_data_source()

    print("\n--- TRAINING SETTINGS ---")
    lr = ask("Learning rate", default=(2e-4 if mode == "lora" else 5e-5), cast=float,
             hint="2e-4 for LoRA, lower (5e-5) is safer for full FT")
    steps = ask("Max steps", default=1000, cast=int)
    batch = ask("batch_size", default=8, cast=int,
                hint="On 6GB try 4-8; lower it if you hit OOM")

    print("\n--- CHECKPOINT ---")
    if steps >= 1000:
        sug = max(1, steps // 5)
        save_every = ask("Save every N steps (0=off)", default=sug, cast=int)
    else:
        save_every = 0
        print("   Few steps -> checkpointing off.")

    out_dir = ask("Output folder", default="mtp_brsx_model_ft")
    out_dir = os.path.abspath(os.path.expanduser(out_dir))

    print("\n" + "=" * 60)
    print(f" model={model_dir}")
    print(f" mode={mode} | lr={lr} | steps={steps} | batch={batch}")
    print(f" checkpoint={save_every} | output={out_dir}")
    print("=" * 60)
    if input(" Start? (y/n) [y]: ").strip().lower() not in ("", "y", "yes"):
        print("Cancelled."); return

    train_mtp_ft(model, config, tok, data_path, hf_field, mode,
                 steps, lr, batch, out_dir, save_every, device)
    print("\nDone. Fine-tuned MTP model is in the output folder.")


if __name__ == "__main__":
    main()
