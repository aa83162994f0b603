# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Fine-tuning API  (v0.0.3.2)
==========================
HuggingFace-style fine-tuning for pre-trained Apeiron LM models.

Design
------
Fine-tuning in Apeiron differs from standard LM fine-tuning in two ways:
1. No tokenizer — inputs are raw bytes.
2. The model has distinct components (ByteEncoder, LatentExplorer, Reasoner)
   that benefit from different learning rates.

ApeironFinetuner supports:
- Full fine-tuning (all parameters)
- Frozen encoder fine-tuning (encoder frozen, only Reasoner trained)
- LoRA-style low-rank adaptation (coming in future version)
- Layer-wise learning rate decay

Usage
-----
>>> from apeiron_lm import ApeironLM
>>> from apeiron_lm.finetune import ApeironFinetuner, FinetuneConfig

>>> model = ApeironLM.load("./pretrained_model")
>>> ft_cfg = FinetuneConfig(
...     output_dir       = "./finetuned",
...     freeze_encoder   = False,
...     learning_rate    = 1e-5,
...     num_epochs       = 3,
...     layer_lr_decay   = 0.9,
... )
>>> finetuner = ApeironFinetuner(model, train_dataset, ft_cfg)
>>> result = finetuner.train()

Dataset format
--------------
Same as ApeironTrainer: each item is a dict with:
  - input_bytes   : 1-D LongTensor  [0, 255]
  - target_bytes  : 1-D LongTensor  [0, 255]
  - target_length : int

PEFT / LoRA note
----------------
Full LoRA support is not included in v0.0.3 — it would require patching
individual Linear layers in the encoder's attention modules. This is noted in
the README as a known limitation. The workaround is freeze_encoder=True which
is roughly equivalent to freezing the base and only training the head.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import AdamW
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# FinetuneConfig
# ---------------------------------------------------------------------------

@dataclass
class FinetuneConfig:
    """
    Configuration for Apeiron fine-tuning.

    Parameters
    ----------
    output_dir : str
    num_epochs : int
    batch_size : int
    learning_rate : float
        Base learning rate.  Applied to the top-most component.
    layer_lr_decay : float
        Multiplicative decay per encoder layer (from top to bottom).
        Use 1.0 for uniform LR.  0.9 is a good starting point.
    freeze_encoder : bool
        If True, freeze all ByteEncoder weights and only train
        LatentExplorer + Reasoner.  Good for task adaptation.
    freeze_explorer : bool
        If True, freeze the LatentExplorer weights.
    weight_decay : float
    max_grad_norm : float
    warmup_ratio : float
        Fraction of total steps used for LR warmup.
    lr_scheduler : str
        "cosine" | "linear" | "constant"
    mixed_precision : str
        "no" | "bf16" | "fp16"
    save_steps : int
    logging_steps : int
    eval_steps : int
    max_input_length : int
    max_target_length : int
    label_smoothing : float
    seed : int
    device : str or None
    callbacks : list
        List of callables invoked at each logging step with metrics dict.
    resume_from_checkpoint : str or None
        Path to a checkpoint directory to resume from.
    """
    output_dir:              str   = "runs/finetune"
    num_epochs:              int   = 3
    batch_size:              int   = 8
    eval_batch_size:         int   = 8
    learning_rate:           float = 1e-5
    layer_lr_decay:          float = 0.9
    freeze_encoder:          bool  = False
    freeze_explorer:         bool  = False
    weight_decay:            float = 0.01
    max_grad_norm:           float = 1.0
    warmup_ratio:            float = 0.06
    lr_scheduler:            str   = "cosine"
    mixed_precision:         str   = "no"
    save_steps:              int   = 200
    logging_steps:           int   = 20
    eval_steps:              int   = 200
    max_input_length:        int   = 2048
    max_target_length:       int   = 512
    label_smoothing:         float = 0.0
    seed:                    int   = 42
    device:                  Optional[str] = None
    callbacks:               List[Callable] = field(default_factory=list)
    resume_from_checkpoint:  Optional[str] = None
    dataloader_num_workers:  int   = 0
    # LoRA options
    use_lora:                bool  = False   # Use LoRA instead of full fine-tuning
    lora_r:                  int   = 8
    lora_alpha:              float = 16.0
    lora_dropout:            float = 0.05
    lora_target_modules:     List[str] = field(
        default_factory=lambda: ["in_proj", "out_proj", "linear1", "linear2"]
    )
    lora_merge_after:        bool  = False   # Merge LoRA into weights after training
    # Gradient checkpointing
    gradient_checkpointing:  bool  = False

    def save(self, directory: Union[str, Path]) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        d = asdict(self)
        d.pop("callbacks", None)
        (Path(directory) / "finetune_config.json").write_text(
            json.dumps(d, indent=2)
        )

    @classmethod
    def load(cls, directory: Union[str, Path]) -> "FinetuneConfig":
        p = Path(directory) / "finetune_config.json"
        d = json.loads(p.read_text())
        known = {f.name for f in cls.__dataclass_fields__.values()}  # type: ignore
        return cls(**{k: v for k, v in d.items() if k in known})


