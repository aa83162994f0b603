"""Instance Formation and Record Disambiguation: schema-neutral record specs.

This module is the operational core of the "replace ``count_pred`` with instance
identity and field-to-instance assignment" contract for the boundary
architecture. It is deliberately torch-free so it can be reused by the
processor, target builder, model, and inference engine without pulling in the ML
stack.

Three record-formation modes are supported, selected per schema group:

* ``natural``    - one instance per detected anchor mention; non-anchor fields
  are assigned to anchors by sparse edge scores.
* ``latent``     - no declared anchor; a learned selector chooses which field /
  mention seeds each instance, supervised only by record grouping.
* ``anchorless`` - document-conditioned learned instance queries predict
  object/``NO_OBJECT`` plus one candidate pointer per field.

The central operational point: record *count* is never predicted directly. It is
**derived** from the set of instances selected by global decoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

# Task types supported by the boundary record decoder. Sparse relation decoding
# is a separate deferred surface, so relation groups must not be compiled into
# record specs merely because a raw schema supplies record_metadata.
RECORD_TASK_TYPES = ("json_structures",)

VALID_MODES = ("natural", "latent", "anchorless")
VALID_OCCURRENCE_POLICIES = ("all", "first", "error_on_ambiguous", "latent_all")


class FieldCardinality(str, Enum):
    """How many mentions a field may bind within a single record instance."""

    OPTIONAL_ONE = "optional_one"   # 0 or 1 (scalar, may be ABSENT)
    REQUIRED_ONE = "required_one"   # exactly 1 (scalar, never ABSENT)
    ZERO_OR_MORE = "zero_or_more"   # list, may be empty
    ONE_OR_MORE = "one_or_more"     # list, at least one

    @property
    def is_scalar(self) -> bool:
        return self in (FieldCardinality.OPTIONAL_ONE, FieldCardinality.REQUIRED_ONE)

    @property
    def is_multi(self) -> bool:
        return not self.is_scalar

    @property
    def allows_absent(self) -> bool:
        return self in (FieldCardinality.OPTIONAL_ONE, FieldCardinality.ZERO_OR_MORE)


def _default_cardinality(dtype: Optional[str], is_anchor: bool) -> FieldCardinality:
    if is_anchor:
        return FieldCardinality.REQUIRED_ONE
    if dtype == "str":
        return FieldCardinality.OPTIONAL_ONE
    return FieldCardinality.ZERO_OR_MORE


# =============================================================================
# Immutable specs (compiled once per sample, consumed by model + engine)
# =============================================================================

@dataclass(frozen=True)
class RecordFieldSpec:
    """One field of a record schema, bound to its boundary query id."""

    query_id: int
    name: str
    role_index: int
    cardinality: FieldCardinality = FieldCardinality.OPTIONAL_ONE
    is_anchor: bool = False
    exclusive: bool = False   # a mention bound here cannot bind elsewhere

    @property
    def is_scalar(self) -> bool:
        return self.cardinality.is_scalar

    @property
    def allows_absent(self) -> bool:
        return self.cardinality.allows_absent


@dataclass(frozen=True)
class RecordSpec:
    """A record/event schema group compiled against a concrete query layout."""

    task_index: int
    task_name: str
    task_type: str
    mode: str
    fields: Tuple[RecordFieldSpec, ...]
    anchor_query_id: Optional[int] = None
    occurrence_policy: str = "latent_all"

    def __post_init__(self) -> None:
        if self.mode not in VALID_MODES:
            raise ValueError(f"unknown record mode {self.mode!r}")
        if self.occurrence_policy not in VALID_OCCURRENCE_POLICIES:
            raise ValueError(
                f"unknown occurrence_policy {self.occurrence_policy!r}"
            )
        if self.mode == "natural":
            if self.anchor_query_id is None:
                raise ValueError(
                    f"record {self.task_name!r} mode='natural' requires an anchor"
                )
            if not any(f.is_anchor and f.query_id == self.anchor_query_id
                       for f in self.fields):
                raise ValueError(
                    f"record {self.task_name!r} anchor_query_id "
                    f"{self.anchor_query_id} does not match any anchor field"
                )
        else:
            if self.anchor_query_id is not None:
                raise ValueError(
                    f"record {self.task_name!r} mode={self.mode!r} must not "
                    "declare a fixed anchor query"
                )

    @property
    def field_query_ids(self) -> Tuple[int, ...]:
        return tuple(f.query_id for f in self.fields)

    def field_for_query(self, query_id: int) -> Optional[RecordFieldSpec]:
        for f in self.fields:
            if f.query_id == query_id:
                return f
        return None


# =============================================================================
# Record metadata normalization (schema dict <-> validated form)
# =============================================================================

def normalize_record_metadata(
    raw: Optional[Mapping[str, Any]],
    *,
    field_dtypes: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> Dict[str, Dict[str, Any]]:
    """Validate and canonicalize a schema ``record_metadata`` mapping.

    ``raw`` maps a record/task name to a config with keys ``mode``, optional
    ``anchor``, optional ``occurrence_policy`` and optional per-field ``fields``
    metadata (``cardinality``, ``exclusive``). ``field_dtypes`` optionally maps
    ``task_name -> {field_name -> dtype}`` so cardinality defaults can follow the
    declared dtype. Returns a fully-populated, JSON-serializable dict.

    Absence of an entry means the record group keeps legacy behavior; this
    function never invents a mode for groups the user did not annotate.
    """
    if not raw:
        return {}
    field_dtypes = field_dtypes or {}
    out: Dict[str, Dict[str, Any]] = {}
    for name, cfg in raw.items():
        if not isinstance(cfg, Mapping):
            raise ValueError(f"record_metadata[{name!r}] must be a mapping")
        mode = cfg.get("mode")
        if mode is None:
            continue  # unannotated -> legacy
        if mode not in VALID_MODES:
            raise ValueError(
                f"record_metadata[{name!r}].mode must be one of {VALID_MODES}, "
                f"got {mode!r}"
            )
        anchor = cfg.get("anchor")
        if mode == "natural" and not anchor:
            raise ValueError(
                f"record_metadata[{name!r}] mode='natural' requires 'anchor'"
            )
        if mode != "natural" and anchor:
            raise ValueError(
                f"record_metadata[{name!r}] mode={mode!r} must not set 'anchor'"
            )
        policy = cfg.get("occurrence_policy", "latent_all")
        if policy not in VALID_OCCURRENCE_POLICIES:
            raise ValueError(
                f"record_metadata[{name!r}].occurrence_policy must be one of "
                f"{VALID_OCCURRENCE_POLICIES}, got {policy!r}"
            )
        dtypes = field_dtypes.get(name, {})
        fields_cfg_in = cfg.get("fields", {}) or {}
        fields_cfg_out: Dict[str, Dict[str, Any]] = {}
        for fname, fcfg in fields_cfg_in.items():
            fcfg = fcfg or {}
            is_anchor = bool(anchor) and fname == anchor
            card = fcfg.get("cardinality")
            if card is None:
                card = _default_cardinality(dtypes.get(fname), is_anchor).value
            elif card not in {c.value for c in FieldCardinality}:
                raise ValueError(
                    f"record_metadata[{name!r}].fields[{fname!r}].cardinality "
                    f"invalid: {card!r}"
                )
            fields_cfg_out[fname] = {
                "cardinality": card,
                "exclusive": bool(fcfg.get("exclusive", False)),
            }
        out[name] = {
            "mode": mode,
            "anchor": anchor,
            "occurrence_policy": policy,
            "fields": fields_cfg_out,
        }
    return out


# =============================================================================
# Compilation against a concrete query layout
# =============================================================================

def compile_record_specs(
    *,
    query_layout,
    record_metadata: Optional[Mapping[str, Any]],
    field_dtypes: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> Dict[int, RecordSpec]:
    """Compile ``record_metadata`` into ``RecordSpec`` objects keyed by task_index.

    Only groups with an explicit mode are compiled; everything else is left to
    the legacy path. Field order/query ids come from the concrete
    ``query_layout`` so the result is correct even when training shuffles task
    and field order.
    """
    normalized = normalize_record_metadata(record_metadata, field_dtypes=field_dtypes)
    if not normalized:
        return {}

    # Group extractive queries by (task_index, task_name).
    by_task: Dict[int, List[Any]] = {}
    task_names: Dict[int, str] = {}
    task_types: Dict[int, str] = {}
    for q in query_layout.queries:
        if not q.extractive:
            continue
        by_task.setdefault(q.task_index, []).append(q)
        task_names[q.task_index] = q.task_name
        task_types[q.task_index] = q.task_type

    specs: Dict[int, RecordSpec] = {}
    for task_index, queries in by_task.items():
        name = task_names[task_index]
        if task_types[task_index] not in RECORD_TASK_TYPES:
            continue
        cfg = normalized.get(name)
        if cfg is None:
            continue
        queries = sorted(queries, key=lambda q: q.role_index)
        mode = cfg["mode"]
        anchor_name = cfg.get("anchor")
        fields_cfg = cfg.get("fields", {})
        fields: List[RecordFieldSpec] = []
        anchor_query_id: Optional[int] = None
        for q in queries:
            fcfg = fields_cfg.get(q.role_name, {})
            is_anchor = mode == "natural" and q.role_name == anchor_name
            card_raw = fcfg.get("cardinality")
            card = (
                FieldCardinality(card_raw)
                if card_raw is not None
                else _default_cardinality(
                    (field_dtypes or {}).get(name, {}).get(q.role_name),
                    is_anchor,
                )
            )
            fields.append(
                RecordFieldSpec(
                    query_id=q.query_id,
                    name=q.role_name,
                    role_index=q.role_index,
                    cardinality=card,
                    is_anchor=is_anchor,
                    exclusive=bool(fcfg.get("exclusive", False)),
                )
            )
            if is_anchor:
                anchor_query_id = q.query_id
        if mode == "natural" and anchor_query_id is None:
            raise ValueError(
                f"record {name!r} declares anchor {anchor_name!r} but no matching "
                "field query was found in the layout"
            )
        specs[task_index] = RecordSpec(
            task_index=task_index,
            task_name=name,
            task_type=task_types[task_index],
            mode=mode,
            fields=tuple(fields),
            anchor_query_id=anchor_query_id,
            occurrence_policy=cfg.get("occurrence_policy", "latent_all"),
        )
    return specs


__all__ = [
    "RECORD_TASK_TYPES",
    "VALID_MODES",
    "VALID_OCCURRENCE_POLICIES",
    "FieldCardinality",
    "RecordFieldSpec",
    "RecordSpec",
    "normalize_record_metadata",
    "compile_record_specs",
]
