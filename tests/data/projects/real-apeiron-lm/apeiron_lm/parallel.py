# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Multi-GPU / Distributed Training Utilities  (v0.0.3.2)
========================================================
Closes the "no distributed training" gap from v0.0.3.

Supports:
  1. DataParallel (DP)     — single machine, multiple GPUs, minimal setup
  2. DistributedDataParallel (DDP) — multi-machine, production-grade
  3. FSDP (basic)          — Fully Sharded Data Parallel via PyTorch FSDP

Usage
-----
DataParallel (simplest, single-machine):

>>> from apeiron_lm.parallel import wrap_data_parallel
>>> model = ApeironLM(cfg)
>>> model = wrap_data_parallel(model)   # wraps if >1 GPU available
>>> trainer = ApeironTrainer(model, dataset, args)
>>> trainer.train()

DDP (recommended for multi-GPU):

>>> # Run with: torchrun --nproc_per_node=4 train.py
>>> from apeiron_lm.parallel import DDPContext, wrap_ddp
>>> with DDPContext() as ctx:
...     model = ApeironLM(cfg).to(ctx.device)
...     model = wrap_ddp(model, ctx)
...     trainer = ApeironTrainer(model.module, dataset, args)
...     trainer.train()

Or use the high-level ApeironDDPTrainer:

>>> from apeiron_lm.parallel import ApeironDDPTrainer
>>> trainer = ApeironDDPTrainer(model, dataset, args)
>>> trainer.train()   # auto-detects DDP env, falls back to single-GPU

FSDP:

>>> from apeiron_lm.parallel import wrap_fsdp
>>> model = wrap_fsdp(model)
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Dict, Generator, List, Optional, Union

import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader, DistributedSampler

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# DDPContext
# ---------------------------------------------------------------------------

@dataclass
class DDPContext:
    """
    Holds process-group metadata for DDP.

    Use as a context manager (initialises and destroys process group):

    >>> with DDPContext() as ctx:
    ...     print(ctx.rank, ctx.world_size, ctx.device)
    """
    rank:       int  = 0
    world_size: int  = 1
    local_rank: int  = 0
    device:     Optional[torch.device] = None
    _initialised: bool = False

    def __enter__(self) -> "DDPContext":
        self._init()
        return self

    def __exit__(self, *_: Any) -> None:
        self._destroy()

    def _init(self) -> None:
        import torch.distributed as dist
        if dist.is_available() and not dist.is_initialized():
            backend = "nccl" if torch.cuda.is_available() else "gloo"
            dist.init_process_group(backend=backend)
        if dist.is_initialized():
            self.rank       = dist.get_rank()
            self.world_size = dist.get_world_size()
            self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        if torch.cuda.is_available():
            torch.cuda.set_device(self.local_rank)
            self.device = torch.device(f"cuda:{self.local_rank}")
        else:
            self.device = torch.device("cpu")
        self._initialised = True
        logger.info("DDP: rank=%d world=%d device=%s", self.rank, self.world_size, self.device)

    def _destroy(self) -> None:
        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
        self._initialised = False

    @property
    def is_main(self) -> bool:
        """True for rank 0 (the process that logs/saves)."""
        return self.rank == 0

    @staticmethod
    def detect() -> "DDPContext":
        """
        Detect and return current DDP context without becoming a context manager.
        Safe to call even if DDP is not initialised (returns rank=0 context).
        """
        ctx = DDPContext()
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            ctx.rank       = dist.get_rank()
            ctx.world_size = dist.get_world_size()
            ctx.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        if torch.cuda.is_available():
            torch.cuda.set_device(ctx.local_rank)
            ctx.device = torch.device(f"cuda:{ctx.local_rank}")
        else:
            ctx.device = torch.device("cpu")
        ctx._initialised = True
        return ctx


# ---------------------------------------------------------------------------
# DataParallel wrapper
# ---------------------------------------------------------------------------

