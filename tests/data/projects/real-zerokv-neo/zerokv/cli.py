"""
ZeroKV-Neo CLI — Command-line interface for production serving.

Usage:
    zerokv serve --model Qwen/Qwen2.5-7B-Instruct --port 8000
    zerokv benchmark --model Qwen/Qwen2.5-1.5B-Instruct --device cuda
    zerokv calibrate --model Qwen/Qwen2.5-1.5B-Instruct --domain turkish
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch


def cmd_serve(args):
    """Start ZeroKV-enabled inference server."""
    try:
        from zerokv.hf_spaces_app import build_app
    except ImportError:
        print("Gradio required for serve: pip install gradio")
        sys.exit(1)

    print(f"Starting ZeroKV server with model: {args.model}")
    print(f"Port: {args.port}")
    print(f"Precision mode: {args.precision_mode}")

    app = build_app()
    app.launch(server_name="0.0.0.0", server_port=args.port, share=args.share)


def cmd_benchmark(args):
    """Run quick benchmark."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from zerokv.cache import build_zerokv_cache
    from zerokv.metrics import cleanup_after_inference

    device = torch.device(args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))

    print(f"Loading {args.model} on {device}...")
    tok = AutoTokenizer.from_pretrained(args.model, trust_remote_code=True)
    tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(
        args.model, trust_remote_code=True,
        torch_dtype=torch.float16 if device.type == "cuda" else None,
    ).to(device)

    prompt = "Explain quantum computing in simple terms."
    inputs = tok(prompt, return_tensors="pt").to(device)

    # FP16
    print("FP16 decode...")
    t0 = time.perf_counter()
    with torch.inference_mode():
        out_fp = model.generate(**inputs, max_new_tokens=args.max_tokens, do_sample=False, pad_token_id=tok.pad_token_id)
    dt_fp = time.perf_counter() - t0
    n_fp = int(out_fp.shape[1] - inputs["input_ids"].shape[1])
    tps_fp = round(n_fp / dt_fp, 2) if dt_fp > 0 else 0

    # ZeroKV
    print("ZeroKV decode...")
    cache = build_zerokv_cache(model.config, precision_mode=args.precision_mode)
    t0 = time.perf_counter()
    with torch.inference_mode():
        out_zk = model.generate(**inputs, max_new_tokens=args.max_tokens, do_sample=False, pad_token_id=tok.pad_token_id, past_key_values=cache)
    dt_zk = time.perf_counter() - t0
    n_zk = int(out_zk.shape[1] - inputs["input_ids"].shape[1])
    tps_zk = round(n_zk / dt_zk, 2) if dt_zk > 0 else 0
    cleanup_after_inference()

    print(f"\nResults:")
    print(f"  FP16:  {tps_fp} tok/s ({dt_fp:.2f}s, {n_fp} tokens)")
    print(f"  ZK:    {tps_zk} tok/s ({dt_zk:.2f}s, {n_zk} tokens)")
    if tps_fp > 0:
        print(f"  Ratio: {round(tps_zk / tps_fp, 2)}x")


def cmd_calibrate(args):
    """Run auto-calibration."""
    from benchmarks.auto_calibrate import calibrate
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from benchmarks.auto_calibrate import SAMPLE_TEXTS

    device = torch.device(args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))
    texts = SAMPLE_TEXTS.get(args.domain, SAMPLE_TEXTS["generic"])

    print(f"Calibrating {args.model} on {device}...")
    tok = AutoTokenizer.from_pretrained(args.model, trust_remote_code=True)
    tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(
        args.model, trust_remote_code=True,
        torch_dtype=torch.float16 if device.type == "cuda" else None,
    ).to(device)

    result = calibrate(model, tok, device, texts, args.max_ppl_delta, args.quick)

    if result["best_config"]:
        bc = result["best_config"]
        print(f"\nBest: r_bits={bc['r_bits']}, theta_bits={bc['theta_bits']}, qjl_dim={bc['qjl_dim']}, outlier={bc['outlier_fraction']}, sw={bc['sliding_window']}")
        print(f"ΔPPL: {bc['delta_ppl']}")

    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            json.dump(result, f, indent=2)
        print(f"Saved to {args.output}")


def main():
    ap = argparse.ArgumentParser(prog="zerokv", description="ZeroKV-Neo CLI")
    sub = ap.add_subparsers(dest="command")

    # serve
    p_serve = sub.add_parser("serve", help="Start inference server")
    p_serve.add_argument("--model", default="Qwen/Qwen2.5-7B-Instruct")
    p_serve.add_argument("--port", type=int, default=8000)
    p_serve.add_argument("--precision-mode", action="store_true")
    p_serve.add_argument("--share", action="store_true")
    p_serve.set_defaults(func=cmd_serve)

    # benchmark
    p_bench = sub.add_parser("benchmark", help="Quick benchmark")
    p_bench.add_argument("--model", default="Qwen/Qwen2.5-1.5B-Instruct")
    p_bench.add_argument("--device", default="auto")
    p_bench.add_argument("--max-tokens", type=int, default=64)
    p_bench.add_argument("--precision-mode", action="store_true")
    p_bench.set_defaults(func=cmd_benchmark)

    # calibrate
    p_cal = sub.add_parser("calibrate", help="Auto-calibration")
    p_cal.add_argument("--model", default="Qwen/Qwen2.5-1.5B-Instruct")
    p_cal.add_argument("--device", default="auto")
    p_cal.add_argument("--domain", default="generic")
    p_cal.add_argument("--max-ppl-delta", type=float, default=1.5)
    p_cal.add_argument("--quick", action="store_true")
    p_cal.add_argument("-o", "--output", default="profiles/calibrated.json")
    p_cal.set_defaults(func=cmd_calibrate)

    args = ap.parse_args()
    if hasattr(args, "func"):
        args.func(args)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
