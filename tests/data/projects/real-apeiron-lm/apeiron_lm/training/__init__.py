# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
from apeiron_lm.training.loss       import ApeironLoss
from apeiron_lm.training.trainer    import ApeironTrainer, default_collate
from apeiron_lm.training.arguments  import TrainingArguments
from apeiron_lm.training.schedulers import (
    get_cosine_schedule_with_warmup,
    get_linear_schedule_with_warmup,
    get_constant_schedule_with_warmup,
)

__all__ = [
    "ApeironLoss",
    "ApeironTrainer",
    "default_collate",
    "TrainingArguments",
    "get_cosine_schedule_with_warmup",
    "get_linear_schedule_with_warmup",
    "get_constant_schedule_with_warmup",
]