def wrap_data_parallel(
    model:        nn.Module,
    device_ids:   Optional[List[int]] = None,
    output_device: Optional[int] = None,
) -> nn.Module:
    """
    Wrap model in nn.DataParallel if multiple GPUs are available.

    Parameters
    ----------
    model : nn.Module
    device_ids : List[int] or None  — GPU ids to use; None = all available
    output_device : int or None     — device for output; defaults to device_ids[0]

    Returns
    -------
    nn.DataParallel or the original model if no multi-GPU
    """
    if not torch.cuda.is_available():
        logger.info("DataParallel: no CUDA — using CPU")
        return model

    n_gpus = torch.cuda.device_count()
    if n_gpus <= 1:
        logger.info("DataParallel: only %d GPU — no wrapping", n_gpus)
        model = model.cuda()
        return model

    ids = device_ids or list(range(n_gpus))
    out = output_device if output_device is not None else ids[0]
    model = model.cuda(ids[0])
    wrapped = nn.DataParallel(model, device_ids=ids, output_device=out)
    logger.info("DataParallel: %d GPUs %s → output=%d", len(ids), ids, out)
    return wrapped


# ---------------------------------------------------------------------------
# DDP wrapper
# ---------------------------------------------------------------------------

def wrap_ddp(
    model:        nn.Module,
    ctx:          DDPContext,
    find_unused:  bool = False,
    gradient_as_bucket_view: bool = True,
) -> nn.Module:
    """
    Wrap model in DistributedDataParallel.

    Model must already be on ctx.device before calling this.

    Parameters
    ----------
    model : nn.Module   (already on ctx.device)
    ctx : DDPContext
    find_unused : bool  — needed if some parameters don't receive gradients
    gradient_as_bucket_view : bool — memory-efficient gradient communication

    Returns
    -------
    DistributedDataParallel or original model if world_size == 1
    """
    import torch.distributed as dist
    if not dist.is_initialized() or ctx.world_size == 1:
        logger.info("DDP: world_size=1 — no wrapping")
        return model

    from torch.nn.parallel import DistributedDataParallel as DDP
    wrapped = DDP(
        model,
        device_ids          = [ctx.local_rank] if torch.cuda.is_available() else None,
        find_unused_parameters       = find_unused,
        gradient_as_bucket_view      = gradient_as_bucket_view,
    )
    logger.info("DDP: rank=%d/%d  device=%s", ctx.rank, ctx.world_size, ctx.device)
    return wrapped


# ---------------------------------------------------------------------------
# FSDP wrapper
# ---------------------------------------------------------------------------

def wrap_fsdp(
    model:          nn.Module,
    min_num_params: int = 100_000,
    mixed_precision: bool = True,
) -> nn.Module:
    """
    Wrap model in Fully Sharded Data Parallel.

    Parameters
    ----------
    model : nn.Module
    min_num_params : int
        Minimum param count for a submodule to be wrapped independently.
    mixed_precision : bool
        Enable bfloat16 compute precision if available.

    Returns
    -------
    FSDP-wrapped model
    """
    if not torch.cuda.is_available():
        logger.warning("FSDP: no CUDA — falling back to CPU (no sharding)")
        return model

    try:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy
        from torch.distributed.fsdp import MixedPrecision
        import functools
    except ImportError:
        logger.warning("FSDP not available in this PyTorch version")
        return model

    wrap_policy = functools.partial(
        size_based_auto_wrap_policy,
        min_num_params=min_num_params,
    )

    mp: Optional[Any] = None
    if mixed_precision:
        try:
            mp = MixedPrecision(
                param_dtype   = torch.bfloat16,
                reduce_dtype  = torch.float32,
                buffer_dtype  = torch.float32,
            )
        except Exception:
            mp = None

    kw: Dict[str, Any] = {"auto_wrap_policy": wrap_policy}
    if mp is not None:
        kw["mixed_precision"] = mp

    wrapped = FSDP(model, **kw)
    logger.info("FSDP: model wrapped  min_num_params=%d  mixed_precision=%s",
                min_num_params, mixed_precision)
    return wrapped


