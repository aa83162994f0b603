from __future__ import annotations

from chgnet.trainer.trainer import Trainer
