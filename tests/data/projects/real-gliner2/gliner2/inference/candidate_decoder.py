"""Deterministic decoding of sparse span candidates.

Architecture-independent: consumes a ``CandidateSet`` (produced by the span
adapter or the boundary model) and turns it into thresholded, overlap-resolved,
ranked ``ScoredSpanCandidate`` results with exact half-open token→character
conversion.

Half-open ``[start, end)`` conversion to characters is exactly::

    char_start = start_mappings[start]
    char_end   = end_mappings[end - 1]

Stable ranking (guarantees deterministic ties):
    descending confidence, ascending start, ascending end, ascending query name.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from gliner2.inference.overlap import resolve_overlaps
from gliner2.models.base import QueryLayout, QuerySpec
from gliner2.models.candidates import CandidateSet, ScoredSpanCandidate


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def token_boundaries_to_character_offsets(
    start: int,
    end: int,
    start_mappings: Sequence[int],
    end_mappings: Sequence[int],
) -> Tuple[int, int]:
    """Exact half-open token→character conversion.

    ``char_start = start_mappings[start]``; ``char_end = end_mappings[end - 1]``.
    """
    if end <= start:
        raise ValueError(f"half-open span requires end > start, got [{start}, {end})")
    if start < 0 or end > len(end_mappings):
        raise ValueError(
            f"token boundaries [{start}, {end}) out of range for {len(end_mappings)} tokens"
        )
    return int(start_mappings[start]), int(end_mappings[end - 1])


def stable_candidate_sort_key(
    candidate: ScoredSpanCandidate,
    query_name: str = "",
) -> tuple:
    """Deterministic ranking key: -conf, start, end, query name."""
    return (-candidate.probability, candidate.start, candidate.end, query_name)


def apply_overlap_policy(
    candidates: Sequence[ScoredSpanCandidate],
    policy: str,
) -> List[ScoredSpanCandidate]:
    """Resolve overlaps deterministically within a single query."""
    return resolve_overlaps(
        candidates,
        policy,
        score=lambda candidate: candidate.probability,
        start=lambda candidate: candidate.start,
        end=lambda candidate: candidate.end,
    )


def decode_candidate_set(
    candidates: CandidateSet,
    query_layout: Optional[QueryLayout],
    *,
    thresholds: Mapping[int, float],
    overlap_policy: str,
    default_threshold: float = 0.5,
) -> List[ScoredSpanCandidate]:
    """Threshold, overlap-resolve (per query), and rank candidates."""
    by_query: Dict[int, List[ScoredSpanCandidate]] = {}
    for i in range(len(candidates)):
        qid = int(candidates.query_ids[i])
        logit = float(candidates.logits[i])
        prob = _sigmoid(logit)
        thr = thresholds.get(qid, default_threshold)
        if prob < thr:
            continue
        cand = ScoredSpanCandidate(
            query_id=qid,
            start=int(candidates.starts[i]),
            end=int(candidates.ends[i]),
            logit=logit,
            probability=prob,
        )
        by_query.setdefault(qid, []).append(cand)

    resolved: List[ScoredSpanCandidate] = []
    for qid, cands in by_query.items():
        resolved.extend(apply_overlap_policy(cands, overlap_policy))

    def query_name(qid: int) -> str:
        if query_layout is None:
            return ""
        try:
            return query_layout.query(qid).task_name
        except KeyError:
            return ""

    resolved.sort(key=lambda c: stable_candidate_sort_key(c, query_name(c.query_id)))
    return resolved


def format_candidate(
    candidate: ScoredSpanCandidate,
    text: str,
    query: Optional[QuerySpec],
    start_mappings: Optional[Sequence[int]] = None,
    end_mappings: Optional[Sequence[int]] = None,
    *,
    include_confidence: bool = False,
    include_spans: bool = False,
) -> Dict[str, Any]:
    """Format a single candidate into a result dict.

    When character mappings are provided the surface is sliced exactly as
    ``text[char_start:char_end]``; otherwise ``text`` is returned verbatim.
    """
    result: Dict[str, Any] = {}
    if query is not None:
        result["label"] = query.task_name

    if start_mappings is not None and end_mappings is not None:
        char_start, char_end = token_boundaries_to_character_offsets(
            candidate.start, candidate.end, start_mappings, end_mappings
        )
        result["text"] = text[char_start:char_end]
        if include_spans:
            result["char_start"] = char_start
            result["char_end"] = char_end
    else:
        result["text"] = text

    if include_spans:
        result["token_start"] = candidate.start
        result["token_end"] = candidate.end
    if include_confidence:
        result["confidence"] = candidate.probability
    return result


__all__ = [
    "ScoredSpanCandidate",
    "decode_candidate_set",
    "token_boundaries_to_character_offsets",
    "apply_overlap_policy",
    "stable_candidate_sort_key",
    "format_candidate",
    "RawSpan",
    "finalize_spans",
]


# --- final span selection ---

RawSpan = Tuple[str, float, int, int]


def finalize_spans(
    raw_spans: Sequence[RawSpan],
    *,
    dtype: str = "list",
    gate_open: bool = True,
    suppress: bool = True,
    overlap_policy: Optional[str] = None,
) -> List[RawSpan]:
    """Decode thresholded entity spans using the production contract."""
    if not gate_open:
        return []
    if overlap_policy is None:
        # Preserve the span architecture's published confidence-first greedy
        # default. Explicit policies use the shared deterministic resolver.
        ranked = sorted(raw_spans, key=lambda span: span[1], reverse=True)
        if suppress:
            spans = []
            for candidate in ranked:
                candidate_start, candidate_end = candidate[2], candidate[3]
                if any(
                    candidate_start < existing[3]
                    and existing[2] < candidate_end
                    for existing in spans
                ):
                    continue
                spans.append(candidate)
        else:
            spans = ranked
    else:
        spans = resolve_overlaps(
            raw_spans,
            overlap_policy,
            score=lambda span: span[1],
            start=lambda span: span[2],
            end=lambda span: span[3],
        )
    return spans if dtype == "list" else spans[:1]