# ---------------------------------------------------------------------------
# Distributed DataLoader helper
# ---------------------------------------------------------------------------

def make_distributed_loader(
    dataset:    Dataset,
    batch_size: int,
    ctx:        DDPContext,
    shuffle:    bool = True,
    **dataloader_kwargs: Any,
) -> DataLoader:
    """
    Build a DataLoader with DistributedSampler for DDP training.

    Parameters
    ----------
    dataset : Dataset
    batch_size : int   — per-GPU batch size
    ctx : DDPContext
    shuffle : bool
    **dataloader_kwargs : extra args for DataLoader

    Returns
    -------
    DataLoader
    """
    sampler = DistributedSampler(
        dataset,
        num_replicas = ctx.world_size,
        rank         = ctx.rank,
        shuffle      = shuffle,
    ) if ctx.world_size > 1 else None

    return DataLoader(
        dataset,
        batch_size  = batch_size,
        sampler     = sampler,
        shuffle     = (shuffle and sampler is None),
        **dataloader_kwargs,
    )


# ---------------------------------------------------------------------------
# ApeironDDPTrainer  — thin DDP-aware wrapper around ApeironTrainer
# ---------------------------------------------------------------------------

class ApeironDDPTrainer:
    """
    DDP-aware wrapper around ApeironTrainer.

    Automatically detects the DDP environment (set up by torchrun) and
    wraps the model.  Falls back to single-GPU / CPU if no DDP found.

    Usage (launch with torchrun):

        torchrun --nproc_per_node=4 train.py

    >>> from apeiron_lm.parallel import ApeironDDPTrainer
    >>> ctx     = DDPContext.detect()
    >>> model   = ApeironLM(cfg).to(ctx.device)
    >>> trainer = ApeironDDPTrainer(model, dataset, args, ctx=ctx)
    >>> trainer.train()

    Parameters
    ----------
    model : ApeironLM
    dataset : Dataset
    args : TrainingArguments
    ctx : DDPContext or None
        If None, auto-detected.
    eval_dataset : Dataset or None
    """

    def __init__(
        self,
        model:        "ApeironLM",
        dataset:      Dataset,
        args:         Any,
        ctx:          Optional[DDPContext] = None,
        eval_dataset: Optional[Dataset]   = None,
    ) -> None:
        from apeiron_lm.training.trainer import ApeironTrainer

        self.ctx    = ctx or DDPContext.detect()
        self.is_main = self.ctx.is_main

        # Move model to correct device
        model = model.to(self.ctx.device)

        # Wrap in DDP if multi-process
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized() and self.ctx.world_size > 1:
            self._ddp_model = wrap_ddp(model, self.ctx)
            unwrapped        = self._ddp_model.module   # type: ignore[union-attr]
        else:
            self._ddp_model = model
            unwrapped        = model

        # Build distributed DataLoader
        loader = make_distributed_loader(
            dataset,
            batch_size  = args.batch_size,
            ctx         = self.ctx,
            shuffle     = True,
            num_workers = getattr(args, "dataloader_num_workers", 0),
            pin_memory  = (self.ctx.device.type == "cuda"),
        )

        # ApeironTrainer takes raw model (not DDP) for state_dict access
        # We pass the DDP wrapper but save via unwrapped
        self._trainer = ApeironTrainer(
            model         = self._ddp_model,
            dataset       = dataset,
            args          = args,
            eval_dataset  = eval_dataset,
        )
        self._unwrapped = unwrapped

    def train(self) -> Dict[str, Any]:
        """Run training.  Only rank 0 logs and saves checkpoints."""
        result = self._trainer.train()
        # Synchronise all processes after training
        try:
            import torch.distributed as dist
            if dist.is_initialized():
                dist.barrier()
        except Exception:
            pass
        return result

    def save(self, directory: Union[str, "Path"]) -> None:
        """Save model (rank 0 only)."""
        if self.is_main:
            self._unwrapped.save(directory)

    def evaluate(self) -> float:
        """Evaluate on all processes; return mean loss."""
        return self._trainer.evaluate()
