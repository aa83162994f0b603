"""Command-Line Interface (CLI) for fiveattn."""

import argparse
import sys
import torch

from fiveattn.config import ModelConfig, TrainConfig
from fiveattn.model import TransformerLM
from fiveattn.train import train
from fiveattn.benchmark import compare_models, verify_compilation
from fiveattn.generate import generate_text, load_model_from_checkpoint
from fiveattn.dataset import prepare_tinystories


def cmd_count_params(args: argparse.Namespace):
    """Displays parameter breakdown and comparison."""
    mha_cfg = ModelConfig.get_100m_mha_config()
    five_cfg = ModelConfig.get_100m_fiveattn_config()

    mha_model = TransformerLM(mha_cfg)
    five_model = TransformerLM(five_cfg)

    mha_actual = sum(p.numel() for p in mha_model.parameters())
    five_actual = sum(p.numel() for p in five_model.parameters())

    mha_counts = mha_cfg.count_parameters()
    five_counts = five_cfg.count_parameters()

    print("\n" + "=" * 80)
    print("                    100M PARAMETER BALANCED CONFIGURATION")
    print("=" * 80)
    print(f"{'Component':<25} | {'MHA-100M':<25} | {'5-Component Attention 100M':<25}")
    print("-" * 80)
    print(f"{'Vocab Size':<25} | {mha_cfg.vocab_size:<25} | {five_cfg.vocab_size:<25}")
    print(f"{'Layers':<25} | {mha_cfg.n_layers:<25} | {five_cfg.n_layers:<25}")
    print(f"{'Hidden Dimension (d_model)':<25} | {mha_cfg.d_model:<25} | {five_cfg.d_model:<25}")
    print(f"{'Attention Heads':<25} | {mha_cfg.n_heads:<25} | {five_cfg.n_heads:<25}")
    print(f"{'Head Dimension':<25} | {mha_cfg.head_dim:<25} | {five_cfg.head_dim:<25}")
    print(f"{'MLP Hidden Dimension':<25} | {mha_cfg.mlp_hidden_dim:<25} | {five_cfg.mlp_hidden_dim:<25}")
    print(f"{'Attention Projections':<25} | {'4 (Q, K, V, O)':<25} | {'5 (Q, K, V, Gate, O)':<25}")
    print("-" * 80)
    print(f"{'Embedding Params':<25} | {mha_counts['embeddings']:<25,} | {five_counts['embeddings']:<25,}")
    print(f"{'Attention Params':<25} | {mha_counts['attention']:<25,} | {five_counts['attention']:<25,}")
    print(f"{'SwiGLU MLP Params':<25} | {mha_counts['mlp']:<25,} | {five_counts['mlp']:<25,}")
    print(f"{'RMSNorm Params':<25} | {mha_counts['norms']:<25,} | {five_counts['norms']:<25,}")
    print("-" * 80)
    print(f"{'Total Theoretical':<25} | {mha_counts['total']:<25,} | {five_counts['total']:<25,}")
    print(f"{'Total Instantiated':<25} | {mha_actual:<25,} | {five_actual:<25,}")
    print("=" * 80)
    print(f"Match: {mha_actual == five_actual == 99994176} (Exact 99,994,176 parameters for both models!)\n")


def cmd_verify_compile(args: argparse.Namespace):
    """Verifies zero compilation graph breaks using TorchDynamo."""
    print("\nVerifying TorchDynamo compilation for both models...")
    for model_name, cfg in [
        ("MHA-100M", ModelConfig.get_debug_config(attention_type="mha")),
        ("5-Component Attention 100M", ModelConfig.get_debug_config(attention_type="fiveattn")),
    ]:
        print(f"\n--- Checking {model_name} ---")
        model = TransformerLM(cfg)
        res = verify_compilation(model, seq_len=args.seq_len)
        print(f"  Hidden States Graph Breaks: {res['hidden_states_graph_breaks']}")
        print(f"  Hidden States Graphs:       {res['hidden_states_graphs']}")
        print(f"  Full Model Graph Breaks:    {res['full_model_graph_breaks']}")
        print(f"  Full Model Graphs:          {res['full_model_graphs']}")
        print(f"  Compilation Status:         {'PASSED (ZERO GRAPH BREAKS)' if res['is_clean'] else 'FAILED'}")
        if not res["is_clean"]:
            sys.exit(1)

    print("\nAll models compiled cleanly with ZERO graph breaks!\n")


