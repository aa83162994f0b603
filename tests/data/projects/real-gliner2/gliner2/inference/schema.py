"""
Torch-free schema and validator primitives.

This module contains the Schema builder, StructureBuilder, and RegexValidator
classes that have no dependency on torch, transformers, or any ML libraries.
They can be used standalone for schema construction, validation, and
serialization without installing the ``[local]`` extras.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Pattern, Union

from pydantic import BaseModel

from gliner2.inference.schema_model import SchemaInput


def _configs_to_builder(
    value: Union[List[str], Dict[str, Union[str, BaseModel]]],
) -> Union[List[str], Dict[str, Union[str, Dict[str, Any]]]]:
    """Turn validated entity/relation configs into the builder's dict form."""
    if isinstance(value, list):
        return value
    return {
        name: config.model_dump(exclude_none=True) if isinstance(config, BaseModel) else config
        for name, config in value.items()
    }


def _compact_config(config: Dict[str, Any]) -> Union[str, Dict[str, Any]]:
    """Collapse a description-only config to its description string."""
    if set(config) == {"description"}:
        return config["description"]
    return config


# =============================================================================
# Validators
# =============================================================================


@dataclass
class RegexValidator:
    """Regex-based span filter for post-processing."""

    pattern: str | Pattern[str]
    mode: Literal["full", "partial"] = "full"
    exclude: bool = False
    flags: int = re.IGNORECASE
    _compiled: Pattern[str] = field(init=False, repr=False)

    def __post_init__(self):
        if self.mode not in {"full", "partial"}:
            raise ValueError(f"mode must be 'full' or 'partial', got {self.mode!r}")
        try:
            compiled = (
                self.pattern
                if isinstance(self.pattern, re.Pattern)
                else re.compile(self.pattern, self.flags)
            )
        except re.error as err:
            raise ValueError(f"Invalid regex: {self.pattern!r}") from err
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, text: str) -> bool:
        return self.validate(text)

    def validate(self, text: str) -> bool:
        matcher = self._compiled.fullmatch if self.mode == "full" else self._compiled.search
        matched = matcher(text) is not None
        return not matched if self.exclude else matched


# =============================================================================
# Schema Builder
# =============================================================================


@dataclass
class AttributeGroup:
    """Labels assigned as attributes of extracted entity spans.

    Args:
        labels: Values available in this attribute group.
        multi_label: Use independent sigmoid decisions instead of forcing one value.
        threshold: Selection cutoff for multi-label groups.
        applies_to: Optional entity types to which this group applies.
        qualify_labels: Prefix model-facing values with the group name to reduce
            ambiguity, while keeping returned values unqualified.
    """

    labels: List[str]
    multi_label: bool = False
    threshold: float = 0.5
    applies_to: Optional[List[str]] = None
    qualify_labels: bool = False


