# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
TrainingArguments  (v0.0.2)
===========================
Dataclass that centralises all training hyper-parameters.

v0.0.2 additions
----------------
* curriculum_start_length : int
    Starting target length for curriculum training.
* curriculum_steps : int
    Number of optimiser steps over which target length grows from
    curriculum_start_length to max_target_length.  Set to 0 to disable.
* tau_anneal_factor : float
    Exposed here so it can be set from CLI/config without touching ApeironConfig.
* lr_scheduler_type now also accepts "constant".
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional


@dataclass
class TrainingArguments:
    """
    All hyper-parameters for a training run.

    Parameters
    ----------
    output_dir : str
    num_epochs : int
    batch_size : int
    eval_batch_size : int
    learning_rate : float
    weight_decay : float
    adam_beta1, adam_beta2, adam_epsilon : float
    max_grad_norm : float
    warmup_steps : int
    lr_scheduler_type : str  — "cosine" | "linear" | "constant"
    gradient_accumulation_steps : int
    mixed_precision : str  — "no" | "fp16" | "bf16"
    save_steps, eval_steps, logging_steps : int
    save_total_limit : int
    load_best_model_at_end : bool
    dataloader_num_workers : int
    seed : int
    device : str or None
    report_to : List[str]
    run_name : str or None
    prototype_ema_momentum : float
    max_input_length : int
    max_target_length : int
    label_smoothing : float
    curriculum_start_length : int   [NEW v0.0.2]
        Target length at the start of training.  Grows toward
        max_target_length over curriculum_steps steps.
    curriculum_steps : int          [NEW v0.0.2]
        Number of optimizer steps for the length curriculum ramp.
        Set to 0 to disable.  Recommended: 10-20% of total steps.
    tau_anneal_factor : float       [NEW v0.0.2]
        Overrides the model's config tau_anneal_factor if set here.
        This is the base factor; the trainer applies adaptive scaling
        on top via grad_norm.
    """

    # ── I/O ───────────────────────────────────────────────────────────────
    output_dir: str = "runs/apeiron_lm"

    # ── Epochs & batch ────────────────────────────────────────────────────
    num_epochs:      int = 3
    batch_size:      int = 16
    eval_batch_size: int = 16

    # ── Optimiser ─────────────────────────────────────────────────────────
    learning_rate: float = 3e-4
    weight_decay:  float = 0.01
    adam_beta1:    float = 0.9
    adam_beta2:    float = 0.999
    adam_epsilon:  float = 1e-8
    max_grad_norm: float = 1.0

    # ── Schedule ──────────────────────────────────────────────────────────
    warmup_steps:      int = 100
    lr_scheduler_type: str = "cosine"

    # ── Gradient accumulation ─────────────────────────────────────────────
    gradient_accumulation_steps: int = 1

    # ── Mixed precision ───────────────────────────────────────────────────
    mixed_precision: str = "no"

    # ── Checkpointing ─────────────────────────────────────────────────────
    save_steps:             int  = 500
    eval_steps:             int  = 500
    logging_steps:          int  = 50
    save_total_limit:       int  = 3
    load_best_model_at_end: bool = False

    # ── DataLoader ────────────────────────────────────────────────────────
    dataloader_num_workers: int = 0

    # ── Misc ──────────────────────────────────────────────────────────────
    seed:   int           = 42
    device: Optional[str] = None

    # ── Experiment tracking ───────────────────────────────────────────────
    report_to: List[str]     = field(default_factory=list)
    run_name:  Optional[str] = None

    # ── Apeiron-specific ──────────────────────────────────────────────────
    prototype_ema_momentum: float = 0.99
    max_input_length:       int   = 2048
    max_target_length:      int   = 512
    label_smoothing:        float = 0.0

    # ── Curriculum length training  [NEW v0.0.2] ──────────────────────────
    curriculum_start_length: int = 32
    curriculum_steps:        int = 2000

    # ── Adaptive tau annealing factor  [NEW v0.0.2] ───────────────────────
    tau_anneal_factor: float = 0.9995

    # ── Serialisation ─────────────────────────────────────────────────────

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        out = directory / "training_args.json"
        out.write_text(self.to_json())
        return out

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "TrainingArguments":
        known = {f.name for f in cls.__dataclass_fields__.values()}  # type: ignore
        return cls(**{k: v for k, v in d.items() if k in known})

    @classmethod
    def load(cls, directory: str | Path) -> "TrainingArguments":
        p = Path(directory) / "training_args.json"
        return cls.from_dict(json.loads(p.read_text()))

    def __post_init__(self) -> None:
        valid_precision = {"no", "fp16", "bf16"}
        if self.mixed_precision not in valid_precision:
            raise ValueError(
                f"mixed_precision must be one of {valid_precision}, "
                f"got '{self.mixed_precision}'."
            )
        valid_schedulers = {"cosine", "linear", "constant"}
        if self.lr_scheduler_type not in valid_schedulers:
            raise ValueError(
                f"lr_scheduler_type must be one of {valid_schedulers}, "
                f"got '{self.lr_scheduler_type}'."
            )
        if self.curriculum_start_length > self.max_target_length:
            raise ValueError(
                "curriculum_start_length must be <= max_target_length."
            )