# ---------------------------------------------------------------------------
# ApeironFinetuner
# ---------------------------------------------------------------------------

class ApeironFinetuner:
    """
    Fine-tuner for pre-trained Apeiron LM.

    Supports layer-wise LR decay, selective freezing, and all the features
    of the core ApeironTrainer with a cleaner fine-tuning-oriented API.

    Parameters
    ----------
    model : ApeironLM
        Pre-trained model to fine-tune.  Weights are modified in-place.
    train_dataset : Dataset or Iterable
    config : FinetuneConfig
    eval_dataset : Dataset or Iterable or None
    collate_fn : callable or None

    Examples
    --------
    >>> finetuner = ApeironFinetuner(model, dataset, FinetuneConfig())
    >>> result = finetuner.train()
    """

    def __init__(
        self,
        model:         "ApeironLM",
        train_dataset: Union[Dataset, Iterable],
        config:        FinetuneConfig,
        eval_dataset:  Optional[Union[Dataset, Iterable]] = None,
        collate_fn:    Optional[Callable] = None,
    ) -> None:
        from apeiron_lm.training.trainer import default_collate

        self.model    = model
        self.cfg      = config
        self.train_ds = train_dataset
        self.eval_ds  = eval_dataset

        # Device
        if config.device:
            self.device = torch.device(config.device)
        elif torch.cuda.is_available():
            self.device = torch.device("cuda")
        elif torch.backends.mps.is_available():
            self.device = torch.device("mps")
        else:
            self.device = torch.device("cpu")
        self.model.to(self.device)

        # Collate
        if collate_fn is not None:
            self.collate_fn = collate_fn
        else:
            def _coll(batch):
                return default_collate(
                    batch,
                    max_input_length  = config.max_input_length,
                    max_target_length = config.max_target_length,
                )
            self.collate_fn = _coll

        # Mixed precision
        self.use_amp   = config.mixed_precision != "no" and self.device.type != "cpu"
        self.amp_dtype = (
            torch.bfloat16 if config.mixed_precision == "bf16" else torch.float16
        )
        self.scaler = (
            torch.cuda.amp.GradScaler()
            if self.use_amp and config.mixed_precision == "fp16"
            and self.device.type == "cuda"
            else None
        )

        # Apply freezing
        self._apply_freezing()

        self.global_step    = 0
        self.best_eval_loss = float("inf")
        self._log_history: List[Dict[str, Any]] = []

        torch.manual_seed(config.seed)

        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        total     = sum(p.numel() for p in model.parameters())
        logger.info(
            "ApeironFinetuner ready.  Device=%s  Trainable=%d/%d params",
            self.device, trainable, total,
        )

    def _apply_freezing(self) -> None:
        """Freeze components per config, and optionally apply LoRA."""
        cfg = self.cfg
        if cfg.use_lora:
            from apeiron_lm.lora import LoRAConfig, apply_lora
            lora_cfg = LoRAConfig(
                r              = cfg.lora_r,
                alpha          = cfg.lora_alpha,
                dropout        = cfg.lora_dropout,
                target_modules = cfg.lora_target_modules,
            )
            apply_lora(self.model, lora_cfg, verbose=True)
            logger.info("LoRA applied — only adapter weights will train.")
            return   # LoRA handles its own freezing

        if cfg.freeze_encoder:
            for p in self.model.byte_encoder.parameters():
                p.requires_grad = False
            logger.info("ByteEncoder frozen.")
        if cfg.freeze_explorer:
            for p in self.model.latent_explorer.parameters():
                p.requires_grad = False
            logger.info("LatentExplorer frozen.")

        if cfg.gradient_checkpointing:
            for module in self.model.modules():
                if hasattr(module, "use_checkpoint"):
                    module.use_checkpoint = True
            logger.info("Gradient checkpointing enabled.")

    # ── Optimiser with layer-wise LR decay ────────────────────────────────

    def _make_optimizer(self, total_steps: int) -> AdamW:
        cfg      = self.cfg
        model    = self.model
        no_decay = {"bias", "LayerNorm.weight", "layer_norm.weight"}

        # Build component → base LR mapping
        # Top components get full LR; encoder layers decay bottom-up
        component_lrs: Dict[str, float] = {}

        # Reasoner + novelty: full LR
        for name, _ in model.reasoner.named_parameters():
            component_lrs[f"reasoner.{name}"] = cfg.learning_rate
        for name, _ in model.novelty_estimator.named_parameters():
            component_lrs[f"novelty_estimator.{name}"] = cfg.learning_rate

        # LatentExplorer
        if not cfg.freeze_explorer:
            for name, _ in model.latent_explorer.named_parameters():
                component_lrs[f"latent_explorer.{name}"] = cfg.learning_rate

        # ByteEncoder: layer-wise decay (top = lower index = deeper = lower LR)
        if not cfg.freeze_encoder:
            n_layers = cfg.layer_lr_decay
            layers   = list(model.byte_encoder.encoder.layers)
            for l_idx, layer in enumerate(layers):
                # Layer 0 is the deepest (closest to input) → smallest LR
                # Layer -1 is the shallowest → full LR
                depth_from_top = len(layers) - 1 - l_idx
                lr_l = cfg.learning_rate * (n_layers ** depth_from_top)
                for name, _ in layer.named_parameters():
                    full_name = f"byte_encoder.encoder.layers.{l_idx}.{name}"
                    component_lrs[full_name] = lr_l

            # Embedding layer: lowest LR
            emb_lr = cfg.learning_rate * (cfg.layer_lr_decay ** len(layers))
            for name, _ in model.byte_encoder.embedding.named_parameters():
                component_lrs[f"byte_encoder.embedding.{name}"] = emb_lr

        # Build param groups
        param_groups: List[Dict] = []
        for name, param in model.named_parameters():
            if not param.requires_grad:
                continue
            lr_this = component_lrs.get(name, cfg.learning_rate)
            wd_this = 0.0 if any(nd in name for nd in no_decay) else cfg.weight_decay
            param_groups.append({
                "params":       [param],
                "lr":           lr_this,
                "weight_decay": wd_this,
            })

        return AdamW(param_groups, betas=(0.9, 0.999), eps=1e-8)

    def _make_scheduler(self, optimizer: AdamW, total_steps: int, warmup_steps: int):
        from apeiron_lm.training.schedulers import (
            get_cosine_schedule_with_warmup,
            get_linear_schedule_with_warmup,
            get_constant_schedule_with_warmup,
        )
        kw = dict(
            optimizer          = optimizer,
            num_warmup_steps   = warmup_steps,
            num_training_steps = total_steps,
        )
        if self.cfg.lr_scheduler == "cosine":
            return get_cosine_schedule_with_warmup(**kw)
        if self.cfg.lr_scheduler == "linear":
            return get_linear_schedule_with_warmup(**kw)
        return get_constant_schedule_with_warmup(optimizer, warmup_steps)

    # ── Training loop ─────────────────────────────────────────────────────

    def train(self) -> Dict[str, Any]:
        """
        Run fine-tuning.

        Returns
        -------
        dict with keys: total_steps, best_eval_loss, elapsed
        """
        cfg   = self.cfg
        model = self.model
        model.train()

        Path(cfg.output_dir).mkdir(parents=True, exist_ok=True)
        cfg.save(cfg.output_dir)

        train_loader = self._make_loader(self.train_ds, shuffle=True)
        total_steps  = len(train_loader) * cfg.num_epochs
        warmup_steps = max(1, int(total_steps * cfg.warmup_ratio))

        optimizer = self._make_optimizer(total_steps)
        scheduler = self._make_scheduler(optimizer, total_steps, warmup_steps)

        # Resume from checkpoint
        if cfg.resume_from_checkpoint:
            self._load_checkpoint(cfg.resume_from_checkpoint, optimizer, scheduler)

        logger.info(
            "Fine-tuning: epochs=%d  steps=%d  warmup=%d",
            cfg.num_epochs, total_steps, warmup_steps,
        )

        start      = time.time()
        accum_loss = 0.0
        n_accum    = 0
        optimizer.zero_grad()

        for epoch in range(1, cfg.num_epochs + 1):
            for batch in train_loader:
                batch = {
                    k: v.to(self.device) if isinstance(v, torch.Tensor) else v
                    for k, v in batch.items()
                }

                if self.use_amp:
                    with torch.autocast(device_type=self.device.type, dtype=self.amp_dtype):
                        out = model(
                            input_bytes     = batch["input_bytes"],
                            target_bytes    = batch["target_bytes"],
                            target_lengths  = batch["target_lengths"],
                            input_mask      = batch.get("input_mask"),
                            label_smoothing = cfg.label_smoothing,
                        )
                else:
                    out = model(
                        input_bytes     = batch["input_bytes"],
                        target_bytes    = batch["target_bytes"],
                        target_lengths  = batch["target_lengths"],
                        input_mask      = batch.get("input_mask"),
                        label_smoothing = cfg.label_smoothing,
                    )

                loss = out["loss"]
                if self.scaler:
                    self.scaler.scale(loss).backward()
                else:
                    loss.backward()

                accum_loss += loss.item()
                n_accum    += 1

                if cfg.max_grad_norm > 0:
                    if self.scaler:
                        self.scaler.unscale_(optimizer)
                    nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)

                if self.scaler:
                    self.scaler.step(optimizer)
                    self.scaler.update()
                else:
                    optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                self.global_step += 1

                if self.global_step % cfg.logging_steps == 0:
                    metrics = {
                        "step":    self.global_step,
                        "epoch":   epoch,
                        "loss":    accum_loss / max(n_accum, 1),
                        "loss_ce": out["loss_ce"].item(),
                        "lr":      scheduler.get_last_lr()[0],
                        "elapsed": time.time() - start,
                    }
                    self._log(metrics)
                    accum_loss = 0.0
                    n_accum    = 0

                if (self.eval_ds is not None
                        and self.global_step % cfg.eval_steps == 0):
                    eval_loss = self.evaluate()
                    if eval_loss < self.best_eval_loss:
                        self.best_eval_loss = eval_loss
                        model.save(Path(cfg.output_dir) / "checkpoint-best")
                    model.train()

                if self.global_step % cfg.save_steps == 0:
                    ckpt = Path(cfg.output_dir) / f"checkpoint-{self.global_step}"
                    model.save(ckpt)
                    logger.info("Checkpoint saved: %s", ckpt)

            logger.info("Epoch %d/%d done.", epoch, cfg.num_epochs)

        final = Path(cfg.output_dir) / "final"
        if cfg.use_lora and cfg.lora_merge_after:
            from apeiron_lm.lora import merge_lora
            n_merged = merge_lora(model)
            logger.info("LoRA: merged %d adapters before saving", n_merged)
        elif cfg.use_lora and not cfg.lora_merge_after:
            # Save only LoRA weights (tiny file)
            from apeiron_lm.lora import save_lora
            lora_path = Path(cfg.output_dir) / "final" / "lora_weights.pt"
            final.mkdir(parents=True, exist_ok=True)
            save_lora(model, lora_path)
            logger.info("LoRA weights saved to %s", lora_path)
        model.save(final)
        logger.info("Fine-tuning complete. Saved to %s", final)

        return {
            "total_steps":    self.global_step,
            "best_eval_loss": self.best_eval_loss,
            "elapsed":        time.time() - start,
        }

    @torch.no_grad()
    def evaluate(self) -> float:
        """Run evaluation and return mean loss."""
        if self.eval_ds is None:
            return float("inf")
        self.model.eval()
        loader    = self._make_loader(self.eval_ds, shuffle=False)
        total, n  = 0.0, 0
        for batch in loader:
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
            total += out["loss"].item()
            n += 1
        loss = total / max(n, 1)
        logger.info("Eval loss: %.4f (step %d)", loss, self.global_step)
        return loss

    # ── Helpers ───────────────────────────────────────────────────────────

    def _make_loader(self, dataset, shuffle: bool) -> DataLoader:
        bs = self.cfg.batch_size if shuffle else self.cfg.eval_batch_size
        pin = self.device.type == "cuda"
        if isinstance(dataset, Dataset):
            return DataLoader(
                dataset,
                batch_size  = bs,
                shuffle     = shuffle,
                collate_fn  = self.collate_fn,
                num_workers = self.cfg.dataloader_num_workers,
                pin_memory  = pin,
            )
        return DataLoader(list(dataset), batch_size=bs, collate_fn=self.collate_fn)

    def _log(self, metrics: Dict[str, Any]) -> None:
        self._log_history.append(metrics)
        for cb in self.cfg.callbacks:
            try:
                cb(metrics)
            except Exception as e:
                logger.debug("Callback error: %s", e)
        logger.info(
            "step=%d  epoch=%d  loss=%.4f  ce=%.4f  lr=%.2e",
            metrics["step"], metrics["epoch"],
            metrics["loss"], metrics["loss_ce"], metrics["lr"],
        )

    def _load_checkpoint(self, ckpt_dir: str, optimizer, scheduler) -> None:
        from apeiron_lm.modeling import WEIGHTS_FILE
        state_path = Path(ckpt_dir) / WEIGHTS_FILE
        if state_path.exists():
            state = torch.load(state_path, map_location=self.device, weights_only=True)
            self.model.load_state_dict(state, strict=False)
            logger.info("Resumed model weights from %s", ckpt_dir)
        opt_path = Path(ckpt_dir) / "optimizer.pt"
        if opt_path.exists():
            opt_state = torch.load(opt_path, map_location=self.device, weights_only=True)
            try:
                optimizer.load_state_dict(opt_state)
                logger.info("Resumed optimizer state.")
            except Exception as e:
                logger.warning("Could not load optimizer state: %s", e)


# ---------------------------------------------------------------------------
# Convenience
# ---------------------------------------------------------------------------

def finetune(
    model:       "ApeironLM",
    train_data:  Union[Dataset, Iterable],
    output_dir:  str,
    eval_data:   Optional[Union[Dataset, Iterable]] = None,
    **kwargs,
) -> Dict[str, Any]:
    """
    One-liner fine-tuning.

    >>> from apeiron_lm.finetune import finetune
    >>> result = finetune(model, dataset, "./finetuned", num_epochs=3, learning_rate=1e-5)
    """
    cfg = FinetuneConfig(output_dir=output_dir, **kwargs)
    ft  = ApeironFinetuner(model, train_data, cfg, eval_dataset=eval_data)
    return ft.train()
