# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""Logging utilities for Apeiron LM  (v0.0.2)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

logger = logging.getLogger(__name__)


class ApeironLogger:
    """
    Lightweight logger that writes metrics to a JSONL file and optionally to
    TensorBoard or W&B.

    Parameters
    ----------
    log_dir : str or Path
    report_to : List[str]
        Any subset of ["tensorboard", "wandb"].
    run_name : str or None
    """

    def __init__(
        self,
        log_dir:   str,
        report_to: Optional[List[str]] = None,
        run_name:  Optional[str]       = None,
    ) -> None:
        self.log_dir   = Path(log_dir)
        self.report_to = report_to or []
        self.run_name  = run_name

        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._log_path = self.log_dir / "metrics.jsonl"
        self._f        = self._log_path.open("a", encoding="utf-8")

        self._tb  = None
        self._wb  = None

        if "tensorboard" in self.report_to:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self._tb = SummaryWriter(log_dir=str(self.log_dir))
                logger.info("TensorBoard writer opened at %s", self.log_dir)
            except ImportError:
                logger.warning(
                    "TensorBoard not installed; skipping. "
                    "Install with: pip install tensorboard"
                )

        if "wandb" in self.report_to:
            try:
                import wandb
                wandb.init(project="apeiron_lm", name=run_name)
                self._wb = wandb
                logger.info("W&B run initialised.")
            except ImportError:
                logger.warning(
                    "wandb not installed; skipping. "
                    "Install with: pip install wandb"
                )

    def log(self, metrics: Dict[str, Any]) -> None:
        """Write a dict of metrics to the JSONL log and any active backends."""
        self._f.write(json.dumps(metrics) + "\n")
        self._f.flush()

        step = metrics.get("step", 0)

        if self._tb is not None:
            for k, v in metrics.items():
                if isinstance(v, (int, float)):
                    self._tb.add_scalar(k, v, global_step=step)

        if self._wb is not None:
            self._wb.log(metrics, step=step)

    def close(self) -> None:
        """Flush and close all backends."""
        self._f.close()
        if self._tb is not None:
            self._tb.close()
        if self._wb is not None:
            try:
                self._wb.finish()
            except Exception:
                pass
