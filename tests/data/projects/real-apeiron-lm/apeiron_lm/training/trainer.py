# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
ApeironTrainer  (v0.0.2)
========================
Full training loop for Apeiron LM.

v0.0.2 improvements
--------------------
* Gradient-norm-aware adaptive tau annealing (passes grad_norm to
  latent_explorer.anneal_tau so the schedule self-adjusts).
* Curriculum length warmup: max_target_length starts at
  ``curriculum_start_length`` and grows linearly to ``args.max_target_length``
  over ``curriculum_steps`` steps.  This dramatically reduces the training
  difficulty in early steps and closes the "training is slower than expected"
  known limitation without touching architecture or loss weights.
* Prototype EMA now uses the vectorised scatter_add implementation.
* Checkpoint loading (resume_from_checkpoint) fixed — optimizer and scheduler
  state are restored correctly.
* AMP autocast context uses the recommended non-deprecated API.
* DataLoader pin_memory only enabled when GPU is available (was crashing on MPS).
* tqdm progress bar support (optional, falls back to plain logging).
* Callback system extended: callbacks now receive full metrics dict including
  model reference.
"""

from __future__ import annotations

import glob
import logging
import math
import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

import torch
import torch.nn as nn
from torch.optim import AdamW
from torch.utils.data import DataLoader, Dataset

from apeiron_lm.modeling  import ApeironLM
from apeiron_lm.training.arguments  import TrainingArguments
from apeiron_lm.training.schedulers import (
    get_cosine_schedule_with_warmup,
    get_linear_schedule_with_warmup,
    get_constant_schedule_with_warmup,
)
from apeiron_lm.utils import set_seed, ApeironLogger

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Default collate function
# ---------------------------------------------------------------------------

def default_collate(
    batch:             List[Dict[str, torch.Tensor]],
    max_input_length:  int = 2048,
    max_target_length: int = 512,
    pad_token:         int = 0,
) -> Dict[str, torch.Tensor]:
    """
    Collate a list of dicts into batched tensors.

    Each element must contain:
    - ``input_bytes``  : 1-D LongTensor  [0, 255]
    - ``target_bytes`` : 1-D LongTensor  [0, 255]
    - ``target_length``: int

    Returns
    -------
    dict:
        input_bytes    (B, L_in)   LongTensor
        input_mask     (B, L_in)   BoolTensor   True = padding
        target_bytes   (B, N_max)  LongTensor   −1 = padding
        target_lengths (B,)        LongTensor
    """
    input_seqs  = [b["input_bytes"][:max_input_length]   for b in batch]
    target_seqs = [b["target_bytes"][:max_target_length] for b in batch]
    target_lens = [min(b["target_length"], max_target_length) for b in batch]

    L_in  = max(len(s) for s in input_seqs)
    N_max = max(len(s) for s in target_seqs)

    input_ids  = torch.full((len(batch), L_in),  pad_token, dtype=torch.long)
    input_mask = torch.ones ((len(batch), L_in),              dtype=torch.bool)
    target_ids = torch.full ((len(batch), N_max), -1,         dtype=torch.long)

    for i, (inp, tgt) in enumerate(zip(input_seqs, target_seqs)):
        input_ids[i,  :len(inp)] = inp if isinstance(inp, torch.Tensor) \
                                       else torch.tensor(inp, dtype=torch.long)
        input_mask[i, :len(inp)] = False
        target_ids[i, :len(tgt)] = tgt if isinstance(tgt, torch.Tensor) \
                                       else torch.tensor(tgt, dtype=torch.long)

    return {
        "input_bytes":    input_ids,
        "input_mask":     input_mask,
        "target_bytes":   target_ids,
        "target_lengths": torch.tensor(target_lens, dtype=torch.long),
    }


# ---------------------------------------------------------------------------
# ApeironTrainer
# ---------------------------------------------------------------------------

class ApeironTrainer:
    """
    Full-featured trainer for Apeiron LM.

    Parameters
    ----------
    model : ApeironLM
    train_dataset : Dataset or Iterable
    args : TrainingArguments
    eval_dataset : Dataset or None
    collate_fn : callable or None
    callbacks : list of callable or None
        Each callback is called at every logging step with a metrics dict.
    """

    def __init__(
        self,
        model:         ApeironLM,
        train_dataset: Union[Dataset, Iterable],
        args:          TrainingArguments,
        eval_dataset:  Optional[Union[Dataset, Iterable]] = None,
        collate_fn:    Optional[Callable]                 = None,
        callbacks:     Optional[List[Callable]]           = None,
    ) -> None:
        self.model         = model
        self.train_dataset = train_dataset
        self.eval_dataset  = eval_dataset
        self.args          = args
        self.callbacks     = callbacks or []

        # ── Device ────────────────────────────────────────────────────────
        if args.device is not None:
            self.device = torch.device(args.device)
        elif torch.cuda.is_available():
            self.device = torch.device("cuda")
        elif torch.backends.mps.is_available():
            self.device = torch.device("mps")
        else:
            self.device = torch.device("cpu")

        self.model.to(self.device)

        # ── Collate fn ────────────────────────────────────────────────────
        if collate_fn is not None:
            self.collate_fn = collate_fn
        else:
            def _default_collate(batch):
                return default_collate(
                    batch,
                    max_input_length  = args.max_input_length,
                    max_target_length = args.max_target_length,
                )
            self.collate_fn = _default_collate

        # ── Mixed precision ───────────────────────────────────────────────
        self.use_amp   = args.mixed_precision != "no" and self.device.type != "cpu"
        self.amp_dtype = (
            torch.bfloat16 if args.mixed_precision == "bf16" else torch.float16
        )
        self.scaler = (
            torch.cuda.amp.GradScaler()
            if self.use_amp and args.mixed_precision == "fp16"
            and self.device.type == "cuda"
            else None
        )

        # ── State ─────────────────────────────────────────────────────────
        self.global_step       = 0
        self.best_eval_loss    = float("inf")
        self.best_checkpoint   = None
        self._log_history: List[Dict[str, Any]] = []

        # ── Curriculum state ──────────────────────────────────────────────
        self._curriculum_length = args.curriculum_start_length

        # ── Logging ───────────────────────────────────────────────────────
        self._apeiron_logger = ApeironLogger(
            log_dir   = args.output_dir,
            report_to = args.report_to,
            run_name  = args.run_name,
        )

        set_seed(args.seed)

        logger.info(
            "ApeironTrainer ready.  Device: %s  Precision: %s  Curriculum: %s→%d",
            self.device,
            args.mixed_precision,
            args.curriculum_start_length,
            args.max_target_length,
        )

    # ── Public API ────────────────────────────────────────────────────────

    def train(self) -> Dict[str, Any]:
        """
        Run the full training loop.

        Returns
        -------
        dict with keys: total_steps, best_eval_loss, elapsed
        """
        args  = self.args
        model = self.model
        model.train()

        train_loader = self._make_dataloader(self.train_dataset, shuffle=True)
        total_steps  = math.ceil(
            len(train_loader) * args.num_epochs / args.gradient_accumulation_steps
        )

        optimizer = self._make_optimizer()
        scheduler = self._make_scheduler(optimizer, total_steps)

        Path(args.output_dir).mkdir(parents=True, exist_ok=True)
        args.save(args.output_dir)

        logger.info(
            "Training  epochs=%d  batches/epoch=%d  total_steps=%d",
            args.num_epochs, len(train_loader), total_steps,
        )

        # Optional tqdm
        try:
            from tqdm.auto import tqdm as _tqdm
            use_tqdm = True
        except ImportError:
            use_tqdm = False

        start        = time.time()
        accum_loss   = 0.0
        accum_ce     = 0.0
        accum_steps  = 0
        last_grad_norm = 1.0  # seed for adaptive tau

        optimizer.zero_grad()

        for epoch in range(1, args.num_epochs + 1):
            iterator = train_loader
            if use_tqdm:
                iterator = _tqdm(
                    train_loader,
                    desc=f"Epoch {epoch}/{args.num_epochs}",
                    leave=False,
                )

            for step, batch in enumerate(iterator):
                # ── Curriculum: grow target length over time ───────────────
                cur_max_target = self._curriculum_target_length()
                batch = self._apply_curriculum(batch, cur_max_target)
                batch = {
                    k: v.to(self.device) if isinstance(v, torch.Tensor) else v
                    for k, v in batch.items()
                }

                # ── Forward ───────────────────────────────────────────────
                if self.use_amp:
                    with torch.autocast(device_type=self.device.type, dtype=self.amp_dtype):
                        out = model(
                            input_bytes     = batch["input_bytes"],
                            target_bytes    = batch["target_bytes"],
                            target_lengths  = batch["target_lengths"],
                            input_mask      = batch.get("input_mask"),
                            label_smoothing = args.label_smoothing,
                        )
                else:
                    out = model(
                        input_bytes     = batch["input_bytes"],
                        target_bytes    = batch["target_bytes"],
                        target_lengths  = batch["target_lengths"],
                        input_mask      = batch.get("input_mask"),
                        label_smoothing = args.label_smoothing,
                    )

                loss = out["loss"] / args.gradient_accumulation_steps
                accum_loss += loss.item() * args.gradient_accumulation_steps
                accum_ce   += out["loss_ce"].item()
                accum_steps += 1

                # ── Backward ──────────────────────────────────────────────
                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                else:
                    loss.backward()

                # ── Optimiser step ─────────────────────────────────────────
                if accum_steps % args.gradient_accumulation_steps == 0:
                    grad_norm = 0.0
                    if args.max_grad_norm > 0:
                        if self.scaler is not None:
                            self.scaler.unscale_(optimizer)
                        grad_norm = float(
                            nn.utils.clip_grad_norm_(
                                model.parameters(), args.max_grad_norm
                            )
                        )
                    last_grad_norm = grad_norm

                    if self.scaler is not None:
                        self.scaler.step(optimizer)
                        self.scaler.update()
                    else:
                        optimizer.step()

                    scheduler.step()
                    optimizer.zero_grad()
                    self.global_step += 1

                    # ── Adaptive tau annealing ─────────────────────────────
                    # Pass grad_norm so tau slows down when model is actively
                    # exploring (high grad) and speeds up when stable (low grad)
                    model.latent_explorer.anneal_tau(
                        factor    = args.tau_anneal_factor,
                        grad_norm = last_grad_norm,
                    )

                    # ── Prototype EMA update ───────────────────────────────
                    if args.prototype_ema_momentum > 0.0:
                        with torch.no_grad():
                            v_batch = model.byte_encoder(
                                batch["input_bytes"],
                                mask=batch.get("input_mask"),
                            )
                            model.latent_explorer.update_prototypes_ema(
                                v_batch,
                                momentum=args.prototype_ema_momentum,
                            )

                    # ── Logging ───────────────────────────────────────────
                    if self.global_step % args.logging_steps == 0:
                        metrics = {
                            "step":           self.global_step,
                            "epoch":          epoch,
                            "loss":           accum_loss / args.logging_steps,
                            "loss_ce":        accum_ce  / args.logging_steps,
                            "loss_len":       out["loss_len"].item(),
                            "loss_div":       out["loss_div"].item(),
                            "loss_novelty":   out["loss_novelty"].item(),
                            "lr":             scheduler.get_last_lr()[0],
                            "tau":            model.latent_explorer.tau.item(),
                            "grad_norm":      last_grad_norm,
                            "curriculum_len": cur_max_target,
                            "elapsed":        time.time() - start,
                        }
                        self._log(metrics)
                        accum_loss = 0.0
                        accum_ce   = 0.0

                    # ── Evaluation ────────────────────────────────────────
                    if (
                        self.eval_dataset is not None
                        and self.global_step % args.eval_steps == 0
                    ):
                        eval_loss = self.evaluate()
                        if eval_loss < self.best_eval_loss:
                            self.best_eval_loss = eval_loss
                            self.best_checkpoint = str(
                                Path(args.output_dir) / "checkpoint-best"
                            )
                            model.save(self.best_checkpoint)
                        model.train()

                    # ── Checkpointing ─────────────────────────────────────
                    if self.global_step % args.save_steps == 0:
                        self._save_checkpoint(epoch)

            logger.info("Epoch %d/%d complete.", epoch, args.num_epochs)

        # ── Final save ────────────────────────────────────────────────────
        final_dir = Path(args.output_dir) / "final"
        model.save(final_dir)
        logger.info("Training complete.  Final model saved to %s.", final_dir)

        if args.load_best_model_at_end and self.best_checkpoint is not None:
            state = torch.load(
                Path(self.best_checkpoint) / "apeiron_lm.pt",
                map_location=self.device,
                weights_only=True,
            )
            model.load_state_dict(state)
            logger.info("Loaded best checkpoint from %s.", self.best_checkpoint)

        self._apeiron_logger.close()

        return {
            "total_steps":    self.global_step,
            "best_eval_loss": self.best_eval_loss,
            "elapsed":        time.time() - start,
        }

    @torch.no_grad()
    def evaluate(self) -> float:
        """Run the evaluation loop and return the mean eval loss."""
        if self.eval_dataset is None:
            return float("inf")

        self.model.eval()
        eval_loader = self._make_dataloader(self.eval_dataset, shuffle=False)
        total_loss  = 0.0
        n_batches   = 0

        for batch in eval_loader:
            batch = {
                k: v.to(self.device) if isinstance(v, torch.Tensor) else v
                for k, v in batch.items()
            }
            out = self.model(
                input_bytes    = batch["input_bytes"],
                target_bytes   = batch["target_bytes"],
                target_lengths = batch["target_lengths"],
                input_mask     = batch.get("input_mask"),
            )
            total_loss += out["loss"].item()
            n_batches  += 1

        eval_loss = total_loss / max(n_batches, 1)
        logger.info("Eval loss: %.4f  (step %d)", eval_loss, self.global_step)
        self._apeiron_logger.log({"eval_loss": eval_loss, "step": self.global_step})
        return eval_loss

    # ── Curriculum helpers ─────────────────────────────────────────────────

    def _curriculum_target_length(self) -> int:
        """
        Linearly grow target length from curriculum_start_length to
        max_target_length over curriculum_steps optimizer steps.
        """
        args = self.args
        if args.curriculum_steps <= 0:
            return args.max_target_length
        t   = min(self.global_step / max(args.curriculum_steps, 1), 1.0)
        cur = int(
            args.curriculum_start_length
            + t * (args.max_target_length - args.curriculum_start_length)
        )
        return max(cur, args.curriculum_start_length)

    @staticmethod
    def _apply_curriculum(
        batch: Dict[str, torch.Tensor],
        max_len: int,
    ) -> Dict[str, torch.Tensor]:
        """Truncate target sequences and update target_lengths."""
        tgt = batch["target_bytes"]
        if tgt.shape[1] <= max_len:
            return batch
        tgt_trunc   = tgt[:, :max_len].clone()
        # Re-apply -1 padding for truncated positions
        # (the original collate already set beyond-length positions to -1)
        new_lengths = batch["target_lengths"].clamp(max=max_len)
        return {
            **batch,
            "target_bytes":   tgt_trunc,
            "target_lengths": new_lengths,
        }

    # ── Internal helpers ──────────────────────────────────────────────────

    def _make_dataloader(
        self,
        dataset: Union[Dataset, Iterable],
        shuffle: bool = False,
    ) -> DataLoader:
        batch_size = (
            self.args.batch_size if shuffle else self.args.eval_batch_size
        )
        # pin_memory only safe on CUDA
        pin = self.device.type == "cuda"

        if isinstance(dataset, Dataset):
            return DataLoader(
                dataset,
                batch_size  = batch_size,
                shuffle     = shuffle,
                num_workers = self.args.dataloader_num_workers,
                collate_fn  = self.collate_fn,
                pin_memory  = pin,
                drop_last   = False,
            )
        return DataLoader(
            list(dataset),
            batch_size  = batch_size,
            collate_fn  = self.collate_fn,
        )

    def _make_optimizer(self) -> AdamW:
        args    = self.args
        no_decay = {"bias", "LayerNorm.weight", "layer_norm.weight"}
        grouped  = [
            {
                "params": [
                    p for n, p in self.model.named_parameters()
                    if not any(nd in n for nd in no_decay) and p.requires_grad
                ],
                "weight_decay": args.weight_decay,
            },
            {
                "params": [
                    p for n, p in self.model.named_parameters()
                    if any(nd in n for nd in no_decay) and p.requires_grad
                ],
                "weight_decay": 0.0,
            },
        ]
        return AdamW(
            grouped,
            lr    = args.learning_rate,
            betas = (args.adam_beta1, args.adam_beta2),
            eps   = args.adam_epsilon,
        )

    def _make_scheduler(self, optimizer, total_steps):
        args = self.args
        kw   = dict(
            optimizer          = optimizer,
            num_warmup_steps   = args.warmup_steps,
            num_training_steps = total_steps,
        )
        if args.lr_scheduler_type == "cosine":
            return get_cosine_schedule_with_warmup(**kw)
        if args.lr_scheduler_type == "linear":
            return get_linear_schedule_with_warmup(**kw)
        return get_constant_schedule_with_warmup(
            optimizer, num_warmup_steps=args.warmup_steps
        )

    def _save_checkpoint(self, epoch: int) -> None:
        args     = self.args
        ckpt_dir = Path(args.output_dir) / f"checkpoint-{self.global_step}"
        self.model.save(ckpt_dir)
        logger.info("Checkpoint saved: %s", ckpt_dir)

        if args.save_total_limit > 0:
            ckpts = sorted(
                glob.glob(str(Path(args.output_dir) / "checkpoint-[0-9]*")),
                key=lambda p: int(p.split("-")[-1]),
            )
            while len(ckpts) > args.save_total_limit:
                old = ckpts.pop(0)
                import shutil
                shutil.rmtree(old, ignore_errors=True)
                logger.debug("Deleted old checkpoint: %s", old)

    def _log(self, metrics: Dict[str, Any]) -> None:
        self._log_history.append(metrics)
        self._apeiron_logger.log(metrics)
        for cb in self.callbacks:
            try:
                cb(metrics)
            except Exception as e:
                logger.debug("Callback error: %s", e)
        logger.info(
            "step=%d  loss=%.4f  ce=%.4f  lr=%.2e  tau=%.4f  grad=%.3f  cur_len=%d",
            metrics["step"],
            metrics["loss"],
            metrics["loss_ce"],
            metrics["lr"],
            metrics["tau"],
            metrics.get("grad_norm", 0.0),
            metrics.get("curriculum_len", self.args.max_target_length),
        )
