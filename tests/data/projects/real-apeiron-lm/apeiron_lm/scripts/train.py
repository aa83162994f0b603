#!/usr/bin/env python3
# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
apeiron_lm/scripts/train.py  (v0.0.2)
=======================================
Command-line interface for training Apeiron LM.

Usage
-----
apeiron-train \\
    --output_dir runs/my_run \\
    --model_size base \\
    --num_epochs 10 \\
    --batch_size 32 \\
    --learning_rate 3e-4 \\
    --mixed_precision bf16 \\
    --curriculum_steps 2000

Tip: use --warmup_prototypes to k-means initialise the prototype bank
before training (recommended):
    apeiron-train ... --warmup_prototypes
"""

from __future__ import annotations

import argparse
import logging
import sys

import torch
from torch.utils.data import Dataset

from apeiron_lm import ApeironLM, ApeironConfig
from apeiron_lm.training import ApeironTrainer, TrainingArguments
from apeiron_lm.utils import set_seed

logging.basicConfig(
    format  = "[%(asctime)s] %(levelname)s %(name)s — %(message)s",
    datefmt = "%Y-%m-%d %H:%M:%S",
    level   = logging.INFO,
    stream  = sys.stdout,
)
logger = logging.getLogger("apeiron_lm.train")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog        = "apeiron-train",
        description = "Train an Apeiron LM model.",
        formatter_class = argparse.ArgumentDefaultsHelpFormatter,
    )

    # Model
    g = p.add_argument_group("Model")
    g.add_argument("--model_size", default="base",
                   choices=["tiny", "small", "base", "large"])
    g.add_argument("--latent_dim",     type=int,   default=None)
    g.add_argument("--encoder_layers", type=int,   default=None)
    g.add_argument("--encoder_heads",  type=int,   default=None)
    g.add_argument("--n_max",          type=int,   default=None)
    g.add_argument("--conv_kernel",    type=int,   default=None,
                   help="Causal DW-conv kernel (0=disable, default follows preset).")
    g.add_argument("--resume_from",    default=None,
                   help="Resume from a checkpoint directory.")

    # Data
    g = p.add_argument_group("Data")
    g.add_argument("--dataset_name",   default=None)
    g.add_argument("--dataset_config", default=None)
    g.add_argument("--text_column",    default="text")
    g.add_argument("--train_file",     default=None)
    g.add_argument("--eval_file",      default=None)
    g.add_argument("--max_input_length",  type=int, default=512)
    g.add_argument("--max_target_length", type=int, default=512)

    # Training
    g = p.add_argument_group("Training")
    g.add_argument("--output_dir",     default="runs/apeiron_lm")
    g.add_argument("--num_epochs",     type=int,   default=3)
    g.add_argument("--batch_size",     type=int,   default=16)
    g.add_argument("--learning_rate",  type=float, default=3e-4)
    g.add_argument("--weight_decay",   type=float, default=0.01)
    g.add_argument("--max_grad_norm",  type=float, default=1.0)
    g.add_argument("--warmup_steps",   type=int,   default=100)
    g.add_argument("--lr_scheduler",   default="cosine",
                   choices=["cosine", "linear", "constant"])
    g.add_argument("--grad_accum",     type=int,   default=1)
    g.add_argument("--mixed_precision", default="no",
                   choices=["no", "fp16", "bf16"])
    g.add_argument("--label_smoothing", type=float, default=0.0)
    g.add_argument("--save_steps",     type=int, default=500)
    g.add_argument("--eval_steps",     type=int, default=500)
    g.add_argument("--logging_steps",  type=int, default=50)
    g.add_argument("--save_total_limit", type=int, default=3)
    g.add_argument("--seed",           type=int, default=42)
    g.add_argument("--report_to",      nargs="+", default=[],
                   choices=["tensorboard", "wandb"])

    # Curriculum (NEW v0.0.2)
    g = p.add_argument_group("Curriculum (v0.0.2)")
    g.add_argument("--curriculum_start_length", type=int, default=32,
                   help="Target length at the start of training.")
    g.add_argument("--curriculum_steps",        type=int, default=2000,
                   help="Steps to ramp from start_length to max_target_length. 0=disable.")

    # Prototype warm-start (NEW v0.0.2)
    g = p.add_argument_group("Prototype warm-start (v0.0.2)")
    g.add_argument("--warmup_prototypes", action="store_true",
                   help="Run k-means warm-start on prototype bank before training.")
    g.add_argument("--warmup_batches",    type=int, default=50,
                   help="Number of batches to collect for k-means warm-start.")

    return p


class TextLineDataset(Dataset):
    """One UTF-8 encoded line = one training example (input = target)."""

    def __init__(self, path: str, max_len: int = 512) -> None:
        self.examples = []
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                b = list(line.encode("utf-8"))[:max_len]
                t = torch.tensor(b, dtype=torch.long)
                self.examples.append({
                    "input_bytes":   t,
                    "target_bytes":  t,
                    "target_length": len(b),
                })

    def __len__(self):        return len(self.examples)
    def __getitem__(self, i): return self.examples[i]


def load_hf_dataset_as_torch(
    dataset_name:   str,
    dataset_config: str | None,
    text_column:    str,
    max_len:        int,
) -> tuple:
    try:
        from datasets import load_dataset
    except ImportError:
        raise ImportError(
            "HuggingFace `datasets` is required for --dataset_name. "
            "Install with: pip install datasets"
        )

    raw = load_dataset(dataset_name, dataset_config)

    class _HFDataset(Dataset):
        def __init__(self, split):
            self.data = raw[split]

        def __len__(self):
            return len(self.data)

        def __getitem__(self, i):
            text = self.data[i][text_column] or ""
            b    = list(text.encode("utf-8"))[:max_len]
            if not b:
                b = [0]
            t = torch.tensor(b, dtype=torch.long)
            return {"input_bytes": t, "target_bytes": t, "target_length": len(b)}

    train_ds = _HFDataset("train")
    eval_ds  = _HFDataset("validation") if "validation" in raw else None
    return train_ds, eval_ds


def main(argv=None):
    parser = build_parser()
    cli    = parser.parse_args(argv)

    set_seed(cli.seed)
    logger.info("Seed: %d", cli.seed)

    # ── Model ──────────────────────────────────────────────────────────────
    if cli.resume_from:
        logger.info("Resuming from checkpoint: %s", cli.resume_from)
        model = ApeironLM.load(cli.resume_from)
    else:
        cfg_map = {
            "tiny":  ApeironConfig.tiny,
            "small": ApeironConfig.small,
            "base":  ApeironConfig.base,
            "large": ApeironConfig.large,
        }
        config    = cfg_map[cli.model_size]()
        overrides = {}
        if cli.latent_dim:     overrides["latent_dim"]     = cli.latent_dim
        if cli.encoder_layers: overrides["encoder_layers"] = cli.encoder_layers
        if cli.encoder_heads:  overrides["encoder_heads"]  = cli.encoder_heads
        if cli.n_max:          overrides["n_max"]           = cli.n_max
        if cli.conv_kernel is not None:
            overrides["conv_kernel"] = cli.conv_kernel
        if overrides:
            config = config.copy(**overrides)
        model = ApeironLM(config)

    counts = model.param_count()
    logger.info("Model: %s (%s params)", cli.model_size, f"{counts['total']:,}")

    # ── Data ───────────────────────────────────────────────────────────────
    if cli.dataset_name:
        logger.info("Loading HF dataset: %s / %s", cli.dataset_name, cli.dataset_config)
        train_ds, eval_ds = load_hf_dataset_as_torch(
            cli.dataset_name, cli.dataset_config, cli.text_column,
            max_len=cli.max_input_length,
        )
    elif cli.train_file:
        logger.info("Loading text file: %s", cli.train_file)
        train_ds = TextLineDataset(cli.train_file, max_len=cli.max_input_length)
        eval_ds  = (
            TextLineDataset(cli.eval_file, max_len=cli.max_input_length)
            if cli.eval_file else None
        )
    else:
        logger.error("No data source. Use --dataset_name or --train_file.")
        sys.exit(1)

    logger.info("Train size: %d", len(train_ds))
    if eval_ds:
        logger.info("Eval  size: %d", len(eval_ds))

    # ── Training arguments ─────────────────────────────────────────────────
    training_args = TrainingArguments(
        output_dir                  = cli.output_dir,
        num_epochs                  = cli.num_epochs,
        batch_size                  = cli.batch_size,
        learning_rate               = cli.learning_rate,
        weight_decay                = cli.weight_decay,
        max_grad_norm               = cli.max_grad_norm,
        warmup_steps                = cli.warmup_steps,
        lr_scheduler_type           = cli.lr_scheduler,
        gradient_accumulation_steps = cli.grad_accum,
        mixed_precision             = cli.mixed_precision,
        label_smoothing             = cli.label_smoothing,
        save_steps                  = cli.save_steps,
        eval_steps                  = cli.eval_steps,
        logging_steps               = cli.logging_steps,
        save_total_limit            = cli.save_total_limit,
        seed                        = cli.seed,
        report_to                   = cli.report_to,
        max_input_length            = cli.max_input_length,
        max_target_length           = cli.max_target_length,
        curriculum_start_length     = cli.curriculum_start_length,
        curriculum_steps            = cli.curriculum_steps,
    )

    trainer = ApeironTrainer(
        model         = model,
        train_dataset = train_ds,
        eval_dataset  = eval_ds,
        args          = training_args,
    )

    # ── Optional prototype warm-start ─────────────────────────────────────
    if cli.warmup_prototypes:
        logger.info(
            "Running k-means prototype warm-start (%d batches)…",
            cli.warmup_batches,
        )
        from torch.utils.data import DataLoader
        from apeiron_lm.training import default_collate
        tmp_loader = DataLoader(
            train_ds,
            batch_size  = cli.batch_size,
            shuffle     = True,
            collate_fn  = lambda b: default_collate(
                b,
                max_input_length  = cli.max_input_length,
                max_target_length = cli.max_target_length,
            ),
        )
        model.warmup_prototypes(tmp_loader, n_batches=cli.warmup_batches)
        logger.info("Prototype warm-start complete.")

    results = trainer.train()
    logger.info(
        "Done.  steps=%d  best_eval_loss=%.4f  elapsed=%.1fs",
        results["total_steps"],
        results["best_eval_loss"],
        results["elapsed"],
    )


if __name__ == "__main__":
    main()
