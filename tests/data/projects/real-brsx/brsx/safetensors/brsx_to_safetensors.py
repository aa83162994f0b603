"""
==============================================================
  brsx_to_safetensors.py  —  export a model to safetensors
==============================================================
Converts a model's weights to the .safetensors format (safe, fast, widely
supported). Works for brsx models (a folder with model.pt + config.json) and
for plain PyTorch state_dict .pt files.

Why safetensors: no pickle (no arbitrary-code risk), memory-mapped fast loads,
and it's the format most of the ecosystem (HF, etc.) reads.

- brsx model folder → reads model.pt, writes model.safetensors next to it,
  and copies config.json/tokenizer.json alongside so the folder stays complete.
- a single .pt file → writes a .safetensors beside it.

Requires: torch, safetensors   (safetensors is tiny; add it to deps)

Run:  python brsx_to_safetensors.py
==============================================================
"""

import os
import sys
import json
import shutil

import torch

try:
    from safetensors.torch import save_file
except ImportError:
    print("[ERROR] the 'safetensors' package is required:  pip install safetensors")
    sys.exit(1)


def ask(msg, default=None):
    sfx = f" [{default}]" if default is not None else ""
    while True:
        raw = input(f" > {msg}{sfx}: ").strip()
        if not raw and default is not None:
            return default
        if raw:
            return raw
        print("   Enter a value.")


def _contiguous_clean(state_dict):
    """safetensors needs contiguous tensors and plain tensor values.
    Also strips any non-tensor entries that may sneak into a state_dict."""
    clean = {}
    skipped = []
    for k, v in state_dict.items():
        if not torch.is_tensor(v):
            skipped.append(k)
            continue
        clean[k] = v.contiguous().cpu()
    if skipped:
        print(f"   [!] skipped {len(skipped)} non-tensor entries: {skipped[:5]}"
              + (" ..." if len(skipped) > 5 else ""))
    return clean


def _shared_tensor_fix(state_dict):
    """safetensors refuses to save tensors that share memory (e.g. tied weights).
    Clone any tensor that shares storage with another so each is independent."""
    seen_ptrs = {}
    out = {}
    for k, v in state_dict.items():
        ptr = v.data_ptr()
        if ptr in seen_ptrs:
            out[k] = v.clone()          # break the sharing
        else:
            seen_ptrs[ptr] = k
            out[k] = v
    return out


def export_state_dict(state_dict, out_path):
    sd = _contiguous_clean(state_dict)
    sd = _shared_tensor_fix(sd)
    save_file(sd, out_path)
    size_mb = os.path.getsize(out_path) / (1024 * 1024)
    print(f"   Saved: {out_path}  ({size_mb:.1f} MB, {len(sd)} tensors)")


def export_pt_file(pt_path, out_path=None):
    obj = torch.load(pt_path, map_location="cpu")
    # a .pt may be a raw state_dict, or a dict wrapping one
    if isinstance(obj, dict) and all(torch.is_tensor(v) for v in obj.values()):
        sd = obj
    elif isinstance(obj, dict) and "state_dict" in obj:
        sd = obj["state_dict"]
    elif isinstance(obj, dict) and "model" in obj and isinstance(obj["model"], dict):
        sd = obj["model"]
    else:
        # assume it's already a state_dict-like mapping
        sd = obj
    if out_path is None:
        out_path = os.path.splitext(pt_path)[0] + ".safetensors"
    export_state_dict(sd, out_path)
    return out_path


def export_brsx_folder(model_dir):
    mp = os.path.join(model_dir, "model.pt")
    if not os.path.exists(mp):
        print(f"[ERROR] {model_dir} has no model.pt.")
        sys.exit(1)
    out_path = os.path.join(model_dir, "model.safetensors")
    export_pt_file(mp, out_path)
    # keep the folder self-describing: config + tokenizer stay in place (already there)
    for extra in ("config.json", "tokenizer.json"):
        p = os.path.join(model_dir, extra)
        if os.path.exists(p):
            print(f"   (kept {extra})")
    print(f"\n Folder ready: {model_dir}")
    print(" model.safetensors + config.json"
          + (" + tokenizer.json" if os.path.exists(
              os.path.join(model_dir, 'tokenizer.json')) else ""))


def main():
    print("=" * 60)
    print("        brsx → safetensors export")
    print("=" * 60)
    print("Give a brsx model FOLDER (with model.pt) or a single .pt file.")
    src = ask("Model folder or .pt file")
    src = os.path.abspath(os.path.expanduser(src))

    if os.path.isdir(src):
        export_brsx_folder(src)
    elif os.path.isfile(src) and src.endswith(".pt"):
        out = export_pt_file(src)
        print(f"\n Done: {out}")
    else:
        print(f"[ERROR] Not a folder or a .pt file: {src}")
        sys.exit(1)


if __name__ == "__main__":
    main()