def cmd_benchmark(args: argparse.Namespace):
    """Runs performance and throughput benchmark comparing both models."""
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype_map = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
    chosen_dtype = dtype_map.get(args.dtype, None) if args.dtype else None

    report = compare_models(
        batch_size=args.batch_size,
        seq_len=args.seq_len,
        num_steps=args.steps,
        device_str=device,
        use_compile=args.compile,
    )
    print(report)


def cmd_prepare_data(args: argparse.Namespace):
    """Pre-tokenizes TinyStories on the remote machine."""
    print(f"Starting data preparation on remote...")
    out_file = prepare_tinystories(
        output_dir=args.output_dir,
        split=args.split,
        max_samples=args.max_samples,
        tokenizer_name=args.tokenizer,
    )
    print(f"Dataset successfully prepared at: {out_file}")


def cmd_train(args: argparse.Namespace):
    """Runs model training on TinyStories."""
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")

    if args.model == "fiveattn":
        cfg = ModelConfig.get_100m_fiveattn_config(max_seq_len=args.seq_len)
    else:
        cfg = ModelConfig.get_100m_mha_config(max_seq_len=args.seq_len)

    model = TransformerLM(cfg)

    train_cfg = TrainConfig(
        batch_size=args.batch_size,
        seq_len=args.seq_len,
        learning_rate=args.lr,
        max_steps=args.steps,
        eval_interval=args.eval_interval,
        save_interval=args.save_interval,
        checkpoint_dir=args.checkpoint_dir,
        device=device,
        dtype=args.dtype,
        compile=args.compile,
        compile_mode=args.compile_mode,
        autotune=args.autotune,
    )

    train(
        model=model,
        train_config=train_cfg,
        train_data_path=args.data_path,
        val_data_path=args.val_data_path,
        synthetic=args.synthetic,
    )


