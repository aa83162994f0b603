"""
kolmgformers/dla/pipeline.py  v2.0.6
=====================================
Digestive Learning Architecture — Component 2: Digestion Pipeline.

The Pipeline is the enzymatic processing system of DLA. It takes raw
interactions from the Buffer and produces clean, deduplicated,
quality-filtered, contradiction-resolved training batches.

Four-step process (from the paper):
  Step 1 — Deduplication: collapse semantically identical interactions.
  Step 2 — Quality Filtering: discard low-value interactions.
  Step 3 — Contradiction Resolution: handle conflicting knowledge claims.
  Step 4 — Distillation: convert to input-output training pairs.

The pipeline is designed to run asynchronously and never block inference.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F

from kolmgformers.dla.buffer import DLAConfig, InteractionBufferEntry


__all__ = [
    "DigestedBatch",
    "DigestivePipeline",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Digested Batch ────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class DigestedBatch:
    """
    Output of the DigestivePipeline: clean training examples ready for absorption.

    Each example is a (input_text, target_text) pair extracted and
    distilled from the original interaction. No raw transcript text is
    retained after this point — only the distilled signal.

    Attributes:
        examples:        List of (input, target) string pairs.
        source_count:    Number of raw interactions that produced this batch.
        quality_mean:    Mean quality score of included interactions.
        had_contradictions: Whether any contradiction was detected and resolved.
    """
    examples:            List[Tuple[str, str]]
    source_count:        int   = 0
    quality_mean:        float = 0.0
    had_contradictions:  bool  = False


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Digestion Pipeline ────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class DigestivePipeline:
    """
    Asynchronous cleaning and distillation pipeline for DLA.

    Takes raw InteractionBufferEntry objects from the InteractionBuffer
    and produces DigestedBatch objects ready for AbsorptionEngine.

    Deduplication uses a lightweight hashing strategy: each interaction's
    transcript is normalized and hashed. If an embedding model is provided,
    cosine similarity is also checked for semantic deduplication.

    Args:
        config:          DLAConfig.
        embed_model:     Optional model for semantic deduplication (any object
                         with an encode(str) -> torch.Tensor method).
        sim_threshold:   Cosine similarity threshold for semantic deduplication
                         (default 0.92 — very similar = duplicate).
    """

    def __init__(
        self,
        config:         DLAConfig,
        embed_model=    None,
        sim_threshold:  float = 0.92,
    ):
        self.config        = config
        self.embed_model   = embed_model
        self.sim_threshold = sim_threshold

        # Seen hashes for exact dedup
        self._seen_hashes: set = set()

        # Contradiction detection: store (claim_hash → text) for known facts
        self._known_claims: dict = {}

    # ── Main entry point ──────────────────────────────────────────────────────

    def process(
        self,
        entries: List[InteractionBufferEntry],
    ) -> DigestedBatch:
        """
        Run the full four-step digestion pipeline on a list of raw entries.

        Args:
            entries: Raw interactions from InteractionBuffer.eligible_for_digestion()

        Returns:
            DigestedBatch with clean training examples, or empty batch if
            nothing survives the pipeline.
        """
        if not entries:
            return DigestedBatch(examples=[])

        # Step 1: Deduplication
        deduped = self._deduplicate(entries)

        # Step 2: Quality filtering
        quality_scores = {id(e): e.quality_signal() for e in deduped}
        filtered = [
            e for e in deduped
            if quality_scores[id(e)] >= self.config.quality_threshold
        ]

        if not filtered:
            return DigestedBatch(examples=[], source_count=len(entries))

        # Step 3: Contradiction resolution
        filtered, had_contradictions = self._resolve_contradictions(filtered)

        # Step 4: Distillation
        examples = self._distill(filtered)

        quality_mean = (
            sum(quality_scores[id(e)] for e in filtered) / len(filtered)
            if filtered else 0.0
        )

        return DigestedBatch(
            examples           = examples,
            source_count       = len(entries),
            quality_mean       = quality_mean,
            had_contradictions = had_contradictions,
        )

    # ── Step 1: Deduplication ─────────────────────────────────────────────────

    def _deduplicate(
        self,
        entries: List[InteractionBufferEntry],
    ) -> List[InteractionBufferEntry]:
        """
        Remove duplicate interactions.

        First pass: exact hash dedup (normalized transcript).
        Second pass (if embed_model available): cosine similarity dedup.

        Corrections are always kept even if they appear duplicate — they
        represent direct error signals.
        """
        unique       = []
        local_seen   = set()

        for e in entries:
            # Corrections are always kept
            if e.interaction_type == "correction":
                unique.append(e)
                continue

            h = self._transcript_hash(e.transcript)
            if h in self._seen_hashes or h in local_seen:
                continue
            local_seen.add(h)
            self._seen_hashes.add(h)
            unique.append(e)

        # Semantic dedup (if embed model available)
        if self.embed_model is not None and len(unique) > 1:
            unique = self._semantic_dedup(unique)

        return unique

    def _semantic_dedup(
        self,
        entries: List[InteractionBufferEntry],
    ) -> List[InteractionBufferEntry]:
        """Remove semantically near-duplicate entries using embedding cosine sim."""
        try:
            embeddings = [
                self.embed_model.encode(e.transcript[:512])
                for e in entries
            ]
            emb_tensor = torch.stack([
                torch.tensor(em) if not isinstance(em, torch.Tensor) else em
                for em in embeddings
            ])
            emb_norm = F.normalize(emb_tensor, dim=-1)
            sim_mat  = emb_norm @ emb_norm.T   # (N, N)

            keep    = []
            dropped = set()
            for i in range(len(entries)):
                if i in dropped:
                    continue
                keep.append(entries[i])
                for j in range(i + 1, len(entries)):
                    if j not in dropped and sim_mat[i, j].item() >= self.sim_threshold:
                        # Keep the higher-quality one
                        if entries[j].quality_signal() > entries[i].quality_signal():
                            keep[-1] = entries[j]
                        dropped.add(j)
            return keep
        except Exception:
            return entries   # fallback: return as-is

    # ── Step 3: Contradiction Resolution ─────────────────────────────────────

    def _resolve_contradictions(
        self,
        entries: List[InteractionBufferEntry],
    ) -> Tuple[List[InteractionBufferEntry], bool]:
        """
        Detect and resolve contradicting interactions.

        Uses the configured strategy:
          - 'recency':   newer interaction wins
          - 'frequency': interaction type with more entries wins
          - 'hold':      contradictions are held, non-contradicting pass through

        Returns (resolved_entries, had_contradictions).
        """
        strategy         = self.config.contradiction_strategy
        had_contradictions = False

        if strategy == "recency":
            # Sort by timestamp descending; for conflicts, first seen wins
            entries = sorted(entries, key=lambda e: e.timestamp, reverse=True)
            claim_seen: dict = {}
            resolved = []
            for e in entries:
                ch = self._claim_hash(e.transcript)
                if ch not in claim_seen:
                    claim_seen[ch] = e
                    resolved.append(e)
                else:
                    had_contradictions = True
            return resolved, had_contradictions

        elif strategy == "frequency":
            # Keep whichever type (correction vs confirmation) appears more
            from collections import Counter
            type_counts = Counter(e.interaction_type for e in entries)
            dominant    = type_counts.most_common(1)[0][0]
            resolved    = [e for e in entries if e.interaction_type == dominant]
            had_contradictions = len(resolved) < len(entries)
            return resolved, had_contradictions

        else:  # 'hold'
            # Only pass through entries with no apparent contradiction partner
            claim_map: dict = {}
            for e in entries:
                ch = self._claim_hash(e.transcript)
                claim_map.setdefault(ch, []).append(e)
            resolved = []
            for ch, group in claim_map.items():
                if len(group) == 1:
                    resolved.append(group[0])
                else:
                    had_contradictions = True
                    # Pass through the highest-quality one
                    resolved.append(max(group, key=lambda e: e.quality_signal()))
            return resolved, had_contradictions

    # ── Step 4: Distillation ──────────────────────────────────────────────────

    def _distill(
        self,
        entries: List[InteractionBufferEntry],
    ) -> List[Tuple[str, str]]:
        """
        Convert filtered interactions to (input, target) training pairs.

        For corrections: input = the user's corrected prompt,
                         target = the correction the user provided.
        For other types: extract the question-answer pairs from the transcript.

        This is intentionally simple. Real deployments can plug in a more
        sophisticated distillation model here.
        """
        examples = []
        for e in entries:
            pairs = self._extract_qa_pairs(e)
            examples.extend(pairs)
        return examples

    def _extract_qa_pairs(
        self,
        entry: InteractionBufferEntry,
    ) -> List[Tuple[str, str]]:
        """
        Extract (question, answer) pairs from a conversation transcript.

        Parses lines starting with 'User:' and 'Assistant:' / 'Model:'.
        Falls back to treating the whole transcript as a single training example.
        """
        lines    = entry.transcript.strip().split("\n")
        pairs    = []
        cur_user = []
        cur_asst = []
        in_user  = False
        in_asst  = False

        for line in lines:
            lstrip = line.strip()
            if lstrip.lower().startswith(("user:", "human:")):
                if cur_user and cur_asst:
                    pairs.append((" ".join(cur_user), " ".join(cur_asst)))
                    cur_asst = []
                cur_user = [lstrip.split(":", 1)[-1].strip()]
                in_user, in_asst = True, False
            elif lstrip.lower().startswith(("assistant:", "model:", "bot:")):
                cur_asst = [lstrip.split(":", 1)[-1].strip()]
                in_user, in_asst = False, True
            else:
                if in_user:
                    cur_user.append(lstrip)
                elif in_asst:
                    cur_asst.append(lstrip)

        if cur_user and cur_asst:
            pairs.append((" ".join(cur_user), " ".join(cur_asst)))

        if not pairs:
            # Fallback: treat full transcript as a single example
            half = len(entry.transcript) // 2
            pairs = [(entry.transcript[:half], entry.transcript[half:])]

        return pairs

    # ── Helpers ───────────────────────────────────────────────────────────────

    @staticmethod
    def _transcript_hash(text: str) -> str:
        normalized = " ".join(text.lower().split())
        return hashlib.sha256(normalized.encode()).hexdigest()[:16]

    @staticmethod
    def _claim_hash(text: str) -> str:
        """Rough claim hash: first 100 normalized characters."""
        normalized = " ".join(text.lower().split())[:100]
        return hashlib.md5(normalized.encode()).hexdigest()[:12]
