"""
==============================================================
  AutoForge - Fine-Tune (FT) Tool
==============================================================
Fine-tunes a ready-made language model on your own data.

What does it do?
  - Takes an existing model (your own brsx model OR HuggingFace
    models like Llama/Qwen) and retrains it on your data.
  - This way the model specializes to your data/style.

3 FT types:
  qlora : Quantizes the model to 4-bit and trains. Uses the LEAST memory.
          Up to 3B models on a 6GB GPU. (requires bitsandbytes)
  lora  : Keeps the model in fp16, trains only small "adapter" layers.
          Works flawlessly on Windows. ~1-1.5B models comfortably.
  full  : Trains ALL of the model's weights. Needs a lot of memory,
          only for small models (100-300M).

Setup (one time):
  pip install torch transformers peft accelerate huggingface_hub
  # if you'll use qlora, also:  pip install bitsandbytes

Run:
  python fine_tune.py
  (Everything needed is asked one by one at runtime, no commands to memorize.)
==============================================================
"""

import os
import sys
import torch
from torch.utils.data import Dataset, DataLoader

HF_REPO = "brsx-labs/datasets"
DOMAINS = {
    "1": ("Code (code.txt)",       "code.txt"),
    "2": ("General (general.txt)", "general.txt"),
    "3": ("Math (math.txt)",       "math.txt"),
    "4": ("Chat (chat.txt)",       "chat.txt"),
}


# --------------------------------------------------------------------------
# Input helpers
# --------------------------------------------------------------------------
def ask(msg, default=None, cast=str, hint=None):
    if hint:
        print(f"   ({hint})")
    suffix = f" [{default}]" if default is not None else ""
    while True:
        raw = input(f" > {msg}{suffix}: ").strip()
        if not raw and default is not None:
            return default
        if not raw:
            print("   Please enter a value.")
            continue
        try:
            return cast(raw)
        except ValueError:
            print("   Invalid value, try again.")


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
        print("   Enter one of the numbers from the list.")


def is_local_path(s):
    """Is it a local folder/file, or an HF repo name?"""
    # Full path, starts with ./, or exists on disk -> local
    if os.path.exists(s):
        return True
    if s.startswith((".", "/", "~")) or (len(s) > 1 and s[1] == ":"):
        return True
    # HF repo names are usually "user/model" and don't exist on disk
    return False


# --------------------------------------------------------------------------
# Data: if missing, download from HF
# --------------------------------------------------------------------------
def get_data_path():
    print("\n--- DATA ---")
    print("Training data must be a .txt file.")
    path = input(" > Data file path (leave EMPTY = download a ready-made dataset): ").strip()

    if path:
        if os.path.exists(path):
            print(f"   Data found: {path}")
            return path
        print(f"   '{path}' not found on disk. Switching to a ready-made dataset.")

    dom = ask_choice("Which ready-made dataset should I download?",
                     {k: v[0] for k, v in DOMAINS.items()},
                     hint="downloaded from the brsx-labs/datasets repo")
    fname = DOMAINS[dom][1]

    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        print("Install first:  pip install huggingface_hub")
        sys.exit(1)

    print(f"   Downloading: {HF_REPO}/{fname} ... (large file, please wait)")
    path = hf_hub_download(repo_id=HF_REPO, filename=fname, repo_type="dataset")
    print(f"   Downloaded: {path}")
    return path


# --------------------------------------------------------------------------
# Dataset
# --------------------------------------------------------------------------
class TextDataset(Dataset):
    def __init__(self, path, tokenizer, block=512):
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
        ids = tokenizer(text, return_tensors="pt").input_ids[0]
        n = (len(ids) - 1) // block
        self.blocks = [ids[i * block:(i + 1) * block] for i in range(n)]
        if not self.blocks:
            raise ValueError("Data too short - lower block_size or provide more data.")

    def __len__(self):
        return len(self.blocks)

    def __getitem__(self, i):
        x = self.blocks[i]
        return {"input_ids": x, "labels": x.clone()}


def collate(batch):
    ids = torch.stack([b["input_ids"] for b in batch])
    labels = torch.stack([b["labels"] for b in batch])
    return {"input_ids": ids, "labels": labels}


