"""
kolmgformers/dla/buffer.py  v2.0.6
==================================
Digestive Learning Architecture — Component 1: Interaction Buffer.

The Buffer is the stomach of DLA. It holds every raw conversation
immediately, without filtering. The DigestivePipeline reads from here.

Design principles (from the paper):
  - Append-only, per-user, timestamp-indexed.
  - Retention window: interactions older than buffer_retention_days are
    eligible for digestion or discard.
  - No processing at write time — everything is raw.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, asdict
from typing import List, Optional


__all__ = [
    "DLAConfig",
    "InteractionBufferEntry",
    "InteractionBuffer",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── DLA Configuration ─────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class DLAConfig:
    """
    Configuration for the Digestive Learning Architecture.

    Fields:
        buffer_retention_days:  How long raw interactions are kept in the buffer
                                before being digested or discarded.
        digest_interval_hours:  How often the DigestivePipeline runs (async).
        absorption_lr:          Learning rate for LoRA adaptor updates.
        absorption_steps:       Gradient steps per absorption batch.
        quality_threshold:      Minimum quality score [0,1] to include an
                                interaction in a digestion batch.
        ewc_lambda:             EWC regularization strength. 0.0 = disabled.
        lora_rank:              Rank of the per-user LoRA adaptor.
        contradiction_strategy: How to resolve contradictions:
                                  'recency'   — more recent wins
                                  'frequency' — more frequent wins
                                  'hold'      — queue for more evidence
        max_adaptor_age_days:   Adaptors older than this are eligible for pruning.
        min_interactions_to_absorb: Minimum batch size before absorption runs.
    """
    buffer_retention_days:      int   = 30
    digest_interval_hours:      int   = 6
    absorption_lr:              float = 1e-5
    absorption_steps:           int   = 20
    quality_threshold:          float = 0.6
    ewc_lambda:                 float = 0.1
    lora_rank:                  int   = 16
    contradiction_strategy:     str   = "recency"    # recency | frequency | hold
    max_adaptor_age_days:       int   = 365
    min_interactions_to_absorb: int   = 5


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Interaction Buffer Entry ─────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class InteractionBufferEntry:
    """
    A single raw interaction stored in the buffer.

    Attributes:
        transcript:      Full conversation text (user+model turns).
        timestamp:       Unix timestamp of when this interaction occurred.
        user_satisfied:  True if user showed satisfaction signals, False if
                         they corrected the model or repeated the query.
        interaction_type: 'question' | 'correction' | 'elaboration' | 'confirmation'
        model_confidence: Average token confidence during the model's response
                          (0.0 = very uncertain, 1.0 = very confident).
        digested:        True once this entry has been processed by the pipeline.
    """
    transcript:       str
    timestamp:        float         = field(default_factory=time.time)
    user_satisfied:   Optional[bool] = None
    interaction_type: str            = "question"
    model_confidence: float          = 0.5
    digested:         bool           = False

    def age_days(self) -> float:
        return (time.time() - self.timestamp) / 86400.0

    def quality_signal(self) -> float:
        """
        Heuristic quality estimate for this interaction.

        Corrections (user_satisfied=False) are highest priority — direct
        evidence of model errors. Confirmed interactions (user_satisfied=True)
        are high value. Neutral interactions get a middle score.
        """
        if self.interaction_type == "correction":
            return 1.0   # corrections always pass through
        if self.user_satisfied is False:
            return 0.8   # user was unsatisfied → valuable signal
        if self.user_satisfied is True:
            return 0.7   # confirmed good response
        return self.model_confidence * 0.5   # neutral: weight by model confidence


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Interaction Buffer ───────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class InteractionBuffer:
    """
    Per-user append-only interaction buffer.

    Stores raw conversations without any filtering. The DigestivePipeline
    reads from here asynchronously and marks entries as digested.

    Optionally persistent: if storage_path is provided, the buffer is
    serialized to a JSONL file (one entry per line, append-only).

    Args:
        config:       DLAConfig.
        user_id:      Unique user identifier (used for file naming).
        storage_path: Optional directory for persistence. None = in-memory only.
    """

    def __init__(
        self,
        config:       DLAConfig,
        user_id:      str            = "default",
        storage_path: Optional[str]  = None,
    ):
        self.config       = config
        self.user_id      = user_id
        self._entries:    List[InteractionBufferEntry] = []
        self._storage:    Optional[str] = None

        if storage_path is not None:
            os.makedirs(storage_path, exist_ok=True)
            self._storage = os.path.join(storage_path, f"buffer_{user_id}.jsonl")
            self._load()

    # ── Write ─────────────────────────────────────────────────────────────────

    def append(self, entry: InteractionBufferEntry) -> None:
        """Add a raw interaction. Never blocked, never filtered."""
        self._entries.append(entry)
        if self._storage is not None:
            with open(self._storage, "a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(entry)) + "\n")

    def record(
        self,
        transcript:       str,
        user_satisfied:   Optional[bool] = None,
        interaction_type: str            = "question",
        model_confidence: float          = 0.5,
    ) -> None:
        """Convenience wrapper: build and append an entry."""
        self.append(InteractionBufferEntry(
            transcript       = transcript,
            user_satisfied   = user_satisfied,
            interaction_type = interaction_type,
            model_confidence = model_confidence,
        ))

    # ── Read ──────────────────────────────────────────────────────────────────

    def pending(self) -> List[InteractionBufferEntry]:
        """Return all entries that have not yet been digested."""
        return [e for e in self._entries if not e.digested]

    def eligible_for_digestion(self) -> List[InteractionBufferEntry]:
        """
        Return undigested entries that meet the retention window.

        Entries are eligible once they are at least 1 hour old (to let
        conversation context accumulate) but younger than buffer_retention_days.
        """
        now   = time.time()
        min_age_s = 3600.0   # 1 hour minimum
        max_age_s = self.config.buffer_retention_days * 86400.0
        return [
            e for e in self._entries
            if not e.digested
            and (now - e.timestamp) >= min_age_s
            and (now - e.timestamp) <  max_age_s
        ]

    def mark_digested(self, entries: List[InteractionBufferEntry]) -> None:
        """Mark a list of entries as digested (they won't be re-processed)."""
        ids = set(id(e) for e in entries)
        for e in self._entries:
            if id(e) in ids:
                e.digested = True

    def __len__(self) -> int:
        return len(self._entries)

    def pending_count(self) -> int:
        return sum(1 for e in self._entries if not e.digested)

    # ── Persistence ───────────────────────────────────────────────────────────

    def _load(self) -> None:
        if self._storage is None or not os.path.exists(self._storage):
            return
        try:
            with open(self._storage, "r", encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line:
                        data = json.loads(line)
                        self._entries.append(InteractionBufferEntry(**data))
            print(f"[DLA Buffer] Loaded {len(self._entries)} entries for user '{self.user_id}'")
        except Exception as e:
            print(f"[DLA Buffer] Warning: load failed ({e}). Starting fresh.")
