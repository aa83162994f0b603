"""
kolmgformers/training.py  v2.0.7
=====================================
Full-featured training infrastructure for OMGFormer.

Changes in v2.0.7 (final release):
  FIX BUG #3  — _save_checkpoint: training_meta.json now writes "2.0.7"
        instead of the stale "2.0.6-BETA".

  FIX BUG #4  — lr_schedule = "linear" now properly implemented via
        get_warmup_linear_schedule(). Trainer dispatches cosine|cosine_restarts|linear.
        TrainingConfig.validate() now rejects unknown schedule names.

  FIX BUG #11 — FineTuneConfig now has lr_schedule and min_lr_ratio fields.
        FineTuner respects them instead of always using cosine.

  FIX BUG #D1 — wrap_fsdp tam implementasyon:
        FSDP artık sharding_strategy (FULL_SHARD / SHARD_GRAD_OP),
        mixed_precision policy, auto_wrap_policy (transformer_auto_wrap),
        cpu_offload ve backward_prefetch desteğiyle çalışıyor.

  FIX BUG #D2 — dist.init_process_group & torchrun entegrasyonu:
        init_distributed() fonksiyonu eklendi.  RANK/WORLD_SIZE/LOCAL_RANK
        env var'larını okur; torchrun ile tek komutla multi-node başlatılır.

  FIX BUG #D3 — AutoTuner multi-GPU düzeltmesi:
        AutoTuner artık tüm görünür GPU'ları tarar ve en kısıtlayıcı
        VRAM'ı baz alarak batch_size / dtype önerisi üretir.

  FIX BUG #D4 — CheckpointManager keep_last_n=0 net davranış:
        0 ≤ 0 koşulu artık "hepsini sakla" olarak açıkça belgelenmiş.

  FIX BUG #D5 — save_pretrained HuggingFace uyumlu config.json:
        OMGConfig.to_dict() artık model_type, architectures,
        transformers_version alanlarını ekliyor.

  FIX BUG #T6 (tam düzeltme) — gradient_checkpointing tam path:
        enable_gradient_checkpointing'e ek olarak Trainer ve FineTuner
        __init__ içinde de model.gradient_checkpointing_enable() HF
        API'si deneniyor (varsa).

  All v2.0.6 changes preserved (Features #53–#56, BUG FIX #T5–#T7).
  All v2.0.5 bug fixes preserved (BUG FIX #T1–T4).
  All v2.0.5 features preserved (#45–#52).

Multi-node başlatma örneği (torchrun)::

    # 2 makine, her birinde 8 GPU:
    # Makine 0:
    torchrun --nproc_per_node=8 --nnodes=2 --node_rank=0 \\
             --master_addr=<IP> --master_port=29500 train.py

    # Makine 1:
    torchrun --nproc_per_node=8 --nnodes=2 --node_rank=1 \\
             --master_addr=<IP> --master_port=29500 train.py

    # train.py içinde:
    from kolmgformers.training import init_distributed, TrainingConfig, Trainer
    rank, world_size, local_rank = init_distributed()
    cfg = TrainingConfig(use_fsdp=True, device=f"cuda:{local_rank}")
"""

from __future__ import annotations

import copy
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

import torch
import torch.nn as nn
from torch.optim import AdamW, SGD
from torch.optim.lr_scheduler import LambdaLR, CosineAnnealingWarmRestarts

from kolmgformers.diffusion import MaskScheduler


__all__ = [
    "TrainingConfig",
    "FineTuneConfig",
    "get_warmup_cosine_schedule",
    "get_warmup_linear_schedule",
    "get_warmup_cosine_restarts_schedule",
    "enable_gradient_checkpointing",
    "init_distributed",
    "wrap_fsdp",
    "AutoTuner",
    "EMA",
    "Trainer",
    "FineTuner",
    "create_base_model",
    "CheckpointManager",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Training Configuration ────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class TrainingConfig:
    """
    Complete training configuration for OMGFormer.

    Covers optimizer, scheduler, precision, distributed training,
    logging, self-conditioning, and all v2.0.5 + v2.0.6 features.
    """

    # ── Core ──────────────────────────────────────────────────────────────────
    steps:           int   = 100_000
    batch_size:      int   = 32
    seq_len:         int   = 512
    lr:              float = 3e-4
    weight_decay:    float = 0.1
    grad_clip:       float = 1.0
    warmup_steps:    int   = 2_000
    save_every:      int   = 10_000
    log_every:       int   = 100
    output_dir:      str   = "./checkpoints"
    device:          str   = "cuda"

    # ── Speed optimizations ───────────────────────────────────────────────────
    use_amp:              bool  = True
    amp_dtype:            str   = "bfloat16"          # "bfloat16" | "float16"
    grad_accum_steps:     int   = 1
    use_compile:          bool  = True                # torch.compile (~30% speedup)
    gradient_checkpointing: bool = False
    use_fused_adam:       bool  = True                # BUG FIX #T3: opt-in fused AdamW

    # ── Multi-GPU ─────────────────────────────────────────────────────────────
    use_fsdp: bool = False
    use_ddp:  bool = False

    # ── Self-conditioning ─────────────────────────────────────────────────────
    self_cond_prob: float = 0.5

    # ── Logging ───────────────────────────────────────────────────────────────
    use_wandb:       bool = False
    wandb_project:   str  = "kolmgformers"
    wandb_run_name:  str  = ""

    # ── AdamW betas ───────────────────────────────────────────────────────────
    beta1: float = 0.9
    beta2: float = 0.95

    # ── LR schedule ──────────────────────────────────────────────────────────
    min_lr_ratio:    float = 0.1
    lr_schedule:     str   = "cosine"   # "cosine" | "cosine_restarts" | "linear"
    lr_restart_mult: int   = 2          # Feature #47: restart period multiplier

    # ── Feature #45 : Optimizer choice ────────────────────────────────────────
    optimizer:  str   = "adamw"   # "adamw" | "lion" | "muon" | "sgd"
    lion_beta1: float = 0.9
    lion_beta2: float = 0.99

    # ── Feature #49 : Gradient noise ──────────────────────────────────────────
    grad_noise_std:   float = 0.0    # 0.0 = disabled
    grad_noise_gamma: float = 0.55   # annealing exponent

    # ── Feature #50 : EMA ─────────────────────────────────────────────────────
    use_ema:    bool  = False
    ema_decay:  float = 0.9999
    ema_warmup: int   = 1_000

    # ── Feature #52 : Curriculum learning ─────────────────────────────────────
    use_curriculum:    bool  = False
    curriculum_start:  float = 0.5     # start at 50% of max seq len
    curriculum_rampup: int   = 10_000  # steps to reach full seq len

    # ── NEW Feature #56 : Checkpoint manager ──────────────────────────────────
    keep_last_n_checkpoints: int = 3   # 0 = keep all

    def validate(self) -> None:
        """Validate configuration values before training starts."""
        if self.grad_accum_steps < 1:
            raise ValueError(f"grad_accum_steps must be >= 1, got {self.grad_accum_steps}.")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}.")
        if self.warmup_steps >= self.steps:
            raise ValueError(
                f"warmup_steps ({self.warmup_steps}) must be < steps ({self.steps})."
            )
        if self.amp_dtype not in ("bfloat16", "float16"):
            raise ValueError(
                f"amp_dtype must be 'bfloat16' or 'float16', got '{self.amp_dtype}'."
            )
        if not (0.0 <= self.self_cond_prob <= 1.0):
            raise ValueError(f"self_cond_prob must be in [0, 1], got {self.self_cond_prob}.")
        if self.optimizer not in ("adamw", "lion", "muon", "sgd"):
            raise ValueError(
                f"optimizer must be one of adamw|lion|muon|sgd, got '{self.optimizer}'."
            )
        if self.lr_schedule not in ("cosine", "cosine_restarts", "linear"):
            raise ValueError(
                f"lr_schedule must be one of cosine|cosine_restarts|linear, got '{self.lr_schedule}'."
            )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Fine-tuning Configuration ─────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class FineTuneConfig:
    """
    NEW v2.0.6 — Fine-tuning configuration (Feature #54).

    Controls which layers are frozen and how fine-tuning proceeds.
    Fine-tuning, base model üzerinde yapılır.  Base model boş ağırlıklarla
    oluşturulmuş olabilir; fine-tuning sonrası model konuşmaya başlar.

    Args:
        method:          "full" | "lora" | "freeze_bottom"
        freeze_layers:   Bottom N layers to freeze (for freeze_bottom method).
        lr:              Fine-tuning learning rate (usually lower than pretraining).
        steps:           Fine-tuning steps.
        warmup_steps:    LR warmup steps.
        batch_size:      Batch size for fine-tuning.
        seq_len:         Sequence length for fine-tuning.
        grad_accum_steps: Gradient accumulation steps.
        use_amp:         Mixed precision.
        amp_dtype:       AMP dtype.
        output_dir:      Where to save fine-tuned model.
        save_every:      Save checkpoint every N steps.
        log_every:       Log every N steps.
        lora_rank:       LoRA rank (used if method="lora", also reads from config).
        lora_alpha:      LoRA alpha scaling.
        device:          Device to use.
    """

    method:          str   = "full"       # "full" | "lora" | "freeze_bottom"
    freeze_layers:   int   = 0            # for freeze_bottom
    lr:              float = 1e-4
    steps:           int   = 10_000
    warmup_steps:    int   = 500
    batch_size:      int   = 16
    seq_len:         int   = 512
    grad_accum_steps: int  = 1
    use_amp:         bool  = True
    amp_dtype:       str   = "bfloat16"
    output_dir:      str   = "./finetuned"
    save_every:      int   = 2_000
    log_every:       int   = 50
    lora_rank:       int   = 16
    lora_alpha:      float = 32.0
    device:          str   = "cuda"
    grad_clip:       float = 1.0
    weight_decay:    float = 0.01
    min_lr_ratio:    float = 0.1
    lr_schedule:     str   = "cosine"   # "cosine" | "cosine_restarts" | "linear"

    def validate(self) -> None:
        if self.method not in ("full", "lora", "freeze_bottom"):
            raise ValueError(f"method must be full|lora|freeze_bottom, got '{self.method}'.")
        if self.freeze_layers < 0:
            raise ValueError(f"freeze_layers must be >= 0, got {self.freeze_layers}.")
        if self.steps < 1:
            raise ValueError(f"steps must be >= 1, got {self.steps}.")


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── LR Schedules ──────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def get_warmup_cosine_schedule(
    optimizer,
    warmup_steps: int,
    total_steps:  int,
    min_ratio:    float = 0.1,
) -> LambdaLR:
    """Linear warmup followed by cosine annealing to min_ratio × lr."""
    def lr_lambda(step: int) -> float:
        if step < warmup_steps:
            return float(step + 1) / float(max(1, warmup_steps))
        progress = float(step - warmup_steps) / float(max(1, total_steps - warmup_steps))
        return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return LambdaLR(optimizer, lr_lambda)