class StructureBuilder:
    """Builder for structured data schemas."""

    def __init__(
        self,
        schema: "Schema",
        parent: str,
        *,
        mode: Optional[str] = None,
        anchor: Optional[str] = None,
        occurrence_policy: Optional[str] = None,
    ):
        self.schema = schema
        self.parent = parent
        self.fields = OrderedDict()
        self.descriptions = OrderedDict()
        self.field_order = []
        self._finished = False
        # Instance Formation metadata (optional; absence == legacy behavior).
        self._mode = mode
        self._anchor = anchor
        self._occurrence_policy = occurrence_policy
        self._field_records: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()

    def field(
        self,
        name: str,
        dtype: Literal["str", "list"] = "list",
        choices: Optional[List[str]] = None,
        description: Optional[str] = None,
        threshold: Optional[float] = None,
        validators: Optional[List[RegexValidator]] = None,
        cardinality: Optional[str] = None,
        exclusive: bool = False,
    ) -> "StructureBuilder":
        """Add a field to the structure.

        ``cardinality`` (``"optional_one" | "required_one" | "zero_or_more" |
        "one_or_more"``) and ``exclusive`` refine record decoding when the
        structure declares a record ``mode``; they are ignored otherwise.
        """
        self.fields[name] = {"value": "", "choices": choices} if choices else ""
        self.field_order.append(name)

        if description:
            self.descriptions[name] = description

        if cardinality is not None or exclusive:
            entry: Dict[str, Any] = {}
            if cardinality is not None:
                entry["cardinality"] = cardinality
            if exclusive:
                entry["exclusive"] = True
            self._field_records[name] = entry

        self.schema._store_field_metadata(self.parent, name, dtype, threshold, choices, validators)
        return self

    def _auto_finish(self):
        if not self._finished:
            self.schema._store_field_order(self.parent, self.field_order)
            self.schema.schema["json_structures"].append({self.parent: self.fields})

            if self.descriptions:
                if "json_descriptions" not in self.schema.schema:
                    self.schema.schema["json_descriptions"] = {}
                self.schema.schema["json_descriptions"][self.parent] = self.descriptions

            if self._mode is not None:
                self.schema._store_record_metadata(
                    self.parent,
                    mode=self._mode,
                    anchor=self._anchor,
                    occurrence_policy=self._occurrence_policy,
                    fields=dict(self._field_records),
                )

            self._finished = True

    def __getattr__(self, name):
        if hasattr(self.schema, name):
            self._auto_finish()
            return getattr(self.schema, name)
        raise AttributeError(f"'{type(self).__name__}' has no attribute '{name}'")