# --------------------------------------------------------------------------
# Safety/warnings (brsx spirit)
# --------------------------------------------------------------------------
def guard(mode):
    print("\n--- SYSTEM CHECK ---")
    if not torch.cuda.is_available():
        print(" [!] No CUDA (GPU) -> will run on CPU. FT will be very slow.")
        if mode == "qlora":
            print(" [!] qlora does NOT work on CPU. Choose 'lora' or 'full'.")
        return
    free, total = torch.cuda.mem_get_info()
    print(f" GPU: {torch.cuda.get_device_name(0)}")
    print(f" Total VRAM: {total/1e9:.1f} GB | Free: {free/1e9:.1f} GB")
    if mode == "full":
        print(" [!] 'full' needs a lot of memory; only small models (100-300M).")
    if mode == "qlora" and total < 5e9:
        print(" [!] Low VRAM; memory may overflow (OOM) on a large model.")


# --------------------------------------------------------------------------
# Model loading  (if it's a LOCAL path, don't go to HF!)
# --------------------------------------------------------------------------
def load_model_tokenizer(base_model, mode):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    local = is_local_path(base_model)
    if local:
        base_model = os.path.abspath(os.path.expanduser(base_model))
        print(f"   Local model folder: {base_model}")
        if not os.path.exists(base_model):
            print(f" [ERROR] Folder not found: {base_model}")
            sys.exit(1)
    else:
        print(f"   HuggingFace model: {base_model}")

    # local_files_only=local -> if local, NEVER hit the internet/HF,
    # so it won't mistake the folder for a repo name and crash.
    common = dict(trust_remote_code=True, local_files_only=local)

    try:
        tok = AutoTokenizer.from_pretrained(base_model, **common)
    except Exception as e:
        print(f" [ERROR] Could not load tokenizer: {e}")
        if local:
            print("   Does the local folder have tokenizer files? "
                  "(tokenizer.json / tokenizer_config.json / vocab...)")
        sys.exit(1)

    if tok.pad_token is None:
        tok.pad_token = tok.eos_token

    if mode == "qlora":
        try:
            from transformers import BitsAndBytesConfig
            from peft import prepare_model_for_kbit_training
        except ImportError:
            print("For qlora install:  pip install bitsandbytes peft")
            sys.exit(1)
        bnb = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_compute_dtype=torch.float16,
            bnb_4bit_use_double_quant=True,
        )
        model = AutoModelForCausalLM.from_pretrained(
            base_model, quantization_config=bnb, device_map="auto", **common
        )
        model = prepare_model_for_kbit_training(model)
    elif mode == "lora":
        model = AutoModelForCausalLM.from_pretrained(
            base_model, torch_dtype=torch.float16, **common
        ).to("cuda" if torch.cuda.is_available() else "cpu")
    else:  # full
        model = AutoModelForCausalLM.from_pretrained(
            base_model, **common
        ).to("cuda" if torch.cuda.is_available() else "cpu")

    return model, tok


def add_lora(model, mode):
    if mode not in ("qlora", "lora"):
        return model
    from peft import LoraConfig, get_peft_model
    cfg = LoraConfig(
        r=16, lora_alpha=32, lora_dropout=0.05,
        target_modules=["q_proj", "v_proj", "k_proj", "o_proj"],
        bias="none", task_type="CAUSAL_LM",
    )
    try:
        model = get_peft_model(model, cfg)
    except ValueError:
        # This model may have different layer names -> try a narrower set
        cfg.target_modules = ["q_proj", "v_proj"]
        try:
            model = get_peft_model(model, cfg)
        except ValueError:
            print(" [ERROR] LoRA target layers not found.")
            print("   The model architecture may differ. To see the layer names:")
            print("   for n,_ in model.named_modules(): print(n)")
            sys.exit(1)
    model.print_trainable_parameters()
    return model