def cmd_generate(args: argparse.Namespace):
    """Generates text from a prompt."""
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")

    if args.checkpoint:
        print(f"Loading model checkpoint from {args.checkpoint}...")
        model = load_model_from_checkpoint(args.checkpoint, device=device)
    else:
        print(f"Initializing {args.model.upper()} model for prompt generation...")
        if args.model == "fiveattn":
            cfg = ModelConfig.get_100m_fiveattn_config()
        else:
            cfg = ModelConfig.get_100m_mha_config()
        model = TransformerLM(cfg).to(torch.device(device))

    text = generate_text(
        model=model,
        prompt=args.prompt,
        max_new_tokens=args.max_tokens,
        temperature=args.temperature,
        top_k=args.top_k,
    )
    print("\nGenerated Text:\n")
    print(text)
    print()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fiveattn",
        description="CLI for FiveAttn (5-Component Attention) and MHA 100M Transformers",
    )
    subparsers = parser.add_subparsers(dest="command", help="Available commands")

    # count-params
    subparsers.add_parser("count-params", help="Show exact parameter counts for both 100M models")

    # verify-compile
    verify_p = subparsers.add_parser("verify-compile", help="Verify zero compilation graph breaks")
    verify_p.add_argument("--seq-len", type=int, default=64, help="Sequence length for verification")

    # benchmark
    bench_p = subparsers.add_parser("benchmark", help="Run comparative benchmark")
    bench_p.add_argument("--batch-size", type=int, default=4, help="Batch size")
    bench_p.add_argument("--seq-len", type=int, default=128, help="Sequence length")
    bench_p.add_argument("--steps", type=int, default=10, help="Number of benchmark steps")
    bench_p.add_argument("--device", type=str, default=None, help="Device (cuda or cpu)")
    bench_p.add_argument("--dtype", type=str, choices=["bfloat16", "float16", "float32"], default=None, help="Precision dtype")
    bench_p.add_argument("--compile", action="store_true", help="Compile models with torch.compile")

    # prepare-data (for remote pre-tokenization)
    prep_p = subparsers.add_parser("prepare-data", help="Download and pre-tokenize TinyStories on remote")
    prep_p.add_argument("--output-dir", type=str, default="data/tinystories", help="Output directory for .bin files")
    prep_p.add_argument("--split", type=str, choices=["train", "validation"], default="train", help="Dataset split")
    prep_p.add_argument("--max-samples", type=int, default=None, help="Max stories to tokenize (optional limit)")
    prep_p.add_argument("--tokenizer", type=str, default="HuggingFaceTB/SmolLM-135M", help="Tokenizer name or path")

    # train
    train_p = subparsers.add_parser("train", help="Train 100M model on TinyStories")
    train_p.add_argument("--model", type=str, choices=["fiveattn", "mha"], default="fiveattn", help="Model architecture")
    train_p.add_argument("--steps", type=int, default=2000, help="Number of training steps")
    train_p.add_argument("--batch-size", type=int, default=16, help="Batch size")
    train_p.add_argument("--seq-len", type=int, default=512, help="Sequence length")
    train_p.add_argument("--lr", type=float, default=5e-4, help="Learning rate")
    train_p.add_argument("--eval-interval", type=int, default=250, help="Eval interval")
    train_p.add_argument("--save-interval", type=int, default=500, help="Save interval")
    train_p.add_argument("--checkpoint-dir", type=str, default="checkpoints", help="Checkpoint directory")
    train_p.add_argument("--data-path", type=str, default=None, help="Path to pre-tokenized train .bin file")
    train_p.add_argument("--val-data-path", type=str, default=None, help="Path to pre-tokenized val .bin file")
    train_p.add_argument("--device", type=str, default=None, help="Device (cuda or cpu)")
    train_p.add_argument("--dtype", type=str, choices=["bfloat16", "float16", "float32"], default="bfloat16", help="Precision dtype (default: bfloat16)")
    train_p.add_argument("--compile", action="store_true", help="Compile model with torch.compile")
    train_p.add_argument("--compile-mode", type=str, default="default", help="torch.compile mode")
    train_p.add_argument("--autotune", action="store_true", help="Enable PyTorch Inductor max-autotune")
    train_p.add_argument("--synthetic", action="store_true", help="Use synthetic data (for fast offline runs)")

    # generate
    gen_p = subparsers.add_parser("generate", help="Generate text continuation")
    gen_p.add_argument("--prompt", type=str, default="Once upon a time, a little girl named Lily", help="Text prompt")
    gen_p.add_argument("--checkpoint", type=str, default=None, help="Path to checkpoint file")
    gen_p.add_argument("--model", type=str, choices=["fiveattn", "mha"], default="fiveattn", help="Model type if no checkpoint")
    gen_p.add_argument("--max-tokens", type=int, default=50, help="Maximum new tokens to generate")
    gen_p.add_argument("--temperature", type=float, default=0.8, help="Sampling temperature")
    gen_p.add_argument("--top-k", type=int, default=50, help="Top-K sampling")
    gen_p.add_argument("--device", type=str, default=None, help="Device (cuda or cpu)")

    return parser


def main():
    parser = build_parser()
    args = parser.parse_args()

    if args.command == "count-params":
        cmd_count_params(args)
    elif args.command == "verify-compile":
        cmd_verify_compile(args)
    elif args.command == "benchmark":
        cmd_benchmark(args)
    elif args.command == "prepare-data":
        cmd_prepare_data(args)
    elif args.command == "train":
        cmd_train(args)
    elif args.command == "generate":
        cmd_generate(args)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