def get_warmup_linear_schedule(
    optimizer,
    warmup_steps: int,
    total_steps:  int,
    min_ratio:    float = 0.0,
) -> LambdaLR:
    """Linear warmup followed by linear decay to min_ratio × lr."""
    def lr_lambda(step: int) -> float:
        if step < warmup_steps:
            return float(step + 1) / float(max(1, warmup_steps))
        progress = float(step - warmup_steps) / float(max(1, total_steps - warmup_steps))
        return max(min_ratio, 1.0 - (1.0 - min_ratio) * progress)
    return LambdaLR(optimizer, lr_lambda)


def get_warmup_cosine_restarts_schedule(
    optimizer,
    warmup_steps: int,
    first_cycle:  int,
    restart_mult: int   = 2,
    min_ratio:    float = 0.1,
) -> LambdaLR:
    """
    Feature #47 — Cosine annealing with warm restarts (SGDR).

    After each cycle, the cycle length is multiplied by restart_mult.
    """
    def lr_lambda(step: int) -> float:
        if step < warmup_steps:
            return float(step + 1) / float(max(1, warmup_steps))
        t      = step - warmup_steps
        cycle  = first_cycle
        offset = 0
        while t >= cycle:
            t     -= cycle
            offset += cycle
            cycle  = int(cycle * restart_mult)
        progress = t / max(1, cycle)
        return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return LambdaLR(optimizer, lr_lambda)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Utilities ─────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def enable_gradient_checkpointing(model: nn.Module) -> None:
    """
    Enable per-block gradient checkpointing.

    BUG FIX #T6 (tam düzeltme, v2.0.8): Üç katmanlı birleşik path:
      1. HuggingFace uyumlu gradient_checkpointing_enable() API'si denenir.
      2. model.config.gradient_checkpointing senkronize edilir.
      3. Dahili _use_gradient_checkpointing flag'i her durumda set edilir.
    """
    # 1) HuggingFace / omg_hybridomga uyumlu API (varsa)
    if hasattr(model, "gradient_checkpointing_enable"):
        try:
            model.gradient_checkpointing_enable()
        except Exception:
            pass  # Desteklemiyorsa sessizce devam et

    # 2) Config senkronizasyonu
    if hasattr(model, "config") and hasattr(model.config, "gradient_checkpointing"):
        model.config.gradient_checkpointing = True

    # 3) Dahili flag (OMGFormer _forward_blocks tarafından okunur)
    model._use_gradient_checkpointing = True
    print("[kolmgformers] Gradient checkpointing enabled.")


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── BUG FIX #D2 — Distributed Process Group Initialization ───────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def init_distributed(
    backend: str = "nccl",
    init_method: str = "env://",
) -> tuple:
    """
    Initialize the distributed process group for multi-GPU / multi-node training.

    BUG FIX #D2 (v2.0.8): Bu fonksiyon olmadan FSDP veya DDP başlatılamaz.
    torchrun veya mpirun ile otomatik env var okur; manuel override da destekler.

    Args:
        backend:     "nccl" (GPU), "gloo" (CPU/test), "mpi" (MPI cluster).
        init_method: "env://" (torchrun), "tcp://<IP>:<PORT>" (manuel).

    Returns:
        (rank, world_size, local_rank) üçlüsü.

    Usage::

        # train.py
        from kolmgformers.training import init_distributed, TrainingConfig, Trainer

        rank, world_size, local_rank = init_distributed()
        cfg = TrainingConfig(
            use_fsdp=True,
            device=f"cuda:{local_rank}",
        )
        # ... model oluştur, Trainer başlat ...

    torchrun ile başlatma::

        # Tek makine, 4 GPU:
        torchrun --nproc_per_node=4 train.py

        # 2 makine, her birinde 8 GPU (master_addr Makine-0'ın IP'si):
        # Makine 0:
        torchrun --nproc_per_node=8 --nnodes=2 --node_rank=0 \\
                 --master_addr=192.168.1.1 --master_port=29500 train.py
        # Makine 1:
        torchrun --nproc_per_node=8 --nnodes=2 --node_rank=1 \\
                 --master_addr=192.168.1.1 --master_port=29500 train.py
    """
    import torch.distributed as dist

    # torchrun bu env var'ları otomatik set eder
    rank       = int(os.environ.get("RANK",       0))
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))

    if not dist.is_initialized():
        dist.init_process_group(
            backend=backend,
            init_method=init_method,
            world_size=world_size,
            rank=rank,
        )
        print(
            f"[kolmgformers] Distributed init: rank={rank}/{world_size}, "
            f"local_rank={local_rank}, backend={backend}"
        )
    else:
        print("[kolmgformers] Distributed process group already initialized.")

    # GPU'yu local rank'a göre sabitle
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)

    return rank, world_size, local_rank


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── BUG FIX #D1 — Full FSDP Wrapper ─────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def wrap_fsdp(
    model: nn.Module,
    device: str = "cuda",
    sharding_strategy: str = "FULL_SHARD",
    mixed_precision_dtype: Optional[str] = None,
    cpu_offload: bool = False,
    min_params_to_wrap: int = 1_000_000,
    backward_prefetch: str = "BACKWARD_PRE",
) -> nn.Module:
    """
    Tam FSDP wrapper — BUG FIX #D1 (v2.0.8).

    Önceki implementasyon yalnızca ``FSDP(model)`` çağırıyordu; sharding
    strategy, mixed precision, auto_wrap_policy ve cpu_offload parametrelerinin
    hiçbiri yoktu.  Bu sürüm production-ready.

    Args:
        model:                 Sarılacak model.
        device:                Hedef cihaz ("cuda" veya "cuda:N").
        sharding_strategy:     "FULL_SHARD" (en fazla bellek tasarrufu) veya
                               "SHARD_GRAD_OP" (daha hızlı ileri-geri geçiş).
        mixed_precision_dtype: None, "bfloat16" veya "float16".
                               None ise mixed precision kapalıdır.
        cpu_offload:           True ise parametre ve gradyanlar CPU'ya offload edilir
                               (VRAM tasarrufu, performans bedeli).
        min_params_to_wrap:    Bu eşiğin altındaki modüller ayrıca sarılmaz
                               (auto_wrap_policy için minimum parametre sayısı).
        backward_prefetch:     "BACKWARD_PRE" (varsayılan, daha hızlı) veya
                               "BACKWARD_POST".

    Returns:
        FSDP-wrapped model; FSDP mevcut değilse orijinal model.

    Usage::

        rank, world_size, local_rank = init_distributed()
        model = OMGModel(config)
        model = wrap_fsdp(
            model,
            device=f"cuda:{local_rank}",
            sharding_strategy="FULL_SHARD",
            mixed_precision_dtype="bfloat16",
        )
    """
    try:
        from torch.distributed.fsdp import (
            FullyShardedDataParallel as FSDP,
            MixedPrecision,
            CPUOffload,
            BackwardPrefetch,
            ShardingStrategy,
        )
        from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy
        import functools
    except ImportError:
        print("[kolmgformers] FSDP not available, returning unwrapped model.")
        return model

    # Sharding strategy
    _sharding_map = {
        "FULL_SHARD":    ShardingStrategy.FULL_SHARD,
        "SHARD_GRAD_OP": ShardingStrategy.SHARD_GRAD_OP,
        "NO_SHARD":      ShardingStrategy.NO_SHARD,
    }
    strategy = _sharding_map.get(sharding_strategy, ShardingStrategy.FULL_SHARD)

    # Mixed precision policy
    mp_policy = None
    if mixed_precision_dtype is not None:
        _dtype_map = {"bfloat16": torch.bfloat16, "float16": torch.float16}
        compute_dtype = _dtype_map.get(mixed_precision_dtype, torch.bfloat16)
        mp_policy = MixedPrecision(
            param_dtype=compute_dtype,
            reduce_dtype=compute_dtype,
            buffer_dtype=compute_dtype,
        )

    # CPU offload
    offload = CPUOffload(offload_params=True) if cpu_offload else None

    # Backward prefetch
    _prefetch_map = {
        "BACKWARD_PRE":  BackwardPrefetch.BACKWARD_PRE,
        "BACKWARD_POST": BackwardPrefetch.BACKWARD_POST,
    }
    prefetch = _prefetch_map.get(backward_prefetch, BackwardPrefetch.BACKWARD_PRE)

    # Auto-wrap policy: min_params_to_wrap parametreden küçük modülleri sarmama
    auto_wrap = functools.partial(
        size_based_auto_wrap_policy,
        min_num_params=min_params_to_wrap,
    )

    device_id = None
    if torch.cuda.is_available():
        if ":" in str(device):
            device_id = int(str(device).split(":")[-1])
        else:
            device_id = torch.cuda.current_device()

    wrapped = FSDP(
        model,
        sharding_strategy=strategy,
        mixed_precision=mp_policy,
        cpu_offload=offload,
        auto_wrap_policy=auto_wrap,
        backward_prefetch=prefetch,
        device_id=device_id,
    )
    print(
        f"[kolmgformers] FSDP enabled: strategy={sharding_strategy}, "
        f"mixed_precision={mixed_precision_dtype}, cpu_offload={cpu_offload}"
    )
    return wrapped


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── BUG FIX #D3 — AutoTuner (Multi-GPU aware) ────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class AutoTuner:
    """
    BUG FIX #D3 (v2.0.8) — Multi-GPU aware hiperparametre önerisi.

    Önceki implementasyon (eğer varsa) yalnızca GPU 0'a bakıyordu.
    Bu sürüm tüm görünür GPU'ları tarar, en kısıtlayıcı VRAM'ı baz alır
    ve güvenli batch_size / dtype önerisi üretir.

    Usage::

        tuner = AutoTuner(model_param_count=350_000_000)
        cfg = tuner.suggest()
        print(cfg)
        # {'batch_size': 8, 'amp_dtype': 'bfloat16', 'grad_accum_steps': 4,
        #  'gpu_count': 4, 'min_vram_gb': 24.0}
    """

    # VRAM → batch_size başlangıç tablosu (model parametre sayısı 350M baz alınmış)
    _VRAM_BATCH_TABLE = [
        (80.0, 32),
        (40.0, 16),
        (24.0,  8),
        (16.0,  4),
        ( 8.0,  2),
        ( 0.0,  1),
    ]

    def __init__(self, model_param_count: int = 0):
        """
        Args:
            model_param_count: Modelin toplam parametre sayısı.
                               Daha büyük modeller için batch_size otomatik küçülür.
        """
        self.model_param_count = model_param_count

    def _scan_gpus(self) -> tuple:
        """Tüm GPU'ları tara; (gpu_count, min_vram_gb) döndür."""
        if not torch.cuda.is_available():
            return 0, 0.0
        gpu_count = torch.cuda.device_count()
        min_vram_bytes = float("inf")
        for i in range(gpu_count):
            props = torch.cuda.get_device_properties(i)
            if props.total_memory < min_vram_bytes:
                min_vram_bytes = props.total_memory
        min_vram_gb = min_vram_bytes / (1024 ** 3) if min_vram_bytes != float("inf") else 0.0
        return gpu_count, min_vram_gb

    def suggest(self) -> Dict[str, Any]:
        """
        GPU ortamını analiz ederek önerilen eğitim ayarlarını döndürür.

        Returns:
            Dict: batch_size, amp_dtype, grad_accum_steps, gpu_count, min_vram_gb.
        """
        gpu_count, min_vram_gb = self._scan_gpus()

        # VRAM tablosuna göre batch_size seç
        batch_size = 1
        for vram_threshold, bs in self._VRAM_BATCH_TABLE:
            if min_vram_gb >= vram_threshold:
                batch_size = bs
                break

        # Büyük modeller için batch_size'ı küçült
        if self.model_param_count > 1_000_000_000:     # 1B+
            batch_size = max(1, batch_size // 4)
        elif self.model_param_count > 350_000_000:      # 350M+
            batch_size = max(1, batch_size // 2)

        # dtype: A100/H100 bfloat16 destekler; eski kartlar float16
        amp_dtype = "bfloat16"
        if gpu_count > 0 and min_vram_gb > 0:
            try:
                # En kısıtlayıcı GPU'nun bf16 desteğini kontrol et
                # (compute capability 8.0+ → Ampere ve üzeri)
                min_cc = 10
                for i in range(gpu_count):
                    props = torch.cuda.get_device_properties(i)
                    cc = props.major * 10 + props.minor
                    if cc < min_cc:
                        min_cc = cc
                if min_cc < 80:
                    amp_dtype = "float16"
            except Exception:
                amp_dtype = "bfloat16"

        # Hedef efektif batch = 256 → grad_accum_steps
        target_effective = 256
        effective = batch_size * max(gpu_count, 1)
        grad_accum_steps = max(1, target_effective // effective)

        result = {
            "batch_size":       batch_size,
            "amp_dtype":        amp_dtype,
            "grad_accum_steps": grad_accum_steps,
            "gpu_count":        gpu_count,
            "min_vram_gb":      round(min_vram_gb, 1),
        }
        print(
            f"[kolmgformers] AutoTuner: {gpu_count} GPU, "
            f"min VRAM={min_vram_gb:.1f} GB → "
            f"batch={batch_size}, dtype={amp_dtype}, "
            f"grad_accum={grad_accum_steps}"
        )
        return result


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── EMA ───────────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class EMA:
    """
    Feature #50 — Exponential Moving Average model weights.

    BUG FIX #T4 (preserved): During warmup, decay is annealed from ~0
    to ema_decay to prevent the EMA from tracking too slowly early on.
    """

    def __init__(self, model: nn.Module, decay: float = 0.9999, warmup: int = 1_000):
        self.model     = model
        self.decay     = decay
        self.warmup    = warmup
        self.shadow    = copy.deepcopy(model.state_dict())

    def update(self, step: int) -> None:
        """BUG FIX #T4: step-dependent decay during warmup."""
        d = min(self.decay, (1 + step) / (10 + step)) if self.warmup > 0 else self.decay

        with torch.no_grad():
            for k, v in self.model.state_dict().items():
                if k in self.shadow:
                    if v.is_floating_point():
                        self.shadow[k].mul_(d).add_(v.float() * (1.0 - d))
                    else:
                        self.shadow[k].copy_(v)

    def apply_shadow(self) -> None:
        """Load EMA weights into the model for inference."""
        self.model.load_state_dict(self.shadow)

    def restore(self, state: dict) -> None:
        """Restore model weights from a previously saved state."""
        self.model.load_state_dict(state)

    def state_dict(self) -> dict:
        return {"shadow": self.shadow, "decay": self.decay, "warmup": self.warmup}

    def load_state_dict(self, d: dict) -> None:
        self.shadow = d["shadow"]
        self.decay  = d.get("decay", self.decay)
        self.warmup = d.get("warmup", self.warmup)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── NEW Feature #56 : Checkpoint Manager ──────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class CheckpointManager:
    """
    NEW v2.0.6 — Feature #56 — Checkpoint Manager.

    Tracks checkpoint directories and removes old ones to save disk space.
    Keeps the last N checkpoints and always keeps the final checkpoint.

    Args:
        output_dir:  Root directory where checkpoints are saved.
        keep_last_n: How many recent checkpoints to keep (0 = keep all).

    Usage::

        ckpt_mgr = CheckpointManager("./checkpoints", keep_last_n=3)
        ckpt_mgr.register("./checkpoints/step-0010000")
        # Old checkpoints beyond keep_last_n are deleted automatically.
    """

    def __init__(self, output_dir: str, keep_last_n: int = 3):
        self.output_dir  = output_dir
        self.keep_last_n = keep_last_n
        self._checkpoints: List[str] = []

        # Restore existing checkpoints from disk
        self._scan_existing()

    def _scan_existing(self) -> None:
        """Find existing step-XXXXXXX directories on disk.

        BUG FIX v2.0.6-BETA (#15): uses os.scandir() with early prefix filter
        instead of os.listdir() + isdir(), which is significantly faster on
        large output directories.
        """
        if not os.path.isdir(self.output_dir):
            return
        dirs = []
        with os.scandir(self.output_dir) as it:
            for entry in it:
                if not entry.name.startswith("step-"):
                    continue
                if not entry.is_dir(follow_symlinks=False):
                    continue
                try:
                    step = int(entry.name.split("-")[1])
                    dirs.append((step, entry.path))
                except (IndexError, ValueError):
                    pass
        dirs.sort(key=lambda x: x[0])
        self._checkpoints = [d for _, d in dirs]

    def register(self, ckpt_dir: str) -> None:
        """Register a new checkpoint and prune old ones if needed."""
        if ckpt_dir not in self._checkpoints:
            self._checkpoints.append(ckpt_dir)
        self._prune()

    def _prune(self) -> None:
        """Delete old checkpoints beyond keep_last_n.

        BUG FIX #D4 (v2.0.8): keep_last_n=0 davranışı netleştirildi.
        ``keep_last_n <= 0`` ise hiçbir checkpoint silinmez (hepsini sakla).
        Bu davranış belgelenmiş ve test edilmiş; implementasyon doğru.
        """
        if self.keep_last_n <= 0:
            return  # 0 = hepsini sakla (keep all)
        while len(self._checkpoints) > self.keep_last_n:
            old = self._checkpoints.pop(0)
            if os.path.isdir(old):
                import shutil
                shutil.rmtree(old, ignore_errors=True)
                print(f"[kolmgformers] Pruned old checkpoint: {old}")

    def latest(self) -> Optional[str]:
        """Return the path of the most recent checkpoint, or None."""
        return self._checkpoints[-1] if self._checkpoints else None

    def all(self) -> List[str]:
        """Return all tracked checkpoint paths."""
        return list(self._checkpoints)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── NEW Feature #53 : Fast Base Model Initialization ─────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def create_base_model(
    preset:       Optional[str] = None,
    config:       Optional[Any] = None,
    hidden_size:  int = 768,
    num_layers:   int = 12,
    num_heads:    int = 12,
    num_kv_heads: Optional[int] = None,
    vocab_size:   int = 32_000,
    max_length:   int = 2048,
    use_moe:      bool = False,
    num_experts:  int = 8,
    num_experts_per_token: int = 2,
    moe_config:   Optional[Any] = None,
    ffn_type:     str = "swiglu",
    attention_type: str = "gqa",
    use_flash_attn: bool = False,
    tokenizer:    Optional[Any] = None,
    dtype:        str = "float32",
    device:       str = "cpu",
    **extra_config_kwargs: Any,
) -> Any:
    """
    NEW v2.0.6 — Feature #53 — Fast base model initialization.

    Base modeli saniyeler içinde oluşturur.  Ağırlıklar uygun
    dağılımlarla başlatılmıştır (scaled init) ama eğitim verisi
    görmemiştir — tıpkı HuggingFace'den indirilen base model gibi.

    Bu modeli kullanmak için fine-tuning gerekir.
    Fine-tuning için ``FineTuner`` sınıfını kullanın.

    Args:
        preset:       Named preset string (e.g. "small", "base", "moe-small").
                      Varsa diğer argümanları override eder.
        config:       Hazır OMGConfig objesi.  Varsa preset ve diğer
                      argümanlar ignore edilir.
        hidden_size:  Model hidden dimension.
        num_layers:   Number of transformer layers.
        num_heads:    Number of attention heads.
        num_kv_heads: Number of KV heads (GQA). None = same as num_heads.
        vocab_size:   Vocabulary size.
        max_length:   Maximum sequence length.
        use_moe:      Enable Mixture of Experts.
        num_experts:  Number of experts (if use_moe=True).
        num_experts_per_token: Experts per token (if use_moe=True).
        moe_config:   Optional MoEConfig object.  Overrides num_experts etc.
        ffn_type:     FFN activation: "swiglu" | "geglu" | "reglu" | "gelu".
        attention_type: Attention variant: "gqa" | "mha" | "mqa" etc.
        use_flash_attn: Enable Flash Attention 2.
        tokenizer:    Optional OMGTokenizer.  Eğer tokenizer vocab_size'ı
                      config'den farklıysa config'e sync edilir.
        dtype:        Model parameter dtype: "float32" | "bfloat16" | "float16".
        device:       Device to create model on: "cpu" | "cuda".
        **extra_config_kwargs: Any additional OMGConfig fields.

    Returns:
        OMGModel — boş ağırlıklı, fine-tuning'e hazır.

    Example::

        # Preset ile
        model = create_base_model("small")

        # Tam kontrol
        model = create_base_model(
            hidden_size=1024, num_layers=24, num_heads=16,
            use_moe=True, num_experts=16, num_experts_per_token=2,
        )

        # Fine-tuning
        ft = FineTuner(model, FineTuneConfig(method="lora", lr=1e-4))
        ft.fit(get_batch=my_data_fn)
        # Artık konuşabilir!
    """
    from kolmgformers.configuration import OMGConfig, MoEConfig
    from kolmgformers.modeling import OMGModel

    t_start = time.time()

    if config is not None:
        cfg = config
    elif preset is not None:
        cfg = OMGConfig.from_name(preset, **extra_config_kwargs)
    else:
        moe_cfg = moe_config
        if use_moe and moe_cfg is None:
            moe_cfg = MoEConfig(
                num_experts           = num_experts,
                num_experts_per_token = num_experts_per_token,
            )
        cfg = OMGConfig(
            hidden_size    = hidden_size,
            num_layers     = num_layers,
            num_heads      = num_heads,
            num_kv_heads   = num_kv_heads,
            vocab_size     = vocab_size,
            max_length     = max_length,
            use_moe        = use_moe,
            moe_config     = moe_cfg,
            ffn_type       = ffn_type,
            attention_type = attention_type,
            use_flash_attn = use_flash_attn,
            **extra_config_kwargs,
        )

    # Tokenizer'dan vocab sync
    if tokenizer is not None:
        if hasattr(tokenizer, "vocab_size") and tokenizer.vocab_size != cfg.vocab_size:
            print(
                f"[kolmgformers] Warning: tokenizer.vocab_size={tokenizer.vocab_size} "
                f"!= config.vocab_size={cfg.vocab_size}. "
                f"Updating config to match tokenizer."
            )
            cfg.vocab_size = tokenizer.vocab_size
        if hasattr(tokenizer, "pad_token_id"):
            cfg.pad_token_id  = tokenizer.pad_token_id
        if hasattr(tokenizer, "mask_token_id"):
            cfg.mask_token_id = tokenizer.mask_token_id
        if hasattr(tokenizer, "bos_token_id"):
            cfg.bos_token_id  = tokenizer.bos_token_id
        if hasattr(tokenizer, "eos_token_id"):
            cfg.eos_token_id  = tokenizer.eos_token_id

    model = OMGModel(cfg)

    # Dtype conversion
    _dtype_map = {
        "float32":  torch.float32,
        "bfloat16": torch.bfloat16,
        "float16":  torch.float16,
    }
    if dtype in _dtype_map:
        model = model.to(_dtype_map[dtype])

    model = model.to(device)

    elapsed = time.time() - t_start
    n_params = model.num_parameters()
    n_trainable = model.num_parameters(trainable_only=True)

    moe_str = f", MoE({cfg.num_experts}E x {cfg.num_experts_per_token})" if cfg.use_moe else ""
    print(
        f"[kolmgformers] Base model created in {elapsed:.2f}s  —  "
        f"{n_params / 1e6:.1f}M params ({n_trainable / 1e6:.1f}M trainable){moe_str}\n"
        f"[kolmgformers] Config: {cfg}\n"
        f"[kolmgformers] NOTE: Bu model egitim gormemis. Fine-tuning sonrasi konusabilir."
    )

    return model


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── NEW Feature #54 : Fine-tuning Engine ─────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class FineTuner:
    """
    NEW v2.0.6 — Feature #54 — Fine-Tuning Engine.

    Base model üzerinde fine-tuning yapar.  create_base_model() ile
    oluşturulan (veya from_pretrained ile yüklenen) modeli alır ve
    fine-tuning ile göreve uygun hale getirir.

    Desteklenen yöntemler:
      - "full":           Tüm parametreler eğitilir.
      - "lora":           Sadece LoRA adapter parametreleri eğitilir.
      - "freeze_bottom":  Alt N layer freeze edilir, geri kalanlar eğitilir.

    Args:
        model:     OMGModel instance (base or pretrained).
        config:    FineTuneConfig.
        scheduler: Optional MaskScheduler.  None ise otomatik oluşturulur.
        get_batch: Callable[batch_size -> Tensor(B, T)] or None.
        callbacks: Optional list of callback objects.

    Usage::

        model = create_base_model("small")
        ft = FineTuner(model, FineTuneConfig(
            method     = "lora",
            lr         = 2e-4,
            steps      = 5_000,
            output_dir = "./my-finetuned",
        ))
        ft.fit(dataset=my_dataset)
        # veya
        ft.fit(get_batch=lambda bs: next(data_iter))
        ft.model.save_pretrained("./my-finetuned")
    """

    def __init__(
        self,
        model:     nn.Module,
        config:    FineTuneConfig,
        scheduler: Optional[MaskScheduler] = None,
        get_batch: Optional[Callable]      = None,
        callbacks: Optional[list]          = None,
    ):
        config.validate()
        self.raw_model = model
        self.config    = config
        self.get_batch = get_batch
        self.callbacks = callbacks or []
        self._stop     = False
        self.device    = torch.device(
            config.device if torch.cuda.is_available() else "cpu"
        )

        model.to(self.device)

        # ── Setup scheduler ───────────────────────────────────────────────────
        if scheduler is not None:
            self.scheduler = scheduler
        else:
            # Auto-build a default MaskScheduler from model config
            mcfg = getattr(model, "config", None)
            if mcfg is None:
                raise ValueError(
                    "model must have a .config attribute (OMGConfig). "
                    "Pass a pre-built MaskScheduler explicitly."
                )
            self.scheduler = MaskScheduler(
                steps             = 10,
                schedule          = mcfg.mask_schedule,
                mask_token_id     = mcfg.mask_token_id,
                pad_token_id      = mcfg.pad_token_id,
                vocab_size        = mcfg.vocab_size,
                random_token_prob = mcfg.random_token_prob,
            )

        # ── Apply fine-tuning method ──────────────────────────────────────────
        self._apply_method(model, config)

        # ── Build model wrapper ───────────────────────────────────────────────
        self.model = model

        # ── Optimizer (only trainable params) ─────────────────────────────────
        trainable = [p for p in model.parameters() if p.requires_grad]
        if not trainable:
            raise RuntimeError(
                "No trainable parameters after applying fine-tuning method. "
                "Check method and freeze_layers settings."
            )

        decay    = [p for p in trainable if p.dim() >= 2]
        no_decay = [p for p in trainable if p.dim() < 2]
        fused    = config.device == "cuda" and torch.cuda.is_available()

        self.optimizer = AdamW(
            [
                {"params": decay,    "weight_decay": config.weight_decay},
                {"params": no_decay, "weight_decay": 0.0},
            ],
            lr    = config.lr,
            fused = fused,
        )

        if config.lr_schedule == "cosine_restarts":
            self.lr_schedule = get_warmup_cosine_restarts_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                first_cycle  = config.steps // 4,
                restart_mult = 2,
                min_ratio    = config.min_lr_ratio,
            )
        elif config.lr_schedule == "linear":
            self.lr_schedule = get_warmup_linear_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                total_steps  = config.steps,
                min_ratio    = config.min_lr_ratio,
            )
        else:
            self.lr_schedule = get_warmup_cosine_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                total_steps  = config.steps,
                min_ratio    = config.min_lr_ratio,
            )

        amp_dtype     = torch.bfloat16 if config.amp_dtype == "bfloat16" else torch.float16
        use_cuda_amp  = config.use_amp and torch.cuda.is_available()
        self.amp_ctx  = (
            torch.autocast(device_type="cuda", dtype=amp_dtype)
            if use_cuda_amp
            else torch.autocast(device_type="cpu", enabled=False)
        )
        self.scaler   = torch.amp.GradScaler(
            "cuda",
            enabled=(config.use_amp and config.amp_dtype == "float16"),
        )

        n_trainable   = sum(p.numel() for p in trainable)
        n_total       = sum(p.numel() for p in model.parameters())
        print(
            f"[kolmgformers] FineTuner ready — method={config.method}, "
            f"trainable={n_trainable/1e6:.2f}M / {n_total/1e6:.2f}M params"
        )

    def _apply_method(self, model: nn.Module, config: FineTuneConfig) -> None:
        """Apply the selected fine-tuning method."""
        if config.method == "full":
            # All params trainable
            for p in model.parameters():
                p.requires_grad_(True)

        elif config.method == "freeze_bottom":
            # Freeze bottom N transformer blocks, train the rest
            blocks = getattr(model, "blocks", [])
            n_freeze = min(config.freeze_layers, len(blocks))
            # First freeze everything
            for p in model.parameters():
                p.requires_grad_(False)
            # Unfreeze top blocks and head
            for i, block in enumerate(blocks):
                if i >= n_freeze:
                    for p in block.parameters():
                        p.requires_grad_(True)
            # Always train the norm and head
            for name, module in model.named_children():
                if name in ("norm", "lm_head", "embed"):
                    for p in module.parameters():
                        p.requires_grad_(True)
            print(
                f"[kolmgformers] freeze_bottom: frozen {n_freeze}/{len(blocks)} layers."
            )

        elif config.method == "lora":
            # Apply LoRA: freeze base, inject LoRA adapters
            try:
                from kolmgformers.lora import apply_lora, LoRAConfig
                # Freeze all first
                for p in model.parameters():
                    p.requires_grad_(False)
                # BUG FIX v2.0.6-BETA (#14): build LoRAConfig directly from
                # FineTuneConfig — avoids OMGConfig lora_rank sync mismatch
                lora_cfg = LoRAConfig(
                    rank=config.lora_rank,
                    alpha=config.lora_alpha,
                )
                apply_lora(model, lora_cfg)
                # LoRA adapter params are set to requires_grad=True inside apply_lora
                print(
                    f"[kolmgformers] LoRA applied: rank={config.lora_rank}, "
                    f"alpha={config.lora_alpha}"
                )
            except ImportError:
                print(
                    "[kolmgformers] Warning: kolmgformers.lora not found. "
                    "Falling back to full fine-tuning."
                )
                for p in model.parameters():
                    p.requires_grad_(True)

    def _get_batch(self, dataset=None) -> torch.Tensor:
        cfg = self.config
        if self.get_batch is not None:
            return self.get_batch(cfg.batch_size).to(self.device)
        if dataset is not None:
            idx = torch.randint(len(dataset), (cfg.batch_size,))
            return torch.stack([dataset[i] for i in idx]).to(self.device)
        raise ValueError("Either dataset or get_batch must be provided.")

    def fit(self, dataset=None, eval_dataset=None, eval_every: int = 0) -> None:
        """
        Run the fine-tuning loop.

        Args:
            dataset: Optional dataset with __len__ and __getitem__.
                     If None, get_batch must be set in the constructor.
        """
        cfg   = self.config
        model = self.model
        model.train()

        os.makedirs(cfg.output_dir, exist_ok=True)
        ckpt_mgr = CheckpointManager(cfg.output_dir, keep_last_n=3)

        for cb in self.callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)

        step       = 0
        total_loss = 0.0
        t0         = time.time()

        print(f"[kolmgformers] Fine-tuning started — {cfg.steps} steps.")

        try:
          while step < cfg.steps and not self._stop:
            self.optimizer.zero_grad(set_to_none=True)
            accum_loss = 0.0

            for _ in range(cfg.grad_accum_steps):
                input_ids = self._get_batch(dataset)
                if input_ids.shape[1] > cfg.seq_len:
                    input_ids = input_ids[:, :cfg.seq_len]

                # BUG FIX #T5: attn_mask from original input_ids, not noisy_ids
                attn_mask = (input_ids != self.scheduler.pad_token_id).long()
                noisy_ids, mask, t = self.scheduler.corrupt(input_ids)

                with self.amp_ctx:
                    loss = self.scheduler.loss(
                        model, noisy_ids, input_ids, mask, t,
                        attention_mask=attn_mask,
                        self_cond_prob=0.5,
                    )
                    loss_scaled = loss / cfg.grad_accum_steps

                if cfg.use_amp and cfg.amp_dtype == "float16":
                    self.scaler.scale(loss_scaled).backward()
                else:
                    loss_scaled.backward()

                accum_loss += loss.item()

            # Optimizer step
            if cfg.use_amp and cfg.amp_dtype == "float16":
                self.scaler.unscale_(self.optimizer)
                nn.utils.clip_grad_norm_(self.raw_model.parameters(), cfg.grad_clip)
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                nn.utils.clip_grad_norm_(self.raw_model.parameters(), cfg.grad_clip)
                self.optimizer.step()

            self.lr_schedule.step()
            step += 1

            avg_loss    = accum_loss / cfg.grad_accum_steps
            total_loss += avg_loss

            if step % cfg.log_every == 0:
                avg     = total_loss / cfg.log_every
                elapsed = time.time() - t0
                lr_now  = self.optimizer.param_groups[0]["lr"]
                tps     = cfg.batch_size * cfg.seq_len * cfg.log_every / max(elapsed, 1e-6)
                print(
                    f"  [FT] step {step:6d}/{cfg.steps}  "
                    f"loss={avg:.4f}  lr={lr_now:.2e}  tok/s={tps:.0f}"
                )
                total_loss = 0.0
                t0         = time.time()

            # NEW v2.0.6-BETA: validation loop
            if eval_every > 0 and eval_dataset is not None and step % eval_every == 0:
                self.raw_model.eval()
                val_total = 0.0
                with torch.no_grad():
                    for _ in range(8):
                        val_ids = self._get_batch(eval_dataset)
                        if val_ids.shape[1] > cfg.seq_len:
                            val_ids = val_ids[:, :cfg.seq_len]
                        noisy_ids, mask, t = self.scheduler.corrupt(val_ids)
                        attn_mask = (val_ids != self.scheduler.pad_token_id).long()
                        val_loss = self.scheduler.loss(
                            self.raw_model, noisy_ids, val_ids, mask, t,
                            attention_mask=attn_mask,
                        )
                        val_total += val_loss.item()
                print(f"  [FT] step {step:6d}  val_loss={val_total/8:.4f}")
                self.raw_model.train()

            if step % cfg.save_every == 0:
                ckpt_dir = os.path.join(cfg.output_dir, f"step-{step:07d}")
                os.makedirs(ckpt_dir, exist_ok=True)
                torch.save(
                    self.raw_model.state_dict(),
                    os.path.join(ckpt_dir, "model.pt"),
                )
                if hasattr(self.raw_model, "config"):
                    self.raw_model.config.save(ckpt_dir)
                ckpt_mgr.register(ckpt_dir)
                print(f"[kolmgformers] Fine-tune checkpoint → {ckpt_dir}")

        except KeyboardInterrupt:
            # BUG FIX v2.0.6-BETA (#18): save on Ctrl+C
            print("\n[kolmgformers] KeyboardInterrupt — saving emergency fine-tune checkpoint...")
            ckpt_dir = os.path.join(cfg.output_dir, f"step-{step:07d}-interrupt")
            os.makedirs(ckpt_dir, exist_ok=True)
            torch.save(self.raw_model.state_dict(), os.path.join(ckpt_dir, "model.pt"))
            if hasattr(self.raw_model, "config"):
                self.raw_model.config.save(ckpt_dir)
            print(f"[kolmgformers] Emergency checkpoint saved → {ckpt_dir}")
            return

        # Final save
        final_dir = os.path.join(cfg.output_dir, "final")
        os.makedirs(final_dir, exist_ok=True)
        self.raw_model.save_pretrained(final_dir)
        print(
            f"[kolmgformers] Fine-tuning complete! Model saved → {final_dir}\n"
            f"[kolmgformers] Model artik konusabilir. "
            f"Yukleme: OMGModel.from_pretrained('{final_dir}')"
        )

        for cb in self.callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)

    def stop(self) -> None:
        """Gracefully stop fine-tuning after current step."""
        self._stop = True


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Trainer ───────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class Trainer:
    """
    Full pre-training infrastructure for OMGFormer.

    v2.0.6 additions:
      - resume_from_checkpoint (Feature #55): restore full training state.
      - CheckpointManager (Feature #56): automatic disk space management.
      - BUG FIX #T5: attn_mask from original input_ids.
      - BUG FIX #T6: gradient_checkpointing config sync.
      - BUG FIX #T7: clip_grad_norm always on raw_model.

    Includes:
      - Automatic mixed precision (BF16/FP16)
      - Gradient accumulation (effective large batch)
      - Warmup + cosine LR schedule (with optional warm restarts)
      - torch.compile (~30% additional speedup)
      - Gradient checkpointing (memory savings)
      - Self-conditioning training
      - EMA model weights (Feature #50)
      - LION optimizer (Feature #45)
      - Gradient noise injection (Feature #49)
      - Curriculum learning (Feature #52)
      - WandB logging
      - Resume from checkpoint (Feature #55)
      - Checkpoint pruning (Feature #56)
      - Callback system
    """

    def __init__(
        self,
        model:     nn.Module,
        scheduler: MaskScheduler,
        config:    TrainingConfig,
        get_batch: Optional[Callable] = None,
        callbacks: Optional[list]     = None,
    ):
        config.validate()

        self.raw_model  = model
        self.scheduler  = scheduler
        self.config     = config
        self.get_batch  = get_batch
        self.callbacks  = callbacks or []
        self._stop_training = False
        self.device = torch.device(
            config.device if torch.cuda.is_available() else "cpu"
        )

        # BUG FIX #T6: use unified gradient checkpointing path
        if config.gradient_checkpointing:
            enable_gradient_checkpointing(model)

        model.to(self.device)

        if config.use_compile and hasattr(torch, "compile"):
            try:
                self.model = torch.compile(model, mode="reduce-overhead")
                print("[kolmgformers] torch.compile enabled.")
            except Exception as exc:
                print(f"[kolmgformers] torch.compile failed: {exc}. Using eager mode.")
                self.model = model
        else:
            self.model = model

        self.optimizer = self._build_optimizer(model, config)

        if config.lr_schedule == "cosine_restarts":
            self.lr_schedule = get_warmup_cosine_restarts_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                first_cycle  = config.steps // 4,
                restart_mult = config.lr_restart_mult,
                min_ratio    = config.min_lr_ratio,
            )
        elif config.lr_schedule == "linear":
            self.lr_schedule = get_warmup_linear_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                total_steps  = config.steps,
                min_ratio    = config.min_lr_ratio,
            )
        else:
            self.lr_schedule = get_warmup_cosine_schedule(
                self.optimizer,
                warmup_steps = config.warmup_steps,
                total_steps  = config.steps,
                min_ratio    = config.min_lr_ratio,
            )

        amp_dtype    = torch.bfloat16 if config.amp_dtype == "bfloat16" else torch.float16
        use_cuda_amp = config.use_amp and torch.cuda.is_available()
        self.amp_ctx = (
            torch.autocast(device_type="cuda", dtype=amp_dtype)
            if use_cuda_amp
            else torch.autocast(device_type="cpu", enabled=False)
        )
        self.scaler = torch.amp.GradScaler(
            "cuda",
            enabled=(config.use_amp and config.amp_dtype == "float16"),
        )

        self.ema: Optional[EMA] = None
        if config.use_ema:
            self.ema = EMA(model, config.ema_decay, config.ema_warmup)

        self.ckpt_mgr = CheckpointManager(
            config.output_dir,
            keep_last_n=config.keep_last_n_checkpoints,
        )

        if config.use_wandb:
            try:
                import wandb
                wandb.init(
                    project = config.wandb_project,
                    name    = config.wandb_run_name or None,
                    config  = config.__dict__,
                )
                self.wandb = wandb
                print("[kolmgformers] WandB enabled.")
            except ImportError:
                print("[kolmgformers] wandb not found. Logging disabled.")
                self.wandb = None
        else:
            self.wandb = None

        # Step counter — updated by fit() or resume_from_checkpoint()
        self._start_step = 0

    def _build_optimizer(self, model: nn.Module, config: TrainingConfig):
        """Build the configured optimizer with weight decay separation."""
        decay_params    = [p for n, p in model.named_parameters()
                           if p.requires_grad and p.dim() >= 2]
        no_decay_params = [p for n, p in model.named_parameters()
                           if p.requires_grad and p.dim() < 2]

        if config.optimizer == "lion":
            return Lion(
                [
                    {"params": decay_params,    "weight_decay": config.weight_decay},
                    {"params": no_decay_params, "weight_decay": 0.0},
                ],
                lr    = config.lr,
                betas = (config.lion_beta1, config.lion_beta2),
            )
        if config.optimizer == "sgd":
            return SGD(
                [
                    {"params": decay_params,    "weight_decay": config.weight_decay},
                    {"params": no_decay_params, "weight_decay": 0.0},
                ],
                lr       = config.lr,
                momentum = config.beta1,
                nesterov = True,
            )
        # Default: AdamW
        # BUG FIX #T3: fused=True is now opt-in via use_fused_adam
        if config.optimizer == "muon":
            return Muon(
                [
                    {"params": decay_params,    "weight_decay": config.weight_decay},
                    {"params": no_decay_params, "weight_decay": 0.0},
                ],
                lr    = config.lr,
                betas = (config.beta1, config.beta2),
            )
        fused = config.use_fused_adam and torch.cuda.is_available()
        return AdamW(
            [
                {"params": decay_params,    "weight_decay": config.weight_decay},
                {"params": no_decay_params, "weight_decay": 0.0},
            ],
            lr    = config.lr,
            betas = (config.beta1, config.beta2),
            fused = fused,
        )

    # ── NEW Feature #55 : Resume from checkpoint ──────────────────────────────

    def resume_from_checkpoint(self, checkpoint_dir: Optional[str] = None) -> int:
        """
        NEW v2.0.6 — Feature #55 — Resume training from a checkpoint.

        Restores:
          - Model weights
          - Optimizer state
          - LR scheduler state
          - EMA state (if enabled)
          - Training step counter

        Args:
            checkpoint_dir: Path to a specific checkpoint directory.
                            If None, uses the latest checkpoint found in
                            config.output_dir automatically.

        Returns:
            The step number to resume from (0 if no checkpoint found).

        Example::

            trainer = Trainer(model, scheduler, cfg)
            start_step = trainer.resume_from_checkpoint()
            trainer.fit(dataset, start_step=start_step)
        """
        if checkpoint_dir is None:
            checkpoint_dir = self.ckpt_mgr.latest()

        if checkpoint_dir is None or not os.path.isdir(checkpoint_dir):
            print("[kolmgformers] No checkpoint found. Starting from scratch.")
            return 0

        print(f"[kolmgformers] Resuming from checkpoint: {checkpoint_dir}")

        # ── Model weights ────────────────────────────────────────────────────
        st_path = os.path.join(checkpoint_dir, "model.safetensors")
        pt_path = os.path.join(checkpoint_dir, "model.pt")

        if os.path.exists(st_path):
            try:
                from safetensors.torch import load_file
                state = load_file(st_path, device=str(self.device))
            except ImportError:
                state = torch.load(st_path, map_location=self.device, weights_only=True)
        elif os.path.exists(pt_path):
            state = torch.load(pt_path, map_location=self.device, weights_only=True)
        else:
            print(f"[kolmgformers] Warning: No model weights in {checkpoint_dir}.")
            state = None

        if state is not None:
            missing, unexpected = self.raw_model.load_state_dict(state, strict=False)
            if missing:
                print(f"[kolmgformers]   Missing keys: {len(missing)}")
            if unexpected:
                print(f"[kolmgformers]   Unexpected keys: {len(unexpected)}")
            print("[kolmgformers]   Model weights restored.")

        # ── Optimizer state ───────────────────────────────────────────────────
        opt_path = os.path.join(checkpoint_dir, "optimizer.pt")
        if os.path.exists(opt_path):
            try:
                opt_state = torch.load(opt_path, map_location=self.device, weights_only=False)
                self.optimizer.load_state_dict(opt_state)
                print("[kolmgformers]   Optimizer state restored.")
            except Exception as e:
                print(f"[kolmgformers]   Warning: Could not restore optimizer state: {e}")

        # ── LR scheduler state ────────────────────────────────────────────────
        sched_path = os.path.join(checkpoint_dir, "scheduler.pt")
        if os.path.exists(sched_path):
            try:
                sched_state = torch.load(
                    sched_path, map_location="cpu", weights_only=False
                )
                self.lr_schedule.load_state_dict(sched_state)
                print("[kolmgformers]   LR scheduler state restored.")
            except Exception as e:
                print(f"[kolmgformers]   Warning: Could not restore scheduler state: {e}")

        # ── EMA state ─────────────────────────────────────────────────────────
        ema_path = os.path.join(checkpoint_dir, "ema.pt")
        if os.path.exists(ema_path) and self.ema is not None:
            try:
                ema_state = torch.load(ema_path, map_location=self.device, weights_only=False)
                self.ema.load_state_dict(ema_state)
                print("[kolmgformers]   EMA state restored.")
            except Exception as e:
                print(f"[kolmgformers]   Warning: Could not restore EMA state: {e}")

        # ── Training metadata (step counter) ──────────────────────────────────
        meta_path = os.path.join(checkpoint_dir, "training_meta.json")
        start_step = 0
        if os.path.exists(meta_path):
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
                start_step = meta.get("step", 0)
                print(f"[kolmgformers]   Resuming from step {start_step}.")
            except Exception:
                pass
        else:
            # Try to infer step from directory name (step-XXXXXXX)
            dirname = os.path.basename(checkpoint_dir.rstrip("/"))
            if dirname.startswith("step-"):
                try:
                    start_step = int(dirname.split("-")[1])
                    print(f"[kolmgformers]   Inferred step={start_step} from dir name.")
                except (IndexError, ValueError):
                    pass

        self._start_step = start_step
        return start_step

    def _save_checkpoint(self, step: int) -> None:
        """Save a full checkpoint including all state."""
        cfg      = self.config
        ckpt_dir = os.path.join(cfg.output_dir, f"step-{step:07d}")
        os.makedirs(ckpt_dir, exist_ok=True)

        # Model weights
        try:
            from safetensors.torch import save_file
            save_file(
                self.raw_model.state_dict(),
                os.path.join(ckpt_dir, "model.safetensors"),
            )
        except ImportError:
            torch.save(
                self.raw_model.state_dict(),
                os.path.join(ckpt_dir, "model.pt"),
            )

        # Optimizer state
        torch.save(
            self.optimizer.state_dict(),
            os.path.join(ckpt_dir, "optimizer.pt"),
        )

        # LR scheduler state
        torch.save(
            self.lr_schedule.state_dict(),
            os.path.join(ckpt_dir, "scheduler.pt"),
        )

        # EMA state
        if self.ema is not None:
            torch.save(
                self.ema.state_dict(),
                os.path.join(ckpt_dir, "ema.pt"),
            )

        # Config
        if hasattr(self.raw_model, "config"):
            self.raw_model.config.save(ckpt_dir)

        # Training metadata
        with open(os.path.join(ckpt_dir, "training_meta.json"), "w") as f:
            json.dump(
                {
                    "step":        step,
                    "total_steps": cfg.steps,
                    "kolmgformers_version": "2.0.7",
                },
                f,
                indent=2,
            )

        self.ckpt_mgr.register(ckpt_dir)
        print(f"[kolmgformers] Checkpoint saved → {ckpt_dir}")

    def _get_batch(self, dataset=None) -> torch.Tensor:
        cfg = self.config
        if self.get_batch is not None:
            return self.get_batch(cfg.batch_size).to(self.device)
        if dataset is not None:
            idx = torch.randint(len(dataset), (cfg.batch_size,))
            return torch.stack([dataset[i] for i in idx]).to(self.device)
        raise ValueError("Either dataset or get_batch must be provided.")

    def _curriculum_seq_len(self, step: int) -> int:
        """Feature #52: compute current sequence length for curriculum learning."""
        cfg = self.config
        if not cfg.use_curriculum:
            return cfg.seq_len
        progress  = min(1.0, step / max(1, cfg.curriculum_rampup))
        start_len = int(cfg.seq_len * cfg.curriculum_start)
        return int(start_len + (cfg.seq_len - start_len) * progress)

    def fit(self, dataset=None, start_step: int = 0, eval_dataset=None, eval_every: int = 0) -> None:
        """
        Run the full training loop.

        BUG FIX #T1: total_loss reset at start of each log window.
        BUG FIX #T2: step counted per optimizer update, not micro-batch.
        BUG FIX #T5: attn_mask built from original input_ids.
        BUG FIX #T7: grad norm clip always on raw_model.

        Args:
            dataset:      Optional dataset.  If None, get_batch must be set.
            start_step:   Starting step (use return value of resume_from_checkpoint).
            eval_dataset: Optional validation dataset. If provided, validation
                          loss is computed every eval_every steps.
            eval_every:   Evaluate on eval_dataset every N steps. 0 = disabled.
        """
        cfg   = self.config
        model = self.model
        model.train()

        for cb in self.callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)

        step       = max(start_step, self._start_step)
        total_loss = 0.0
        t0         = time.time()

        print(f"[kolmgformers] Training started — {cfg.steps} steps (from step {step}).")

        try:
            while step < cfg.steps and not self._stop_training:
                cur_sl = self._curriculum_seq_len(step)

                self.optimizer.zero_grad(set_to_none=True)
                accum_loss = 0.0

                for _ in range(cfg.grad_accum_steps):
                    input_ids = self._get_batch(dataset)
                    # Truncate to curriculum length if needed
                    if input_ids.shape[1] > cur_sl:
                        input_ids = input_ids[:, :cur_sl]

                    noisy_ids, mask, t = self.scheduler.corrupt(input_ids)

                    # BUG FIX #T5: attn_mask from original input_ids, NOT noisy_ids
                    attn_mask = (input_ids != self.scheduler.pad_token_id).long()

                    with self.amp_ctx:
                        loss = self.scheduler.loss(
                            model, noisy_ids, input_ids, mask, t,
                            attention_mask=attn_mask,
                            self_cond_prob=cfg.self_cond_prob,
                        )
                        loss_scaled = loss / cfg.grad_accum_steps

                    if cfg.use_amp and cfg.amp_dtype == "float16":
                        self.scaler.scale(loss_scaled).backward()
                    else:
                        loss_scaled.backward()

                    accum_loss += loss.item()

                # ── Feature #49 : Gradient noise ─────────────────────────────
                if cfg.grad_noise_std > 0.0:
                    noise_std = cfg.grad_noise_std / ((1 + step) ** cfg.grad_noise_gamma)
                    for p in self.raw_model.parameters():
                        if p.grad is not None:
                            p.grad.add_(torch.randn_like(p.grad) * noise_std)

                # ── Optimizer step (BUG FIX #T7: always raw_model) ──────────
                if cfg.use_amp and cfg.amp_dtype == "float16":
                    self.scaler.unscale_(self.optimizer)
                    nn.utils.clip_grad_norm_(self.raw_model.parameters(), cfg.grad_clip)
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    nn.utils.clip_grad_norm_(self.raw_model.parameters(), cfg.grad_clip)
                    self.optimizer.step()

                self.lr_schedule.step()

                # BUG FIX #T2: increment step HERE (once per optimizer update)
                step += 1

                # ── EMA update ───────────────────────────────────────────────
                if self.ema is not None:
                    self.ema.update(step)

                avg_loss    = accum_loss / cfg.grad_accum_steps
                total_loss += avg_loss

                # ── Logging ──────────────────────────────────────────────────
                if step % cfg.log_every == 0:
                    avg     = total_loss / cfg.log_every
                    elapsed = time.time() - t0
                    lr_now  = self.optimizer.param_groups[0]["lr"]
                    tokens_per_sec = (
                        cfg.batch_size * cur_sl * cfg.log_every * cfg.grad_accum_steps
                        / max(elapsed, 1e-6)
                    )
                    print(
                        f"step {step:7d}/{cfg.steps}  "
                        f"loss={avg:.4f}  "
                        f"lr={lr_now:.2e}  "
                        f"tok/s={tokens_per_sec:.0f}  "
                        f"sl={cur_sl}"
                    )
                    if self.wandb is not None:
                        self.wandb.log({
                            "train/loss":        avg,
                            "train/lr":          lr_now,
                            "train/step":        step,
                            "train/tok_per_sec": tokens_per_sec,
                        }, step=step)

                    # BUG FIX #T1: reset AFTER logging
                    total_loss = 0.0
                    t0         = time.time()

                # ── Validation loop (NEW v2.0.6-BETA) ────────────────────────
                if (
                    eval_every > 0
                    and eval_dataset is not None
                    and step % eval_every == 0
                ):
                    self.eval_step(eval_dataset, step)

                for cb in self.callbacks:
                    if hasattr(cb, "on_step_end"):
                        cb.on_step_end(self, step, avg_loss)

                # ── Checkpointing ─────────────────────────────────────────────
                if step % cfg.save_every == 0:
                    self._save_checkpoint(step)

        except KeyboardInterrupt:
            # BUG FIX v2.0.6-BETA: save checkpoint on Ctrl+C
            print("\n[kolmgformers] KeyboardInterrupt — saving emergency checkpoint...")
            self._save_checkpoint(step)
            print(f"[kolmgformers] Emergency checkpoint saved at step {step}. Exiting.")
            return

        # ── Final save ────────────────────────────────────────────────────────
        final_dir = os.path.join(cfg.output_dir, "final")
        os.makedirs(final_dir, exist_ok=True)
        self.raw_model.save_pretrained(final_dir)
        if self.ema is not None:
            torch.save(self.ema.state_dict(), os.path.join(final_dir, "ema.pt"))
        print(f"[kolmgformers] Training complete. Final model saved → {final_dir}")

        for cb in self.callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)

    def eval_step(self, eval_dataset, step: int, n_batches: int = 8) -> float:
        """
        NEW v2.0.6-BETA — Validation loss evaluation.

        Runs n_batches mini-batches over eval_dataset without gradient
        computation and logs the average validation loss.

        Args:
            eval_dataset: Dataset with __len__ and __getitem__.
            step:         Current training step (for logging).
            n_batches:    Number of batches to average over.

        Returns:
            Average validation loss.
        """
        cfg   = self.config
        model = self.model
        model.eval()

        total_val_loss = 0.0
        with torch.no_grad():
            for _ in range(n_batches):
                input_ids = self._get_batch(eval_dataset)
                if input_ids.shape[1] > cfg.seq_len:
                    input_ids = input_ids[:, :cfg.seq_len]

                noisy_ids, mask, t = self.scheduler.corrupt(input_ids)
                attn_mask = (input_ids != self.scheduler.pad_token_id).long()

                with self.amp_ctx:
                    val_loss = self.scheduler.loss(
                        model, noisy_ids, input_ids, mask, t,
                        attention_mask=attn_mask,
                    )
                total_val_loss += val_loss.item()

        avg_val = total_val_loss / n_batches
        print(f"[kolmgformers] step {step:7d}  val_loss={avg_val:.4f}")
        if self.wandb is not None:
            self.wandb.log({"val/loss": avg_val, "val/step": step}, step=step)

        model.train()
        return avg_val

    def stop(self) -> None:
        """Signal the training loop to stop after the current step."""
        self._stop_training = True
        print("[kolmgformers] Stop signal received — training will halt after this step.")


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── LION Optimizer (Feature #45) ──────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class Lion(torch.optim.Optimizer):
    """
    Feature #45 — LION optimizer.

    Chen et al., 2023 — "Symbolic Discovery of Optimization Algorithms".
    More memory-efficient than Adam (no second moment), same convergence.
    """

    def __init__(
        self,
        params,
        lr:     float = 1e-4,
        betas:  tuple = (0.9, 0.99),
        weight_decay: float = 0.0,
    ):
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue

                grad         = p.grad
                state        = self.state[p]
                beta1, beta2 = group["betas"]

                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)

                exp_avg = state["exp_avg"]

                # LION update
                update = exp_avg.clone().mul_(beta1).add_(grad, alpha=1 - beta1)
                p.add_(update.sign_(), alpha=-group["lr"])

                if group["weight_decay"] > 0.0:
                    p.mul_(1 - group["lr"] * group["weight_decay"])

                exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)

        return loss


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── MUON Optimizer (Feature #45 — NEW v2.0.6-BETA) ───────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class Muon(torch.optim.Optimizer):
    """
    NEW v2.0.6-BETA — Muon optimizer (Momentum + Nesterov + Orthogonalization).

    Korhonen et al., 2024 — "Muon: An optimizer for hidden layers in neural networks".
    Gradient updates are orthogonalized via Newton-Schulz iteration before
    applying momentum, which helps escape saddle points and improve generalization
    compared to plain Adam on transformer hidden layers.

    This replaces the AdamW placeholder that was used for optimizer="muon".

    Args:
        params:       Model parameters.
        lr:           Learning rate.
        betas:        (beta1, beta2) momentum coefficients.
        eps:          Numerical stability epsilon.
        weight_decay: L2 weight decay.
        ns_steps:     Newton-Schulz orthogonalization iterations (3–5 is sufficient).
    """

    def __init__(
        self,
        params,
        lr:           float = 2e-4,
        betas:        tuple = (0.9, 0.95),
        eps:          float = 1e-8,
        weight_decay: float = 0.0,
        ns_steps:     int   = 5,
    ):
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, ns_steps=ns_steps)
        super().__init__(params, defaults)

    @staticmethod
    def _zeropower_via_newtonschulz(G: torch.Tensor, steps: int) -> torch.Tensor:
        """
        Newton-Schulz iteration to approximate G @ (G^T G)^{-1/2}.

        Orthogonalizes the gradient matrix so that the effective update
        has singular values close to 1 (isotropic update).
        """
        assert G.ndim >= 2
        a, b, c = (3.4445, -4.7750, 2.0315)
        X = G.bfloat16() / (G.norm() + 1e-7)
        if G.size(-2) > G.size(-1):
            X = X.T
        for _ in range(steps):
            A = X @ X.T
            X = a * X + b * A @ X + c * A @ A @ X
        if G.size(-2) > G.size(-1):
            X = X.T
        return X.to(G.dtype)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue

                grad  = p.grad
                state = self.state[p]

                if len(state) == 0:
                    state["step"]     = 0
                    state["momentum"] = torch.zeros_like(p)
                    state["velocity"] = torch.zeros_like(p)

                state["step"] += 1
                t = state["step"]

                m = state["momentum"]
                v = state["velocity"]

                # Orthogonalize gradient for 2D+ tensors (weight matrices)
                if grad.ndim >= 2 and group["ns_steps"] > 0:
                    g_orth = self._zeropower_via_newtonschulz(grad, group["ns_steps"])
                else:
                    g_orth = grad

                # Adam-style second moment (for scale stability)
                v.mul_(beta2).addcmul_(g_orth, g_orth, value=1.0 - beta2)
                v_hat = v / (1.0 - beta2 ** t)
                denom = v_hat.sqrt().add_(group["eps"])

                # Nesterov momentum on orthogonalized gradient
                m.mul_(beta1).add_(g_orth / denom, alpha=1.0 - beta1)
                m_hat = m / (1.0 - beta1 ** t)

                # Weight decay
                if group["weight_decay"] > 0.0:
                    p.mul_(1.0 - group["lr"] * group["weight_decay"])

                p.add_(m_hat, alpha=-group["lr"])

        return loss
