"""Core training loop."""

from __future__ import annotations

import csv
import json
import logging
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

if TYPE_CHECKING:
    from fujicv.engine.base_logger import BaseLogger
    from fujicv.engine.tensorboard_logger import TensorBoardLogger

import numpy as np
import torch
import torch.nn as nn

try:
    from torch.amp import GradScaler  # PyTorch >= 2.1
    from torch.amp import autocast as _amp_autocast

    def autocast(enabled: bool = True):  # type: ignore[misc]
        return _amp_autocast("cuda", enabled=enabled)
except ImportError:
    from torch.cuda.amp import GradScaler, autocast  # type: ignore[assignment]  # PyTorch 2.0.x
from torch.utils.data import DataLoader

from fujicv.engine.callbacks import CheckpointCallback, EarlyStopping, LRSchedulerCallback
from fujicv.engine.logger import WandbLogger
from fujicv.utils.seed import get_device

logger = logging.getLogger(__name__)


@dataclass
class History:
    """Container for per-epoch training history.

    Attributes:
        metrics: Dict mapping metric name → list of per-epoch values.
    """

    metrics: Dict[str, List[float]] = field(default_factory=dict)

    def update(self, epoch_metrics: Dict[str, float]) -> None:
        for k, v in epoch_metrics.items():
            self.metrics.setdefault(k, []).append(v)

    def to_csv(self, path: str | Path) -> None:
        path = Path(path)
        if not self.metrics:
            return
        keys = list(self.metrics.keys())
        rows = zip(*[self.metrics[k] for k in keys])
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=["epoch"] + keys)
            writer.writeheader()
            for i, row in enumerate(rows):
                writer.writerow({"epoch": i, **dict(zip(keys, row))})

    def to_json(self, path: str | Path) -> None:
        """Write the full metric history as JSON (crash-resilient snapshot)."""
        path = Path(path)
        with path.open("w", encoding="utf-8") as fh:
            json.dump(self.metrics, fh, indent=2)


