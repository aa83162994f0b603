"""
kolmgformers/dla/absorption.py  v2.0.6
========================================
Digestive Learning Architecture — Component 3: Absorption Engine.

Applies distilled training batches to per-user LoRA adaptors using
a very small number of gradient steps. The base model is never touched.

Key design choices (from the paper):
  - Tiny learning rate (default 1e-5) to prevent catastrophic forgetting.
  - Optional EWC regularization to protect previously absorbed knowledge.
  - LoRA-only updates: base model weights are permanently frozen.
  - Save/load adaptor between absorption sessions.
"""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.dla.buffer   import DLAConfig
from kolmgformers.dla.pipeline import DigestedBatch
from kolmgformers.lora         import LoRAConfig, add_lora, save_lora, load_lora


__all__ = ["AbsorptionEngine"]


class AbsorptionEngine:
    """
    Continual LoRA fine-tuning engine for DLA.

    Maintains a per-user LoRA adaptor. Each absorption session:
      1. Loads the current adaptor state.
      2. Tokenizes and batches the distilled examples.
      3. Runs `absorption_steps` gradient steps with the DLA learning rate.
      4. Applies optional EWC regularization against previous adaptor state.
      5. Saves the updated adaptor.

    The base model weights are never modified.

    Args:
        model:       OMGModel instance (base model, no LoRA attached yet).
        tokenizer:   Tokenizer with encode() method.
        config:      DLAConfig.
        user_id:     Unique user identifier.
        adaptor_dir: Directory for per-user adaptor storage.
        device:      Device for gradient computation.
    """

    def __init__(
        self,
        model,
        tokenizer,
        config:      DLAConfig,
        user_id:     str           = "default",
        adaptor_dir: str           = "./dla_adaptors",
        device:      str           = "cpu",
    ):
        self.config      = config
        self.user_id     = user_id
        self.device      = device
        self.tokenizer   = tokenizer
        self.adaptor_dir = os.path.join(adaptor_dir, user_id)

        # Apply LoRA to a copy of the model
        self.model = model.to(device)
        lora_cfg   = LoRAConfig(
            rank     = config.lora_rank,
            alpha    = float(config.lora_rank),
            dropout  = 0.0,
            train_ffn= False,
        )
        self.model = add_lora(self.model, lora_cfg)

        # Load existing adaptor if present
        if os.path.isdir(self.adaptor_dir):
            try:
                load_lora(self.model, self.adaptor_dir)
                print(f"[DLA Absorption] Loaded adaptor for user '{user_id}'")
            except Exception as e:
                print(f"[DLA Absorption] No prior adaptor ({e}). Starting fresh.")

        # EWC: store reference parameters and Fisher estimates
        self._ewc_params:  Optional[dict] = None
        self._ewc_fisher:  Optional[dict] = None

    # ── Main absorption step ──────────────────────────────────────────────────

    def absorb(self, batch: DigestedBatch) -> dict:
        """
        Absorb a DigestedBatch into the per-user LoRA adaptor.

        Args:
            batch: Output of DigestivePipeline.process().

        Returns:
            Metrics dict with 'loss', 'steps', 'examples_used'.
        """
        if not batch.examples:
            return {"loss": 0.0, "steps": 0, "examples_used": 0}

        if len(batch.examples) < self.config.min_interactions_to_absorb:
            return {
                "loss": 0.0,
                "steps": 0,
                "examples_used": 0,
                "skipped": "batch_too_small",
            }

        # Save EWC reference before this absorption
        if self.config.ewc_lambda > 0.0:
            self._update_ewc_reference()

        optimizer = torch.optim.AdamW(
            [p for p in self.model.parameters() if p.requires_grad],
            lr           = self.config.absorption_lr,
            weight_decay = 0.0,
        )

        self.model.train()
        total_loss = 0.0

        for step in range(self.config.absorption_steps):
            # Cycle through examples
            idx = step % len(batch.examples)
            inp_text, tgt_text = batch.examples[idx]

            input_ids, labels = self._encode_pair(inp_text, tgt_text)
            if input_ids is None:
                continue

            optimizer.zero_grad()

            out  = self.model(input_ids=input_ids, labels=labels)
            loss = out.loss

            if loss is None or not torch.isfinite(loss):
                continue

            # EWC regularization
            if self.config.ewc_lambda > 0.0 and self._ewc_params is not None:
                ewc_loss = self._compute_ewc_loss()
                loss     = loss + ewc_loss

            loss.backward()
            torch.nn.utils.clip_grad_norm_(
                [p for p in self.model.parameters() if p.requires_grad],
                max_norm=1.0,
            )
            optimizer.step()
            total_loss += loss.item()

        self.model.eval()

        # Save updated adaptor
        save_lora(self.model, self.adaptor_dir)

        mean_loss = total_loss / max(self.config.absorption_steps, 1)
        print(
            f"[DLA Absorption] user='{self.user_id}' | "
            f"steps={self.config.absorption_steps} | "
            f"examples={len(batch.examples)} | "
            f"loss={mean_loss:.4f}"
        )
        return {
            "loss":          mean_loss,
            "steps":         self.config.absorption_steps,
            "examples_used": len(batch.examples),
        }

    # ── EWC helpers ───────────────────────────────────────────────────────────

    def _update_ewc_reference(self) -> None:
        """Snapshot current LoRA parameter values and (identity) Fisher."""
        self._ewc_params = {
            name: param.data.clone()
            for name, param in self.model.named_parameters()
            if param.requires_grad
        }
        # Diagonal Fisher approximation: use ones (equivalent to L2 regularization).
        # A proper Fisher estimate requires forward passes over a reference dataset,
        # which is expensive. The identity approximation is standard practice
        # for continual learning in lightweight settings.
        self._ewc_fisher = {
            name: torch.ones_like(param.data)
            for name, param in self.model.named_parameters()
            if param.requires_grad
        }

    def _compute_ewc_loss(self) -> torch.Tensor:
        """
        EWC penalty: lambda * sum_i F_i * (theta_i - theta_i*)^2

        Penalizes deviation from the previous adaptor state, weighted by
        the Fisher information (here: identity approximation).
        """
        penalty = torch.tensor(0.0, device=self.device)
        for name, param in self.model.named_parameters():
            if not param.requires_grad:
                continue
            if name not in self._ewc_params:
                continue
            fisher = self._ewc_fisher[name]
            ref    = self._ewc_params[name]
            penalty = penalty + (fisher * (param - ref).pow(2)).sum()
        return self.config.ewc_lambda * penalty

    # ── Tokenization ──────────────────────────────────────────────────────────

    def _encode_pair(
        self,
        input_text:  str,
        target_text: str,
    ) -> Tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """
        Tokenize an (input, target) pair and build labels.

        Labels are -100 (ignored) for the input portion and token IDs
        for the target portion. This is standard CLM fine-tuning format.
        """
        try:
            max_len = getattr(self.model.config, "max_length", 512)
            input_ids  = self.tokenizer.encode(input_text,  add_special_tokens=True)
            target_ids = self.tokenizer.encode(target_text, add_special_tokens=False)

            # Truncate to fit
            max_input  = max_len // 2
            max_target = max_len - max_input
            input_ids  = input_ids[:max_input]
            target_ids = target_ids[:max_target]

            combined   = input_ids + target_ids
            labels     = [-100] * len(input_ids) + target_ids

            combined_t = torch.tensor([combined], dtype=torch.long,  device=self.device)
            labels_t   = torch.tensor([labels],   dtype=torch.long,  device=self.device)

            return combined_t, labels_t
        except Exception:
            return None, None