# --------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------
def train(model, tok, data_path, mode, steps, lr, block, batch, out, save_every):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ds = TextDataset(data_path, tok, block=block)
    dl = DataLoader(ds, batch_size=batch, shuffle=True, collate_fn=collate)
    print(f"\n--- TRAINING STARTS ---")
    print(f" Data: {len(ds)} blocks | block_size={block} | batch={batch}")

    opt = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=lr
    )
    use_amp = (device == "cuda" and mode != "qlora")
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    model.train()
    step = 0
    while step < steps:
        for b in dl:
            ids = b["input_ids"].to(device)
            labels = b["labels"].to(device)
            with torch.cuda.amp.autocast(enabled=use_amp, dtype=torch.float16):
                loss = model(input_ids=ids, labels=labels).loss
            opt.zero_grad(set_to_none=True)
            if use_amp:
                scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
            else:
                loss.backward(); opt.step()

            if step % 20 == 0:
                v = torch.cuda.memory_allocated()/1e9 if device == "cuda" else 0
                print(f" step {step}/{steps} | loss {loss.item():.4f} | VRAM {v:.2f} GB")
            if save_every and step > 0 and step % save_every == 0:
                _save(model, tok, f"{out}_step{step}")
                print(f"   [checkpoint] {out}_step{step}")

            step += 1
            if step >= steps:
                break

    _save(model, tok, out)
    print(f"\n Training finished. Model saved -> {out}")


def _save(model, tok, out):
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)   # for LoRA/QLoRA only the adapter (small file)
    tok.save_pretrained(out)


# --------------------------------------------------------------------------
# main - fully interactive and explanatory
# --------------------------------------------------------------------------
def main():
    print("=" * 60)
    print("            AutoForge - Fine-Tune Tool")
    print("=" * 60)
    print("Retrains a model on your own data (fine-tuning).")

    # 1) Model
    print("\n--- MODEL ---")
    print("The model to fine-tune. Two options:")
    print("  * Your own model -> give a folder path (e.g. C:\\Users\\...\\my_model)")
    print("  * Ready-made     -> give an HuggingFace name (e.g. Qwen/Qwen2.5-0.5B)")
    base_model = ask("Model path or HF name", default="Qwen/Qwen2.5-0.5B")

    # 2) FT type
    mode_key = ask_choice("Choose fine-tune type:", {
        "1": "qlora - Least memory, up to 3B (requires bitsandbytes)",
        "2": "lora  - Flawless on Windows, ~1-1.5B (RECOMMENDED to start)",
        "3": "full  - Trains the whole model, only small models (100-300M)",
    }, hint="If unsure, choose 2 (lora)")
    mode = {"1": "qlora", "2": "lora", "3": "full"}[mode_key]

    # 3) Data
    data_path = get_data_path()

    # 4) Training settings
    print("\n--- TRAINING SETTINGS ---")
    lr = ask("Learning rate", default=2e-4, cast=float,
             hint="2e-4 is usually good. Higher = faster but riskier learning.")
    steps = ask("Max steps (how many steps to train)", default=1000, cast=int,
                hint="The more, the longer it takes and the better it learns.")
    block = ask("block_size (context length)", default=512, cast=int,
                hint="Number of tokens the model sees at once.")
    batch = ask("batch_size", default=1, cast=int,
                hint="On a 6GB GPU 1-2 recommended. Higher may cause OOM.")

    # 5) Checkpoint
    print("\n--- CHECKPOINT (intermediate save) ---")
    print("On long runs the model is saved periodically; you won't lose it on a crash.")
    if steps >= 1000:
        sug = max(1, steps // 5)
        save_every = ask("Save every N steps (0 = off)",
                         default=sug, cast=int)
    else:
        save_every = 0
        print("   Few steps -> checkpointing off.")

    out = ask("Output folder (model is saved here)", default="ft_out")

    # Summary
    print("\n" + "=" * 60)
    print(" SUMMARY")
    print(f"   Model   : {base_model}")
    print(f"   FT type : {mode}")
    print(f"   Data    : {data_path}")
    print(f"   lr={lr} | steps={steps} | block={block} | batch={batch}")
    print(f"   checkpoint={save_every} | output={out}")
    print("=" * 60)
    if input(" Start? (y/n) [y]: ").strip().lower() not in ("", "y", "yes", "e"):
        print("Cancelled."); return

    guard(mode)
    model, tok = load_model_tokenizer(base_model, mode)
    model = add_lora(model, mode)
    train(model, tok, data_path, mode, steps, lr, block, batch, out, save_every)


if __name__ == "__main__":
    main()
