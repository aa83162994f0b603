"""
EGGROLL CLI — Gradient-free fine-tuning from the command line.

Usage:
    eggroll tune gpt2 --reward perplexity --generations 50
    eggroll tune meta-llama/Llama-3.1-8B --reward score.py --target-modules q_proj v_proj
    eggroll tune ./my-model --reward "lambda text: 1.0 if 'yes' in text else 0.0"
    eggroll info gpt2
"""

import argparse
import json
import os
import sys
import textwrap
import time


BANNER = """
 ███████╗ ██████╗  ██████╗ ██████╗  ██████╗ ██╗     ██╗
 ██╔════╝██╔════╝ ██╔════╝ ██╔══██╗██╔═══██╗██║     ██║
 █████╗  ██║  ███╗██║  ███╗██████╔╝██║   ██║██║     ██║
 ██╔══╝  ██║   ██║██║   ██║██╔══██╗██║   ██║██║     ██║
 ███████╗╚██████╔╝╚██████╔╝██║  ██║╚██████╔╝███████╗███████╗
 ╚══════╝ ╚═════╝  ╚═════╝ ╚═╝  ╚═╝ ╚═════╝ ╚══════╝╚══════╝

 Gradient-Free Fine-Tuning for Any Model
"""


def cmd_tune(args):
    """Run gradient-free evolution on a model."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from datasets import load_dataset
    from torch.utils.data import DataLoader
    from eggroll.core import EggrollConfig
    from eggroll.trainer import EggrollTrainer
    from eggroll.rewards import PerplexityReward, TextReward, CustomReward

    print(BANNER)
    print(f"  Model:       {args.model}")
    print(f"  Reward:      {args.reward}")
    print(f"  Generations: {args.generations}")
    print(f"  Population:  {args.population}")
    print(f"  Rank:        {args.rank}")
    print(f"  Sigma:       {args.sigma}")
    print(f"  LR:          {args.lr}")
    if args.target_modules:
        print(f"  Targets:     {args.target_modules}")
    print()

    # vLLM backend — completely different path
    if args.backend == "vllm":
        return cmd_tune_vllm(args)

    # Load model
    print("  Loading model...")
    device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model, trust_remote_code=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token

    model = AutoModelForCausalLM.from_pretrained(
        args.model,
        torch_dtype=torch.float16 if device != "cpu" else torch.float32,
        trust_remote_code=True,
    )

    # Setup reward function
    if args.reward == "perplexity":
        reward_fn = PerplexityReward(tokenizer)
    elif args.reward.endswith(".py"):
        # Load custom reward from file
        import importlib.util
        spec = importlib.util.spec_from_file_location("custom_reward", args.reward)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if hasattr(mod, "reward_fn"):
            reward_fn = CustomReward(mod.reward_fn)
        elif hasattr(mod, "score"):
            reward_fn = TextReward(tokenizer, scorer=mod.score)
        else:
            print(f"  ERROR: {args.reward} must define reward_fn(model, inputs) or score(text)")
            sys.exit(1)
    elif args.reward.startswith("lambda"):
        # Inline lambda for text scoring
        scorer = eval(args.reward)
        reward_fn = TextReward(tokenizer, scorer=scorer)
    else:
        print(f"  ERROR: Unknown reward: {args.reward}")
        print("  Options: perplexity, path/to/score.py, or a lambda expression")
        sys.exit(1)

    # Setup config
    config = EggrollConfig(
        population_size=args.population,
        rank=args.rank,
        sigma=args.sigma,
        lr=args.lr,
        generations=args.generations,
        device=device,
        seed=args.seed,
        target_modules=args.target_modules,
    )

    # Load dataset
    print("  Loading dataset...")
    if args.dataset:
        dataset = load_dataset(args.dataset, split=args.split or "train", streaming=True)
    else:
        dataset = load_dataset("wikitext", "wikitext-2-raw-v1", split="train")

    def tokenize_fn(examples):
        return tokenizer(
            examples["text"],
            truncation=True,
            max_length=config.max_tokens,
            padding="max_length",
            return_tensors="pt",
        )

    # Simple dataloader from dataset
    def collate_batch(batch_texts, batch_size=1):
        texts = [t for t in batch_texts if t.strip()]
        if not texts:
            texts = ["The quick brown fox"]
        encoded = tokenizer(
            texts[:batch_size],
            truncation=True,
            max_length=config.max_tokens,
            padding="max_length",
            return_tensors="pt",
        )
        encoded["labels"] = encoded["input_ids"].clone()
        return encoded

    class SimpleDataLoader:
        def __init__(self, dataset, batch_size=1):
            self.dataset = dataset
            self.batch_size = batch_size
            self._buffer = []

        def __iter__(self):
            self._iter = iter(self.dataset)
            return self

        def __next__(self):
            texts = []
            while len(texts) < self.batch_size:
                try:
                    item = next(self._iter)
                    text = item.get("text", "")
                    if text.strip():
                        texts.append(text)
                except StopIteration:
                    if texts:
                        break
                    raise
            return collate_batch(texts, self.batch_size)

    dataloader = SimpleDataLoader(dataset, batch_size=1)

    # Train
    trainer = EggrollTrainer(model, config, reward_fn, tokenizer)
    results = trainer.evolve(dataloader)

    # Save
    output = args.output or f"./eggroll-{args.model.split('/')[-1]}"
    os.makedirs(output, exist_ok=True)
    trainer.save(output)

    # Save report
    report = {
        "model": args.model,
        "reward": args.reward,
        "config": config.__dict__,
        "best_fitness": results["best_fitness"],
        "total_time": results["total_time"],
        "total_evals": results["total_evals"],
    }
    report_path = os.path.join(output, "eggroll-report.json")
    with open(report_path, "w") as f:
        json.dump(report, f, indent=2, default=str)
    print(f"  Report saved to {report_path}")


def cmd_tune_vllm(args):
    """Run gradient-free evolution using vLLM multi-LoRA backend."""
    import torch
    from eggroll.core import EggrollConfig
    from eggroll.vllm_backend import VllmEggrollTrainer

    print(BANNER)
    print(f"  Model:       {args.model}")
    print(f"  Backend:     vLLM (multi-LoRA parallel evaluation)")
    print(f"  Reward:      {args.reward}")
    print(f"  Generations: {args.generations}")
    print(f"  Population:  {args.population}")
    print()

    config = EggrollConfig(
        population_size=args.population,
        rank=args.rank,
        sigma=args.sigma,
        lr=args.lr,
        generations=args.generations,
        seed=args.seed,
        target_modules=args.target_modules,
    )

    # Build reward function for vLLM (takes lists of outputs + prompts)
    if args.reward == "perplexity":
        # For vLLM, use length + coherence as a proxy (perplexity needs logprobs)
        def reward_fn(outputs, prompts):
            scores = []
            for out in outputs:
                words = out.split()
                score = min(len(words) / 50.0, 1.0)
                unique_ratio = len(set(words)) / max(len(words), 1)
                scores.append(score + unique_ratio)
            return scores
    elif args.reward.endswith(".py"):
        import importlib.util
        spec = importlib.util.spec_from_file_location("custom_reward", args.reward)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if hasattr(mod, "reward_fn"):
            reward_fn = mod.reward_fn
        elif hasattr(mod, "score"):
            scorer = mod.score
            def reward_fn(outputs, prompts):
                return [scorer(o) for o in outputs]
        else:
            print(f"  ERROR: {args.reward} must define reward_fn(outputs, prompts) or score(text)")
            sys.exit(1)
    else:
        print(f"  ERROR: vLLM backend requires reward=perplexity or a .py file")
        sys.exit(1)

    # Default prompts if no dataset
    prompts = [
        "Explain quantum computing in simple terms.",
        "Write a Python function to sort a list.",
        "What are the benefits of exercise?",
        "Describe the process of photosynthesis.",
    ]

    if args.dataset:
        from datasets import load_dataset
        ds = load_dataset(args.dataset, split=args.split or "train", streaming=True)
        prompts = []
        for i, item in enumerate(ds):
            if i >= 20:
                break
            text = item.get("text", item.get("question", item.get("prompt", "")))
            if text.strip():
                prompts.append(text[:512])

    trainer = VllmEggrollTrainer(
        model_id=args.model,
        config=config,
        reward_fn=reward_fn,
    )

    results = trainer.evolve(prompts)

    output = args.output or f"./eggroll-vllm-{args.model.split('/')[-1]}"
    trainer.save_best_adapter(output)
    trainer.cleanup()

    import json
    report = {
        "model": args.model,
        "backend": "vllm",
        "best_fitness": results["best_fitness"],
        "total_time": results["total_time"],
    }
    report_path = os.path.join(output, "eggroll-report.json")
    os.makedirs(output, exist_ok=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=2, default=str)
    print(f"  Report saved to {report_path}")


def cmd_info(args):
    """Show model info and parameter counts."""
    print(BANNER)

    try:
        from transformers import AutoModelForCausalLM, AutoConfig
        config = AutoConfig.from_pretrained(args.model, trust_remote_code=True)
        print(f"  Model:          {args.model}")
        print(f"  Architecture:   {config.architectures[0] if config.architectures else 'unknown'}")
        print(f"  Hidden size:    {getattr(config, 'hidden_size', 'N/A')}")
        print(f"  Num layers:     {getattr(config, 'num_hidden_layers', 'N/A')}")
        print(f"  Vocab size:     {getattr(config, 'vocab_size', 'N/A')}")

        h = getattr(config, 'hidden_size', 0)
        n = getattr(config, 'num_hidden_layers', 0)
        v = getattr(config, 'vocab_size', 0)
        if h and n and v:
            params = 12 * n * h * h + v * h
            print(f"  Est. params:    {params/1e9:.1f}B" if params > 1e9 else f"  Est. params:    {params/1e6:.0f}M")

            # Estimate EGGROLL memory at various population sizes
            print()
            print("  EGGROLL Memory Estimates (rank=8):")
            for pop in [64, 256, 1024]:
                # Each perturbation: 2 * D * rank * 4 bytes (float32)
                pert_bytes = 2 * params * 8 * 4 * pop
                print(f"    Pop {pop:>5}: {pert_bytes/1e9:.1f} GB perturbation memory")

    except Exception as e:
        print(f"  ERROR: {e}")


def main():
    parser = argparse.ArgumentParser(
        description="EGGROLL — Gradient-Free Fine-Tuning for Any Model",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=textwrap.dedent("""\
            Examples:
              eggroll tune gpt2 --reward perplexity --generations 50
              eggroll tune meta-llama/Llama-3.1-8B --reward score.py --target-modules q_proj v_proj
              eggroll tune ./my-model --reward "lambda text: 1.0 if 'yes' in text else 0.0"
              eggroll info gpt2
        """),
    )

    subparsers = parser.add_subparsers(dest="command")

    # tune
    tune_parser = subparsers.add_parser("tune", help="Evolve/fine-tune a model")
    tune_parser.add_argument("model", help="HuggingFace model ID or local path")
    tune_parser.add_argument("--reward", "-r", default="perplexity",
                             help="Reward function: perplexity, path/to/score.py, or lambda (default: perplexity)")
    tune_parser.add_argument("--generations", "-g", type=int, default=100,
                             help="Number of evolution generations (default: 100)")
    tune_parser.add_argument("--population", "-p", type=int, default=64,
                             help="Population size per generation (default: 64)")
    tune_parser.add_argument("--rank", type=int, default=8,
                             help="Rank of low-rank perturbations (default: 8)")
    tune_parser.add_argument("--sigma", type=float, default=0.01,
                             help="Noise standard deviation (default: 0.01)")
    tune_parser.add_argument("--lr", type=float, default=0.001,
                             help="Learning rate (default: 0.001)")
    tune_parser.add_argument("--output", "-o", default=None,
                             help="Output directory (default: ./eggroll-<model>)")
    tune_parser.add_argument("--dataset", "-d", default=None,
                             help="HuggingFace dataset (default: wikitext-2)")
    tune_parser.add_argument("--split", default="train",
                             help="Dataset split (default: train)")
    tune_parser.add_argument("--seed", type=int, default=42, help="Random seed")
    tune_parser.add_argument("--target-modules", nargs="+", default=None,
                             help="Only evolve layers matching these patterns (e.g. q_proj v_proj)")
    tune_parser.add_argument("--backend", choices=["pytorch", "vllm"], default="pytorch",
                             help="Backend: pytorch (sequential) or vllm (parallel via multi-LoRA)")

    # info
    info_parser = subparsers.add_parser("info", help="Show model info")
    info_parser.add_argument("model", help="HuggingFace model ID or local path")

    args = parser.parse_args()

    if args.command == "tune":
        cmd_tune(args)
    elif args.command == "info":
        cmd_info(args)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
