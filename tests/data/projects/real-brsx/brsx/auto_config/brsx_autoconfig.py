"""
==============================================================
  brsx_autoconfig.py  —  "just the config" tool
==============================================================
Tells you which model your hardware can handle, WITHOUT training it.

It runs brsx_calibrate (which briefly probes the GPU/CPU by measuring
real speed/memory — a few short steps, not a full training run) and then
prints the resulting config. Optionally saves it as config.json so you can
reuse it later.

Pick a mode:
  min  → small + fast
  mid  → balanced
  max  → the safe largest for this hardware
  my   → give your own target parameter count

Must be importable / in the same folder:  brsx_calibrate.py

Run:  python brsx_autoconfig.py
==============================================================
"""

import os
import sys
import json

import torch

try:
    import brsx_calibrate as cal
except ImportError:
    print("[ERROR] brsx_calibrate.py must be in the same folder.")
    sys.exit(1)


def _ask_mode() -> str:
    print("-" * 60)
    print("  min  → small + fast")
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
    """Target parameter count for 'my' mode. Accepts '40M', '40000000', '1.5B'."""
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


def _print_config(cfg: dict, mode: str, device: str):
    print("\n" + "=" * 60)
    print("  SUGGESTED CONFIG")
    print("=" * 60)
    print(f"  Device     : {device}")
    print(f"  Mode       : {mode}")
    print(f"  Parameters : ~{cfg.get('n_params', 0)/1e6:.1f}M")
    print(f"  n_embd     : {cfg.get('n_embd')}")
    print(f"  n_layer    : {cfg.get('n_layer')}")
    print(f"  n_head     : {cfg.get('n_head')}")
    print(f"  ctx        : {cfg.get('block_size', '?')}")
    if cfg.get("start_batch"):
        print(f"  batch      : {cfg['start_batch']} (verified during calibration)")
    if cfg.get("measured_ips"):
        print(f"  Measured   : {cfg['measured_ips']:.2f} it/s")
    if cfg.get("mem_frac"):
        print(f"  Memory     : {int(cfg['mem_frac']*100)}% of VRAM")
    if cfg.get("capped_to_max"):
        print(f"  NOTE       : your request exceeded the ceiling, pulled to max")
    if cfg.get("memory_limited"):
        print(f"  NOTE       : device very constrained, minimal config returned")
    print("=" * 60)


def _clean_for_save(cfg: dict, mode: str, device: str) -> dict:
    """Keep just the architecture fields worth persisting."""
    out = {
        "n_embd": cfg.get("n_embd"),
        "n_layer": cfg.get("n_layer"),
        "n_head": cfg.get("n_head"),
        "block_size": cfg.get("block_size"),
        "n_params": cfg.get("n_params"),
        "mode": mode,
        "device": device,
    }
    if cfg.get("start_batch"):
        out["start_batch"] = cfg["start_batch"]
    return out


def main():
    print("=" * 60)
    print("        brsx AutoConfig  (config only, no training)")
    print("=" * 60)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"  Device: {device}"
          + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else ""))
    if device == "cpu":
        print("  [!] No CUDA GPU detected → sizing for CPU (models will be small).")
        print("      For a GPU, install a CUDA build of torch.")

    mode = _ask_mode()

    print("\n  Measuring hardware, please wait...")
    print("  (this briefly runs a few probe steps — not a full training run)\n")

    if mode == "my":
        target = _ask_target_params()
        print()
        cfg = cal.calibrate_to_params(target, device)
    else:
        cfg = cal.calibrate(mode, device)

    _print_config(cfg, mode, device)

    # Ask whether to save
    ans = input("\n  Save this as config.json? (y/n) [n]: ").strip().lower()
    if ans in ("y", "yes"):
        out_path = input("  Path [config.json]: ").strip() or "config.json"
        data = _clean_for_save(cfg, mode, device)
        with open(out_path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
        print(f"  Saved → {os.path.abspath(out_path)}")
    else:
        print("  Not saved.")


if __name__ == "__main__":
    main()
