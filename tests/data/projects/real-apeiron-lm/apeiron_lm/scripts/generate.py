#!/usr/bin/env python3
# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
apeiron_lm/scripts/generate.py  (v0.0.2)
==========================================
Command-line text generation with Apeiron LM.

Usage
-----
  # Basic generation
  apeiron-generate --checkpoint runs/my_run/final --prompt "Hello, world!"

  # Creative mode with sampling
  apeiron-generate --checkpoint runs/final \\
      --prompt "Write a short poem about the sea" \\
      --temperature 0.8 --top_p 0.95 --n 5

  # Streaming output
  apeiron-generate --checkpoint runs/final --prompt "Once upon a time" --stream

  # Similarity between two texts
  apeiron-generate --checkpoint runs/final --similarity "cat" "kitten"

  # Encode to latent vector
  apeiron-generate --checkpoint runs/final --encode "The quick brown fox"
"""

from __future__ import annotations

import argparse
import sys
import logging

import torch

from apeiron_lm import ApeironLM
from apeiron_lm.utils import get_device

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog        = "apeiron-generate",
        description = "Generate text with a trained Apeiron LM checkpoint.",
        formatter_class = argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--checkpoint", required=True,
                   help="Path to checkpoint directory saved by model.save().")
    p.add_argument("--device", default=None,
                   help="Device override (e.g. cpu, cuda, cuda:1, mps).")

    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--prompt", default=None,
                      help="Input prompt for text generation.")
    mode.add_argument("--similarity", nargs=2, metavar=("TEXT_A", "TEXT_B"),
                      help="Compute cosine similarity between two texts.")
    mode.add_argument("--encode", default=None,
                      help="Encode text to a latent vector and print it.")

    p.add_argument("--n",           type=int,   default=1,
                   help="Number of independent outputs to generate.")
    p.add_argument("--max_generate", type=int,  default=None,
                   help="Maximum output length in bytes.")
    p.add_argument("--temperature",  type=float, default=1.0)
    p.add_argument("--top_k",        type=int,   default=None)
    p.add_argument("--top_p",        type=float, default=None)
    p.add_argument("--stream",       action="store_true",
                   help="Stream output character by character.")
    p.add_argument("--quiet",        action="store_true",
                   help="Suppress separators and metadata.")
    return p


def main(argv=None):
    args   = build_parser().parse_args(argv)
    device = get_device(args.device)

    model = ApeironLM.load(args.checkpoint, device=device)
    model.eval()

    # ── Similarity mode ────────────────────────────────────────────────────
    if args.similarity:
        import torch.nn.functional as F
        a, b = args.similarity
        va = model.encode(a, device=device)
        vb = model.encode(b, device=device)
        sim = float(F.cosine_similarity(va, vb).item())
        print(f"Cosine similarity({a!r}, {b!r}) = {sim:.6f}")
        return

    # ── Encode mode ────────────────────────────────────────────────────────
    if args.encode:
        v = model.encode(args.encode, device=device)
        print(f"Shape: {tuple(v.shape)}")
        print(v.squeeze(0).cpu().tolist())
        return

    # ── Generation mode ────────────────────────────────────────────────────
    if args.prompt is None:
        print("Error: --prompt, --similarity, or --encode is required.", file=sys.stderr)
        sys.exit(1)

    gen_kwargs = dict(
        max_generate = args.max_generate,
        temperature  = args.temperature,
        top_k        = args.top_k,
        top_p        = args.top_p,
    )

    if args.stream:
        if not args.quiet:
            print("─" * 60)
        for char in model.generate_stream(args.prompt, device=device, **gen_kwargs):
            print(char, end="", flush=True)
        print()
        return

    prompts = [args.prompt] * args.n
    outputs = model.generate_batch(prompts, device=device, **gen_kwargs)

    for i, out in enumerate(outputs, 1):
        if not args.quiet and args.n > 1:
            print(f"─── Output {i}/{args.n} {'─' * (50 - len(str(i)) - len(str(args.n)) - 7)}")
        print(out)
        if not args.quiet and args.n > 1 and i < args.n:
            print()


if __name__ == "__main__":
    main()