class Trainer:
    """Full training loop with mixed precision, checkpointing, and callbacks.

    Args:
        model: The ``nn.Module`` to train.
        train_loader: Training DataLoader.
        val_loader: Validation DataLoader.
        loss_fn: Loss ``nn.Module``.
        metrics: Dict of metric name → callable ``(y_true, y_pred) → float``.
            ``y_pred`` will be **logits** (numpy arrays).
        optimizer: PyTorch optimiser.
        scheduler: (optional) LR scheduler or ``LRSchedulerCallback``.
        device: Target device (default ``'cuda'`` if available else ``'cpu'``).
        epochs: Number of training epochs.
        task: Task type — ``'classification'``, ``'regression'``, ``'multilabel'``,
            or ``'multiclass'``.
        output_dir: Directory for checkpoints and history CSV.
        wandb_logger: (optional) ``WandbLogger`` instance.
        mixed_precision: Enable automatic mixed precision (default ``True``).
        grad_clip: Gradient clipping max norm (default 1.0, ``None`` to disable).
        monitor_metric: Metric to monitor for checkpointing / early stopping
            (default ``'val_loss'``).
        resume_from: Path to a checkpoint to resume from.
        early_stopping_patience: Epochs without improvement before stopping
            (default ``None`` = disabled).
    """

    def __init__(
        self,
        model: nn.Module,
        train_loader: DataLoader,
        val_loader: DataLoader,
        loss_fn: nn.Module,
        metrics: Dict[str, Callable],
        optimizer: torch.optim.Optimizer,
        scheduler: Any = None,
        device: Optional[str] = None,
        epochs: int = 10,
        task: str = "classification",
        output_dir: str | Path = "outputs",
        wandb_logger: Optional[WandbLogger] = None,
        mixed_precision: bool = True,
        grad_clip: Optional[float] = 1.0,
        monitor_metric: str = "val_loss",
        resume_from: Optional[str | Path] = None,
        early_stopping_patience: Optional[int] = None,
        class_to_idx: Optional[Dict[str, int]] = None,
        use_ema: bool = False,
        ema_decay: float = 0.9999,
        ema_warmup_steps: int = 2000,
        use_ddp: bool = False,
        grad_accum_steps: int = 1,
        tb_logger: Optional["TensorBoardLogger"] = None,
        loggers: Optional[List["BaseLogger"]] = None,
        compile_model: bool = False,
        compile_mode: str = "default",
    ) -> None:
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.loss_fn = loss_fn
        self.metrics = metrics
        self.optimizer = optimizer
        self.epochs = epochs
        self.task = task
        self.output_dir = Path(output_dir)
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.wandb_logger = wandb_logger
        self.mixed_precision = mixed_precision
        self.grad_clip = grad_clip
        self.monitor_metric = monitor_metric
        self.class_to_idx = class_to_idx or {}
        self.tb_logger = tb_logger
        self.loggers = list(loggers) if loggers else []
        if grad_accum_steps < 1:
            raise ValueError(f"grad_accum_steps must be >= 1, got {grad_accum_steps}")
        self.grad_accum_steps = grad_accum_steps

        self._is_ddp = False
        self._train_sampler = None
        if use_ddp:
            # Must be launched via: torchrun --nproc_per_node=N script.py
            local_rank = int(os.environ.get("LOCAL_RANK", 0))
            # CRITICAL: pin this process to its GPU *before* any NCCL collective.
            # Object collectives (all_gather_object) allocate transport tensors on
            # torch.cuda.current_device(); without set_device every rank defaults
            # to cuda:0 and NCCL deadlocks during communicator setup.
            torch.cuda.set_device(local_rank)
            if not torch.distributed.is_initialized():
                torch.distributed.init_process_group(backend="nccl")
            self.device = torch.device(f"cuda:{local_rank}")
            self.model.to(self.device)
            self.model = nn.parallel.DistributedDataParallel(self.model, device_ids=[local_rank])
            self._is_ddp = True
            # Shard the data across ranks so each GPU sees a disjoint subset.
            # Without this both ranks iterate the full dataset (no speedup) and
            # _gather_concat would double-count the validation set.
            self.train_loader, self._train_sampler = self._distribute_loader(
                self.train_loader, shuffle=True
            )
            self.val_loader, _ = self._distribute_loader(self.val_loader, shuffle=False)
            logger.info("DDP enabled on cuda:%d (world_size=%d)", local_rank, torch.distributed.get_world_size())
        else:
            self.device = get_device(device)
            self.model.to(self.device)
            if self.device.type == "cuda" and torch.cuda.device_count() > 1:
                warnings.warn(
                    f"{torch.cuda.device_count()} GPUs detected but use_ddp=False. "
                    "For multi-GPU training launch with: torchrun --nproc_per_node=N script.py "
                    "and pass use_ddp=True to Trainer. Continuing on a single GPU.",
                    UserWarning,
                    stacklevel=2,
                )

        # AMP scaler (only for CUDA)
        self._use_amp = mixed_precision and self.device.type == "cuda"
        self._scaler = GradScaler(enabled=self._use_amp)

        # Optional torch.compile (PyTorch 2.0+) for graph optimisation.
        self._compiled = False
        if compile_model:
            if not hasattr(torch, "compile"):
                warnings.warn(
                    "compile_model=True but torch.compile is unavailable "
                    "(requires PyTorch >= 2.0). Continuing without compilation.",
                    UserWarning,
                    stacklevel=2,
                )
            else:
                try:
                    self.model = torch.compile(self.model, mode=compile_mode)  # type: ignore[assignment]
                    self._compiled = True
                    logger.info("torch.compile enabled (mode=%s)", compile_mode)
                except Exception as exc:
                    # e.g. torch.compile is unsupported on Windows; fall back to eager.
                    warnings.warn(
                        f"torch.compile failed ({exc}); continuing without compilation.",
                        UserWarning,
                        stacklevel=2,
                    )

        # Checkpoint callback
        monitor_mode = "min" if "loss" in monitor_metric else "max"
        self._ckpt = CheckpointCallback(
            self.output_dir, monitor=monitor_metric, mode=monitor_mode, filename="best.pt"
        )

        # LR scheduler callback
        if scheduler is not None:
            if isinstance(scheduler, LRSchedulerCallback):
                self._lr_callback: Optional[LRSchedulerCallback] = scheduler
            else:
                self._lr_callback = LRSchedulerCallback(scheduler, monitor=monitor_metric)
        else:
            self._lr_callback = None

        # Early stopping
        self._early_stop: Optional[EarlyStopping] = None
        if early_stopping_patience is not None:
            self._early_stop = EarlyStopping(
                patience=early_stopping_patience,
                monitor=monitor_metric,
                mode=monitor_mode,
            )

        # EMA
        self._ema = None
        if use_ema:
            from fujicv.training.ema import ModelEMA
            self._ema = ModelEMA(self._model_core, decay=ema_decay, warmup_steps=ema_warmup_steps)
            logger.info("EMA enabled (decay=%.4f, warmup=%d)", ema_decay, ema_warmup_steps)

        self._start_epoch = 0
        self.history = History()

        if resume_from is not None:
            self._load_checkpoint(Path(resume_from))

    # ------------------------------------------------------------------
    # Internal helpers
    # ------------------------------------------------------------------

    @property
    def _model_core(self) -> nn.Module:
        """Unwrap torch.compile and DDP/DataParallel to the underlying nn.Module.

        Handles any nesting order (compiled-over-DDP or DDP-over-compiled).
        """
        m = self.model
        for _ in range(4):
            if isinstance(m, (nn.DataParallel, nn.parallel.DistributedDataParallel)):
                m = m.module
            elif hasattr(m, "_orig_mod"):  # torch.compile OptimizedModule
                m = m._orig_mod  # type: ignore[assignment]
            else:
                break
        return m

    @property
    def _is_main_process(self) -> bool:
        """Return ``True`` on the rank-0 process (always ``True`` when not DDP)."""
        return (not self._is_ddp) or torch.distributed.get_rank() == 0

    def _distribute_loader(self, loader: DataLoader, shuffle: bool):
        """Rebuild *loader* with a ``DistributedSampler`` so each rank sees a shard.

        Returns ``(new_loader, sampler)``. Preserves batch size, workers, pinning,
        collate function, and drop_last from the original loader.
        """
        from torch.utils.data.distributed import DistributedSampler

        sampler = DistributedSampler(loader.dataset, shuffle=shuffle)
        kwargs = dict(
            batch_size=loader.batch_size,
            sampler=sampler,
            num_workers=loader.num_workers,
            pin_memory=loader.pin_memory,
            drop_last=loader.drop_last,
            collate_fn=loader.collate_fn,
        )
        # These are only valid when workers are used.
        if loader.num_workers > 0:
            kwargs["persistent_workers"] = loader.persistent_workers
            kwargs["prefetch_factor"] = loader.prefetch_factor
        return DataLoader(loader.dataset, **kwargs), sampler

    def _gather_concat(self, arr: np.ndarray) -> np.ndarray:
        """All-gather a per-rank numpy array and concatenate along axis 0.

        No-op outside DDP. Uses ``all_gather_object`` so ranks may hold
        different numbers of samples (the last DDP batch is often uneven).
        """
        if not self._is_ddp:
            return arr
        world_size = torch.distributed.get_world_size()
        gathered: List[Optional[np.ndarray]] = [None] * world_size
        torch.distributed.all_gather_object(gathered, arr)
        return np.concatenate([g for g in gathered if g is not None], axis=0)

    def _reduce_sum(self, *values: float) -> List[float]:
        """Sum scalar values across all DDP ranks (no-op outside DDP)."""
        if not self._is_ddp:
            return list(values)
        t = torch.tensor(values, dtype=torch.float64, device=self.device)
        torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.SUM)
        return t.tolist()

    # ------------------------------------------------------------------
    # Checkpoint I/O
    # ------------------------------------------------------------------

    def _load_checkpoint(self, path: Path) -> None:
        # weights_only=False: FujiCV checkpoints embed a History object + dicts;
        # torch>=2.6 defaults weights_only=True and would refuse to unpickle them.
        # These are the user's own trusted checkpoints.
        ckpt = torch.load(path, map_location=self.device, weights_only=False)
        self._model_core.load_state_dict(ckpt["model_state_dict"])
        if "optimizer_state_dict" in ckpt:
            self.optimizer.load_state_dict(ckpt["optimizer_state_dict"])
        self._start_epoch = ckpt.get("epoch", 0) + 1
        if "history" in ckpt:
            raw = ckpt["history"]
            if isinstance(raw, History):
                self.history = raw
            elif isinstance(raw, dict):
                self.history = History(metrics=raw)
            else:
                logger.warning("Unrecognised history format in checkpoint; starting fresh.")
        logger.info("Resumed from checkpoint %s (epoch %d)", path, self._start_epoch)

    def _save_last_checkpoint(self, epoch: int) -> None:
        state = self._model_core.state_dict()
        payload = {
            "model_state_dict": state,
            "optimizer_state_dict": self.optimizer.state_dict(),
            "epoch": epoch,
            "history": self.history,
            "class_to_idx": self.class_to_idx,
            "task": self.task,
        }
        torch.save(payload, self.output_dir / "last.pt")

    # ------------------------------------------------------------------
    # Single epoch helpers
    # ------------------------------------------------------------------

    def _run_epoch(self, loader: DataLoader, training: bool) -> Dict[str, float]:
        self.model.train(training)
        total_loss = 0.0
        n = 0
        all_preds: List[np.ndarray] = []
        all_targets: List[np.ndarray] = []

        accum = self.grad_accum_steps
        num_batches = len(loader) if hasattr(loader, "__len__") else None

        ctx = torch.enable_grad() if training else torch.no_grad()
        with ctx:
            if training:
                self.optimizer.zero_grad(set_to_none=True)
            for batch_idx, batch in enumerate(loader):
                images, targets = batch
                images = images.to(self.device, non_blocking=True)
                targets = targets.to(self.device, non_blocking=True)

                with autocast(enabled=self._use_amp):
                    logits = self.model(images)
                    loss = self.loss_fn(logits, targets)

                if training:
                    # Scale so accumulated gradients match a full-size batch.
                    self._scaler.scale(loss / accum).backward()

                    is_last_batch = num_batches is not None and batch_idx == num_batches - 1
                    if (batch_idx + 1) % accum == 0 or is_last_batch:
                        if self.grad_clip is not None:
                            self._scaler.unscale_(self.optimizer)
                            nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
                        self._scaler.step(self.optimizer)
                        self._scaler.update()
                        self.optimizer.zero_grad(set_to_none=True)
                        if self._ema is not None:
                            self._ema.update(self._model_core)

                batch_n = images.size(0)
                total_loss += loss.item() * batch_n
                n += batch_n
                all_preds.append(logits.detach().float().cpu().numpy())
                all_targets.append(targets.detach().cpu().numpy())

        # Pool loss and predictions across all DDP ranks so every rank computes
        # identical, dataset-wide metrics (correct EarlyStopping / LR plateau).
        total_loss, n = self._reduce_sum(total_loss, float(n))
        avg_loss = total_loss / max(n, 1)

        preds_arr = self._gather_concat(np.concatenate(all_preds, axis=0))
        targets_arr = self._gather_concat(np.concatenate(all_targets, axis=0))

        prefix = "train" if training else "val"
        result = {f"{prefix}_loss": avg_loss}
        for name, fn in self.metrics.items():
            try:
                result[f"{prefix}_{name}"] = float(fn(targets_arr, preds_arr))
            except Exception as exc:
                logger.warning("Metric '%s' failed: %s", name, exc)
                result[f"{prefix}_{name}"] = float("nan")

        return result

    # ------------------------------------------------------------------
    # Public API
    # ------------------------------------------------------------------

    def train(self) -> History:
        """Run the full training loop.

        Returns:
            A :class:`History` object containing per-epoch metric values.
        """
        logger.info(
            "Starting training: epochs=%d  device=%s  amp=%s",
            self.epochs,
            self.device,
            self._use_amp,
        )

        for epoch in range(self._start_epoch, self.epochs):
            t0 = time.time()
            # Reshuffle the DDP shards differently each epoch.
            if self._train_sampler is not None:
                self._train_sampler.set_epoch(epoch)
            train_metrics = self._run_epoch(self.train_loader, training=True)
            # Validate with EMA shadow weights when EMA is active
            if self._ema is not None:
                with self._ema.average_parameters(self._model_core):
                    val_metrics = self._run_epoch(self.val_loader, training=False)
            else:
                val_metrics = self._run_epoch(self.val_loader, training=False)
            epoch_metrics = {**train_metrics, **val_metrics}
            self.history.update(epoch_metrics)

            elapsed = time.time() - t0
            metric_str = "  ".join(f"{k}={v:.4f}" for k, v in epoch_metrics.items())
            logger.info("Epoch %d/%d  [%.1fs]  %s", epoch + 1, self.epochs, elapsed, metric_str)

            # Checkpoint + incremental history — rank-0 only under DDP to avoid
            # concurrent writes corrupting best.pt / last.pt / history files.
            if self._is_main_process:
                _model_to_save = self._model_core
                _extra = {
                    "optimizer_state_dict": self.optimizer.state_dict(),
                    "epoch": epoch,
                    "history": self.history,
                    "class_to_idx": self.class_to_idx,
                    "task": self.task,
                }
                if self._ema is not None:
                    _extra["ema_state_dict"] = self._ema.state_dict()
                self._ckpt.step(epoch_metrics, _model_to_save, extra=_extra)
                self._save_last_checkpoint(epoch)
                # Persist history every epoch so preemption/crash never loses it.
                self.history.to_csv(self.output_dir / "history.csv")
                self.history.to_json(self.output_dir / "history.json")

            # LR scheduler
            if self._lr_callback is not None:
                self._lr_callback.step(epoch_metrics)

            # W&B logging
            if self.wandb_logger is not None:
                self.wandb_logger.log_epoch(epoch, epoch_metrics)

            # TensorBoard logging
            if self.tb_logger is not None:
                self.tb_logger.log_epoch(epoch, epoch_metrics)

            # Generic loggers (MLflow / Neptune / custom BaseLogger implementations)
            for lg in self.loggers:
                lg.log_epoch(epoch, epoch_metrics)

            # Early stopping
            if self._early_stop is not None and self._early_stop.step(epoch_metrics):
                logger.info("Early stopping triggered at epoch %d.", epoch + 1)
                break

        # Final history flush (rank-0 only). Written incrementally each epoch
        # above, so this is just a last consistent snapshot.
        if self._is_main_process:
            self.history.to_csv(self.output_dir / "history.csv")
            self.history.to_json(self.output_dir / "history.json")

        if self.wandb_logger is not None:
            self.wandb_logger.finish()

        if self.tb_logger is not None:
            self.tb_logger.finish()

        for lg in self.loggers:
            lg.finish()

        logger.info("Training complete. Outputs saved to %s", self.output_dir)
        return self.history
