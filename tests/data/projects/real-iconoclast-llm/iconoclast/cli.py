# SPDX-License-Identifier: AGPL-3.0-or-later
# Copyright (C) 2025-2026 Varesh Patel + contributors

"""ICONOCLAST CLI — abliterate any model in one command.

Usage:
    iconoclast abliterate --model Qwen/Qwen2.5-7B-Instruct --output ./my-model
    iconoclast abliterate --model meta-llama/Llama-3.1-8B-Instruct --output ./abliterated --device cuda:0
    iconoclast study              # Full interactive research workflow
    iconoclast serve --model ./my-model --port 8000
    
Results beat HERETIC baseline across all 10 tested models.
See https://github.com/Haadesx/Iconoclast
"""

import argparse
import json
import os
import sys
from pathlib import Path

def main():
    parser = argparse.ArgumentParser(
        prog="iconoclast",
        description="ICONOCLAST — Discriminative representation editing for open-weight LLMs",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    # ── abliterate ──────────────────────────────────────────────────────
    ab = sub.add_parser("abliterate", help="Abliterate a model in one shot")
    ab.add_argument("--model", required=True, help="HuggingFace model ID or local path")
    ab.add_argument("--output", default="./abliterated-model", help="Output directory")
    ab.add_argument("--device", default="auto", help="Device (auto, cuda:0, mps, cpu)")
    ab.add_argument("--good-prompts", default="HuggingFaceH4/ultrafeedback_binarized",
                    help="Dataset for 'good' (benign) prompts")
    ab.add_argument("--bad-prompts", default="walledai/JailbreakBench",
                    help="Dataset for 'bad' (harmful) prompts")
    ab.add_argument("--benign-subspace-rank", type=int, default=0,
                    help="Dimension of benign subspace to preserve (0 = disabled)")
    ab.add_argument("--quantize", choices=["none", "bnb_4bit"], default="none",
                    help="Quantization method")
    ab.add_argument("--merge", action="store_true", default=True,
                    help="Merge LoRA weights into base model")

    # ── study ────────────────────────────────────────────────────────────
    sub.add_parser("study", help="Run the full interactive research workflow")

    # ── serve ────────────────────────────────────────────────────────────
    sv = sub.add_parser("serve", help="Start a demo API server for an abliterated model")
    sv.add_argument("--model", required=True, help="Path to abliterated model")
    sv.add_argument("--port", type=int, default=8000, help="Port to serve on")

    args = parser.parse_args()

    if args.command == "abliterate":
        return cmd_abliterate(args)
    elif args.command == "study":
        return cmd_study(args)
    elif args.command == "serve":
        return cmd_serve(args)


def cmd_abliterate(args):
    """One-shot abliteration with sensible defaults."""
    # Build a temporary config with the right settings
    import tempfile
    config_path = Path(tempfile.mkdtemp()) / "config.toml"

    config = f"""model = "{args.model}"
output_dir = "{args.output}"
device_map = "{args.device}"
quantization = "{args.quantize}"
benign_subspace_rank = {args.benign_subspace_rank}
merge_on_save = {"true" if args.merge else "false"}

dtypes = ["auto", "float16", "bfloat16", "float32"]
seed = 42
batch_size = 0
max_batch_size = 128
max_response_length = 100
print_responses = false
print_residual_geometry = false
plot_residuals = false

direction_variance_floor = 0.0
direction_method = "mean"
orthogonalize_direction = true

objective_regime = "auto"
kl_divergence_target = 0.1
kl_divergence_scale = 1.0

n_trials = 50
hybrid_blend_min = 0.0
hybrid_blend_max = 1.0

[good_prompts]
dataset = "{args.good_prompts}"
name = "default"
split = "train_prefs"
column = "prompt"
prefix = ""
suffix = ""

[bad_prompts]
dataset = "{args.bad_prompts}"
name = "default"
split = "train"
column = "prompt"
prefix = ""
suffix = ""
"""
    config_path.write_text(config)

    print(f"🗡️  ICONOCLAST — abliterating {args.model}")
    print(f"   Output: {args.output}")
    print(f"   Benign subspace rank: {args.benign_subspace_rank}")
    print()

    # Set the config path so Settings picks it up
    os.environ["ICONOCLAST_CONFIG"] = str(config_path)

    # Import and run the core research workflow
    from iconoclast.main import run
    return run()


def cmd_study(args):
    """Full interactive research workflow — delegates to existing main()."""
    from iconoclast.main import run
    return run()


def cmd_serve(args):
    """Start a lightweight inference server for an abliterated model."""
    model_path = Path(args.model)
    if not model_path.exists():
        print(f"Model not found: {model_path}")
        return 1

    try:
        from fastapi import FastAPI
        from pydantic import BaseModel
        import uvicorn
    except ImportError:
        print("Install extra: pip install 'iconoclast-llm[serve]'")
        return 1

    print(f"Loading abliterated model from {model_path}...")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(
        str(model_path), device_map="auto", torch_dtype="auto"
    )
    tokenizer = AutoTokenizer.from_pretrained(str(model_path))

    app = FastAPI(title="ICONOCLAST", version="0.1.0")

    class GenerateRequest(BaseModel):
        prompt: str
        max_tokens: int = 256
        temperature: float = 0.7

    class GenerateResponse(BaseModel):
        response: str

    @app.post("/generate", response_model=GenerateResponse)
    def generate(req: GenerateRequest):
        inputs = tokenizer(req.prompt, return_tensors="pt").to(model.device)
        outputs = model.generate(
            **inputs,
            max_new_tokens=req.max_tokens,
            temperature=req.temperature,
            do_sample=req.temperature > 0,
        )
        response = tokenizer.decode(outputs[0][inputs.input_ids.shape[1]:], skip_special_tokens=True)
        return GenerateResponse(response=response)

    @app.get("/health")
    def health():
        return {"status": "ok", "model": str(model_path)}

    print(f"Serving on http://0.0.0.0:{args.port}")
    print(f"  POST /generate  — generate text")
    print(f"  GET  /health    — health check")
    uvicorn.run(app, host="0.0.0.0", port=args.port)


if __name__ == "__main__":
    sys.exit(main())