class Schema:
    """Schema builder for extraction tasks."""

    def __init__(self):
        self.schema = {
            "json_structures": [],
            "classifications": [],
            "entities": OrderedDict(),
            "relations": [],
            "json_descriptions": {},
            "entity_descriptions": OrderedDict(),
            "relation_descriptions": OrderedDict(),
        }
        self._field_metadata = {}
        self._entity_metadata = {}
        self._relation_metadata = {}
        self._record_metadata: Dict[str, Dict[str, Any]] = {}
        self._field_orders = {}
        self._entity_order = []
        self._relation_order = []
        self._entity_attribute_groups: Dict[str, AttributeGroup] = {}
        self._entity_attribute_prompt_labels: Dict[str, str] = {}
        self._entity_attribute_labels = set()
        self._active_builder = None

    def _store_field_metadata(self, parent, field, dtype, threshold, choices, validators=None):
        if threshold is not None and not 0 <= threshold <= 1:
            raise ValueError(f"Threshold must be 0-1, got {threshold}")
        self._field_metadata[f"{parent}.{field}"] = {
            "dtype": dtype,
            "threshold": threshold,
            "choices": choices,
            "validators": validators or [],
        }

    def _store_entity_metadata(self, entity, dtype, threshold, validators=None):
        if threshold is not None and not 0 <= threshold <= 1:
            raise ValueError(f"Threshold must be 0-1, got {threshold}")
        self._entity_metadata[entity] = {
            "dtype": dtype,
            "threshold": threshold,
            "validators": validators or [],
        }

    def _store_field_order(self, parent, order):
        self._field_orders[parent] = order

    def _store_record_metadata(self, parent, *, mode, anchor, occurrence_policy, fields):
        from gliner2.processing.records import VALID_MODES, VALID_OCCURRENCE_POLICIES

        if mode not in VALID_MODES:
            raise ValueError(f"structure mode must be one of {VALID_MODES}, got {mode!r}")
        if mode == "natural":
            order = self._field_orders.get(parent, [])
            if not anchor:
                # Default anchor = first declared field, in declaration order
                # (captured before any training-time field shuffling).
                if not order:
                    raise ValueError(
                        f"structure {parent!r} mode='natural' requires at least one field"
                    )
                anchor = order[0]
            if anchor not in order:
                raise ValueError(f"structure {parent!r} anchor {anchor!r} is not a declared field")
        elif anchor:
            raise ValueError(f"structure {parent!r} mode={mode!r} must not set an anchor")
        if occurrence_policy is not None and occurrence_policy not in VALID_OCCURRENCE_POLICIES:
            raise ValueError(
                f"structure {parent!r} occurrence_policy must be one of "
                f"{VALID_OCCURRENCE_POLICIES}, got {occurrence_policy!r}"
            )
        entry: Dict[str, Any] = {"mode": mode}
        if anchor is not None:
            entry["anchor"] = anchor
        if occurrence_policy is not None:
            entry["occurrence_policy"] = occurrence_policy
        if fields:
            entry["fields"] = fields
        self._record_metadata[parent] = entry

    def structure(
        self,
        name: str,
        *,
        mode: Optional[str] = None,
        anchor: Optional[str] = None,
        occurrence_policy: Optional[str] = None,
    ) -> StructureBuilder:
        """Start building a structure schema.

        ``mode`` selects Instance Formation behavior: ``"natural"`` (requires
        ``anchor``), ``"latent"``, or ``"anchorless"``. Omitting ``mode`` keeps
        the legacy structure behavior.
        """
        if self._active_builder:
            self._active_builder._auto_finish()
        self._active_builder = StructureBuilder(
            self, name, mode=mode, anchor=anchor, occurrence_policy=occurrence_policy
        )
        return self._active_builder

    def classification(
        self,
        task: str,
        labels: Union[List[str], Dict[str, str]],
        multi_label: bool = False,
        cls_threshold: float = 0.5,
        top_k: Optional[int] = None,
        **kwargs,
    ) -> "Schema":
        """Add classification task.

        Args:
            task: Task name.
            labels: Label names, or a mapping of label name to description.
            multi_label: Allow more than one label.
            cls_threshold: Multi-label selection cutoff in [0, 1].
            top_k: Keep at most this many labels, highest probability first.
                Only multi-label tasks can return more than one label.
            **kwargs: Extra task options (``class_act``, ``prompt``, ``examples``).

        Returns:
            This schema, for chaining.

        Raises:
            ValueError: ``cls_threshold`` is outside [0, 1] or ``top_k`` < 1.
        """
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None
        if not 0 <= cls_threshold <= 1:
            raise ValueError(f"cls_threshold must be 0-1, got {cls_threshold}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")

        label_names = list(labels.keys()) if isinstance(labels, dict) else labels
        label_descs = labels if isinstance(labels, dict) else None

        config = {
            "task": task,
            "labels": label_names,
            "multi_label": multi_label,
            "cls_threshold": cls_threshold,
            **kwargs,
        }
        if top_k is not None:
            config["top_k"] = top_k
        if label_descs:
            config["label_descriptions"] = label_descs

        self.schema["classifications"].append(config)
        return self

    def entities(
        self,
        entity_types: Union[str, List[str], Dict[str, Union[str, Dict]]],
        dtype: Literal["str", "list"] = "list",
        threshold: Optional[float] = None,
        validators: Optional[List[RegexValidator]] = None,
    ) -> "Schema":
        """Add entity extraction task."""
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None

        entities = self._parse_entity_input(entity_types)

        for name, config in entities.items():
            self.schema["entities"][name] = ""
            if name not in self._entity_order:
                self._entity_order.append(name)

            self._store_entity_metadata(
                name,
                config.get("dtype", dtype),
                config.get("threshold", threshold),
                config.get("validators", validators),
            )

            if "description" in config:
                self.schema["entity_descriptions"][name] = config["description"]

        return self

    def entity_attributes(self, groups: Dict[str, AttributeGroup]) -> "Schema":
        """Attach attribute groups to entities declared by this schema.

        Model-facing attribute labels are added to the internal entity schema, but
        are excluded from the public entity order and decoded as span attributes.
        """
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None
        if not self._entity_order:
            raise ValueError("entity_attributes() requires entities() to be called first")

        groups = groups or {}
        reserved = {"text", "confidence", "start", "end"}
        seen: Dict[str, str] = {}
        content_entities = set(self._entity_order)
        for group_name, group in groups.items():
            if not isinstance(group, AttributeGroup):
                raise TypeError(f"Attribute group '{group_name}' must be an AttributeGroup")
            if not group_name or group_name in reserved:
                raise ValueError(
                    f"Invalid attribute group name {group_name!r}: must be non-empty "
                    f"and not one of {sorted(reserved)}"
                )
            if not group.labels:
                raise ValueError(f"Attribute group '{group_name}' has no labels")
            if not 0.0 <= group.threshold <= 1.0:
                raise ValueError(
                    f"Attribute group '{group_name}' threshold must be in [0, 1], "
                    f"got {group.threshold}"
                )
            if group.applies_to is not None:
                unknown = set(group.applies_to) - content_entities
                if unknown:
                    raise ValueError(
                        f"Attribute group '{group_name}' applies to unknown entities: "
                        f"{sorted(unknown)}"
                    )
            group_seen = set()
            for label in group.labels:
                if not label or not label.strip():
                    raise ValueError(f"Attribute group '{group_name}' has an empty label")
                if label in group_seen:
                    raise ValueError(f"Label '{label}' is duplicated within group '{group_name}'")
                group_seen.add(label)
                if label in seen:
                    raise ValueError(
                        f"Label '{label}' is in both '{seen[label]}' and '{group_name}'"
                    )
                seen[label] = group_name

        prompt_labels = {
            label: f"{group_name}: {label}" if group.qualify_labels else label
            for group_name, group in groups.items()
            for label in group.labels
        }
        attribute_labels = set(prompt_labels.values())
        collisions = attribute_labels & content_entities
        if collisions:
            raise ValueError(
                "Attribute labels collide with entity labels: "
                f"{sorted(collisions)}; use qualify_labels=True"
            )

        # Replace prior configuration cleanly when this method is called again.
        for label in self._entity_attribute_labels:
            if label not in content_entities:
                self.schema["entities"].pop(label, None)
                self._entity_metadata.pop(label, None)
        for label in sorted(attribute_labels):
            self.schema["entities"].setdefault(label, "")
            self._store_entity_metadata(label, "list", None)

        self._entity_attribute_groups = dict(groups)
        self._entity_attribute_prompt_labels = prompt_labels
        self._entity_attribute_labels = attribute_labels
        return self

    def _parse_entity_input(self, entity_types):
        if isinstance(entity_types, str):
            return {entity_types: {}}
        elif isinstance(entity_types, list):
            return {name: {} for name in entity_types}
        elif isinstance(entity_types, dict):
            result = {}
            for name, config in entity_types.items():
                if isinstance(config, str):
                    result[name] = {"description": config}
                elif isinstance(config, dict):
                    result[name] = config
                else:
                    result[name] = {}
            return result
        raise ValueError("Invalid entity_types format")

    def relations(
        self,
        relation_types: Union[str, List[str], Dict[str, Union[str, Dict]]],
        threshold: Optional[float] = None,
    ) -> "Schema":
        """Add relation extraction task."""
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None

        if isinstance(relation_types, str):
            relations = {relation_types: {}}
        elif isinstance(relation_types, list):
            relations = {name: {} for name in relation_types}
        elif isinstance(relation_types, dict):
            relations = {}
            for name, config in relation_types.items():
                relations[name] = (
                    {"description": config}
                    if isinstance(config, str)
                    else (config if isinstance(config, dict) else {})
                )
        else:
            raise ValueError("Invalid relation_types format")

        for name, config in relations.items():
            self.schema["relations"].append({name: {"head": "", "tail": ""}})
            if name not in self._relation_order:
                self._relation_order.append(name)
            self._field_orders[name] = ["head", "tail"]

            rel_threshold = config.get("threshold", threshold)
            if rel_threshold is not None and not 0 <= rel_threshold <= 1:
                raise ValueError(f"Threshold must be 0-1, got {rel_threshold}")
            self._relation_metadata[name] = {"threshold": rel_threshold}
            description = config.get("description")
            if description:
                self.schema["relation_descriptions"][name] = description

        return self

    def build(self) -> Dict[str, Any]:
        """Build final schema dictionary."""
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None
        if self._record_metadata:
            self.schema["record_metadata"] = self._record_metadata
        return self.schema

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Schema":
        """Create a Schema from a dictionary.

        Args:
            data: Dictionary with optional keys: entities, structures,
                  classifications, relations, entity_attributes

        Returns:
            Schema: Constructed schema instance

        Raises:
            ValidationError: If the input data is invalid or has unknown keys
            ValueError: If the builder rejects the validated schema

        Example:
            >>> schema_dict = {
            ...     "entities": ["company", "person"],
            ...     "structures": {
            ...         "product_info": {
            ...             "fields": [
            ...                 {"name": "company", "dtype": "str"},
            ...                 {"name": "product"}
            ...             ]
            ...         }
            ...     },
            ...     "classifications": [
            ...         {"task": "sentiment", "labels": ["positive", "negative"]}
            ...     ],
            ...     "relations": ["works_for", "founded_by"]
            ... }
            >>> schema = Schema.from_dict(schema_dict)
        """
        validated = SchemaInput(**data)

        schema = cls()

        if validated.entities is not None:
            schema.entities(_configs_to_builder(validated.entities))
            if validated.entity_attributes is not None:
                schema.entity_attributes(
                    {
                        name: AttributeGroup(**group.model_dump())
                        for name, group in validated.entity_attributes.items()
                    }
                )

        if validated.structures is not None:
            for struct_name, struct_input in validated.structures.items():
                builder = schema.structure(
                    struct_name,
                    mode=struct_input.mode,
                    anchor=struct_input.anchor,
                    occurrence_policy=struct_input.occurrence_policy,
                )
                for field_input in struct_input.fields:
                    builder.field(
                        name=field_input.name,
                        dtype=field_input.dtype,
                        choices=field_input.choices,
                        description=field_input.description,
                        threshold=field_input.threshold,
                        cardinality=field_input.cardinality,
                        exclusive=field_input.exclusive,
                    )
                builder._auto_finish()

        if validated.classifications is not None:
            for cls_input in validated.classifications:
                extras = cls_input.model_dump(
                    include={"class_act", "prompt", "examples"}, exclude_none=True
                )
                schema.classification(
                    task=cls_input.task,
                    labels=cls_input.labels,
                    multi_label=cls_input.multi_label,
                    cls_threshold=cls_input.cls_threshold,
                    top_k=cls_input.top_k,
                    **extras,
                )

        if validated.relations is not None:
            schema.relations(_configs_to_builder(validated.relations))

        return schema

    @classmethod
    def from_json(cls, json_str: str) -> "Schema":
        """Create a Schema from a JSON string.

        Args:
            json_str: JSON string with schema definition

        Returns:
            Schema: Constructed schema instance

        Raises:
            ValidationError: If the input data is invalid
            json.JSONDecodeError: If the JSON is malformed

        Example:
            >>> schema_json = '''
            ... {
            ...     "entities": ["company", "person"],
            ...     "classifications": [
            ...         {"task": "sentiment", "labels": ["positive", "negative"]}
            ...     ]
            ... }
            ... '''
            >>> schema = Schema.from_json(schema_json)
        """
        data = json.loads(json_str)
        return cls.from_dict(data)

    def to_dict(self) -> Dict[str, Any]:
        """Convert schema to user-friendly dictionary format.

        Returns:
            Dict: Schema in dictionary format compatible with from_dict()

        Example:
            >>> schema = Schema()
            >>> schema.entities(["company", "person"])
            >>> schema_dict = schema.to_dict()
            >>> # schema_dict can be used with Schema.from_dict()
        """
        if self._active_builder:
            self._active_builder._auto_finish()
            self._active_builder = None
        result = {}

        if self._entity_order:
            entity_configs = {}
            for name in self._entity_order:
                config = {}
                description = self.schema["entity_descriptions"].get(name)
                if description:
                    config["description"] = description
                metadata = self._entity_metadata.get(name, {})
                if metadata.get("dtype", "list") != "list":
                    config["dtype"] = metadata["dtype"]
                if metadata.get("threshold") is not None:
                    config["threshold"] = metadata["threshold"]
                entity_configs[name] = config
            result["entities"] = (
                {name: _compact_config(c) for name, c in entity_configs.items()}
                if any(entity_configs.values())
                else list(self._entity_order)
            )

        if self._entity_attribute_groups:
            result["entity_attributes"] = {}
            for group_name, group in self._entity_attribute_groups.items():
                group_def: Dict[str, Any] = {"labels": list(group.labels)}
                if group.multi_label:
                    group_def["multi_label"] = True
                if group.threshold != 0.5:
                    group_def["threshold"] = group.threshold
                if group.applies_to is not None:
                    group_def["applies_to"] = list(group.applies_to)
                if group.qualify_labels:
                    group_def["qualify_labels"] = True
                result["entity_attributes"][group_name] = group_def

        if self.schema["json_structures"]:
            result["structures"] = {}
            for struct_dict in self.schema["json_structures"]:
                for struct_name, struct_fields in struct_dict.items():
                    fields = []
                    field_order = self._field_orders.get(struct_name, [])

                    for field_name in field_order:
                        if field_name not in struct_fields:
                            continue

                        field_key = f"{struct_name}.{field_name}"
                        metadata = self._field_metadata.get(field_key, {})

                        field_def = {"name": field_name}

                        dtype = metadata.get("dtype", "list")
                        if dtype != "list":
                            field_def["dtype"] = dtype

                        choices = metadata.get("choices")
                        if choices:
                            field_def["choices"] = choices

                        desc = (
                            self.schema.get("json_descriptions", {})
                            .get(struct_name, {})
                            .get(field_name)
                        )
                        if desc:
                            field_def["description"] = desc

                        if metadata.get("threshold") is not None:
                            field_def["threshold"] = metadata["threshold"]

                        rec_fields = self._record_metadata.get(struct_name, {}).get("fields", {})
                        fmeta = rec_fields.get(field_name, {})
                        if fmeta.get("cardinality") is not None:
                            field_def["cardinality"] = fmeta["cardinality"]
                        if fmeta.get("exclusive"):
                            field_def["exclusive"] = True

                        fields.append(field_def)

                    struct_out: Dict[str, Any] = {"fields": fields}
                    rec_meta = self._record_metadata.get(struct_name)
                    if rec_meta:
                        struct_out["mode"] = rec_meta["mode"]
                        if rec_meta.get("anchor") is not None:
                            struct_out["anchor"] = rec_meta["anchor"]
                        if rec_meta.get("occurrence_policy") is not None:
                            struct_out["occurrence_policy"] = rec_meta["occurrence_policy"]
                    result["structures"][struct_name] = struct_out

        if self.schema["classifications"]:
            result["classifications"] = []
            for cls_config in self.schema["classifications"]:
                label_descs = cls_config.get("label_descriptions")
                cls_def = {
                    "task": cls_config["task"],
                    "labels": dict(label_descs) if label_descs else list(cls_config["labels"]),
                }
                if cls_config.get("multi_label", False):
                    cls_def["multi_label"] = True
                if cls_config.get("cls_threshold", 0.5) != 0.5:
                    cls_def["cls_threshold"] = cls_config["cls_threshold"]
                for key in ("top_k", "class_act", "prompt"):
                    if cls_config.get(key) is not None:
                        cls_def[key] = cls_config[key]
                if cls_config.get("examples"):
                    cls_def["examples"] = [list(pair) for pair in cls_config["examples"]]
                result["classifications"].append(cls_def)

        if self.schema["relations"]:
            relation_order = (
                self._relation_order
                if self._relation_order
                else [list(rel_dict.keys())[0] for rel_dict in self.schema["relations"]]
            )
            relation_configs = {}
            for name in relation_order:
                config = {}
                description = self.schema["relation_descriptions"].get(name)
                if description:
                    config["description"] = description
                rel_threshold = self._relation_metadata.get(name, {}).get("threshold")
                if rel_threshold is not None:
                    config["threshold"] = rel_threshold
                relation_configs[name] = config
            result["relations"] = (
                relation_configs if any(relation_configs.values()) else relation_order
            )

        return result
