"""Public boundary extractor class = shared runtime + boundary model core."""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

import torch

from gliner2.inference.candidate_decoder import (
    finalize_spans,
    token_boundaries_to_character_offsets,
)
from gliner2.inference.overlap import resolve_overlaps
from gliner2.inference.runtime import ExtractorRuntimeMixin
from gliner2.models.boundary.model import (
    BoundaryExtractorModel,
    _group_scored_candidates,
)
from gliner2.models.base import QueryLayout
from gliner2.models.boundary.records import (
    PackedRecordDecodeOutput,
    decode_group,
    packed_record_group_to_ragged,
)
from gliner2.models.outputs import CandidateTensorBatch
from gliner2.processing.boundary_preprocessing import pack_record_routes


logger = logging.getLogger(__name__)


def _copy_tensors_to_cpu(tensors):
    """Copy tensors to CPU with one CUDA synchronization."""
    if not tensors:
        return []
    device = tensors[0].device
    if device.type != "cuda":
        return [tensor.detach().cpu() for tensor in tensors]
    copied = []
    for tensor in tensors:
        target = torch.empty_like(tensor, device="cpu", pin_memory=True)
        target.copy_(tensor.detach(), non_blocking=True)
        copied.append(target)
    torch.cuda.current_stream(device).synchronize()
    return copied


def _copy_record_decode_inputs_to_cpu(
    dense,
    candidates: CandidateTensorBatch,
    threshold: float,
    temperature: float,
) -> Tuple[PackedRecordDecodeOutput, CandidateTensorBatch]:
    selected = dense.instance_mask & (
        torch.sigmoid(dense.object_logits / temperature) >= threshold
    )
    sample_indices, group_indices, instance_indices = selected.nonzero(
        as_tuple=True
    )
    copied = _copy_tensors_to_cpu(
        [
            sample_indices,
            group_indices,
            instance_indices,
            dense.object_logits[sample_indices, group_indices, instance_indices],
            dense.assign_logits[sample_indices, group_indices, instance_indices],
            dense.field_membership,
            dense.pool_spans,
            candidates.pair_logits,
            candidates.valid_mask,
        ]
    )
    (
        sample_indices,
        group_indices,
        instance_indices,
        object_logits,
        assign_logits,
        field_membership,
        pool_spans,
        pair_logits,
        valid_mask,
    ) = copied
    packed = PackedRecordDecodeOutput(
        sample_indices=sample_indices,
        group_indices=group_indices,
        instance_indices=instance_indices,
        object_logits=object_logits,
        assign_logits=assign_logits,
        field_membership=field_membership,
        pool_spans=pool_spans,
    )
    indices = pool_spans[:, None].expand(-1, pair_logits.shape[1], -1, -1)
    candidates_cpu = CandidateTensorBatch(
        indices=indices,
        proposal_logits=None,
        pair_logits=pair_logits,
        valid_mask=valid_mask,
        query_mask=valid_mask.any(-1),
        candidate_states=None,
    )
    return packed, candidates_cpu


def _resolve_flat_spans(
    scored: List[Tuple[float, int, int]]
) -> List[Tuple[float, int, int]]:
    """Maximum-total-score non-overlapping subset via interval scheduling."""
    return _resolve_spans(scored, "flat")


def _resolve_spans(
    scored: List[Tuple[float, int, int]], policy: str
) -> List[Tuple[float, int, int]]:
    return resolve_overlaps(
        scored,
        policy,
        score=lambda item: item[0],
        start=lambda item: item[1],
        end=lambda item: item[2],
    )


class BoundaryExtractor(ExtractorRuntimeMixin, BoundaryExtractorModel):
    """Boundary architecture with the shared public extraction runtime.

    Overrides ``_extract_from_batch`` with the sparse candidate path: encode →
    boundary head → threshold + flat-span resolution → exact half-open
    token→character conversion. Entities, classification, and enabled
    record/event schemas and enabled sparse relation decoding are supported.
    """

    architecture = "boundary"

    def _extract_from_batch(
        self,
        batch,
        threshold: float,
        metadata_list: List[Dict],
        include_confidence: bool,
        include_spans: bool,
        hidden_states: Optional[List[torch.Tensor]] = None,
    ) -> List[Dict[str, Any]]:
        core = self._encode_core(batch, hidden_states=hidden_states)
        has_queries = core["query_states"].shape[1] > 0
        candidates = None
        probs = None
        grouped_candidates = None
        null_probs = None
        packed_record_output = None
        record_candidates = None
        if has_queries:
            record_specs = getattr(batch, "record_specs", ())
            record_names_by_sample = [
                {spec.task_name for spec in specs.values()}
                for specs in record_specs
            ]
            needs_grouped_candidates = any(
                spec["task_type"] == "entities"
                or (
                    spec["task_type"] == "json_structures"
                    and spec["task_name"]
                    not in (
                        record_names_by_sample[sample_index]
                        if sample_index < len(record_names_by_sample)
                        else set()
                    )
                )
                for sample_index, specs in enumerate(core["ext_specs"])
                for spec in specs
            )
            needs_null_probs = any(
                spec["task_type"] == "entities"
                for specs in core["ext_specs"]
                for spec in specs
            )
            query_thresholds = self._query_thresholds(
                core["ext_specs"], metadata_list, threshold,
                core["query_states"].device,
            )
            out = self.boundary_head(
                core["text_states"], core["text_mask"],
                core["query_states"], core["query_mask"],
                return_candidates=True,
            )
            candidates = out.candidates
            record_candidates = candidates
            if needs_grouped_candidates:
                probs = torch.sigmoid(
                    candidates.pair_logits
                    / self.boundary_settings.pair_temperature
                )
                grouped_candidates = _group_scored_candidates(
                    candidates,
                    threshold=query_thresholds,
                    probabilities=probs,
                    count_log_rates=out.count_log_rates,
                    adaptive_threshold=self.boundary_settings.adaptive_threshold,
                )
            if needs_null_probs and out.null_logits is not None:
                null_probs = torch.sigmoid(out.null_logits).float().cpu()

            routing = pack_record_routes(record_specs)
            if (
                getattr(self, "enable_records", False)
                and self.boundary_settings.candidate_pool == "shared"
                and candidates.candidate_states is not None
                and routing is not None
            ):
                dense = self.record_decoder.forward_groups_dense(
                    core["query_states"], candidates, routing
                )
                packed_record_output, record_candidates = (
                    _copy_record_decode_inputs_to_cpu(
                        dense,
                        candidates,
                        float(threshold),
                        self.boundary_settings.record_temperature,
                    )
                )

        classification_records = [[] for _ in range(len(batch))]
        classification_values = []
        classification_offset = 0
        for sample_index, specs in enumerate(core["cls_specs"]):
            schema = batch.original_schemas[sample_index]
            for cls in specs:
                computed = self._compute_classification_probabilities(
                    schema,
                    cls["group_embs"],
                    cls["schema_tokens"],
                    temperature=self.boundary_settings.classification_temperature,
                )
                if computed is None:
                    continue
                task_name, config, probabilities = computed
                count = probabilities.numel()
                classification_records[sample_index].append(
                    (task_name, config, classification_offset, count)
                )
                classification_values.append(probabilities.reshape(-1))
                classification_offset += count
        classification_cpu = (
            torch.cat(classification_values).cpu()
            if classification_values
            else torch.empty(0)
        )

        def decode_sample(i: int) -> Dict[str, Any]:
            sample: Dict[str, Any] = {}
            overlap_policy = self._resolved_overlap_policy(
                metadata_list[i].get("_overlap_policy")
            )
            specs = core["ext_specs"][i] if has_queries else []
            offset = core["word_offsets"][i]
            start_map = batch.start_mappings[i]
            end_map = batch.end_mappings[i]
            text = batch.original_texts[i]
            text_len = len(start_map)

            record_results = self._decode_records(
                batch, i, core, record_candidates, offset, start_map, end_map,
                text, text_len, include_confidence, include_spans,
                threshold=threshold,
                metadata=metadata_list[i],
                overlap_policy=overlap_policy,
                packed_record_output=packed_record_output,
            )
            for name, instances in record_results.items():
                if instances:
                    sample[name] = instances
            record_specs = getattr(batch, "record_specs", ())
            record_names = {
                spec.task_name
                for spec in (
                    record_specs[i].values()
                    if i < len(record_specs)
                    else ()
                )
            }
            legacy_results = self._decode_legacy_structures(
                batch,
                i,
                core,
                specs,
                grouped_candidates[i] if grouped_candidates is not None else [],
                metadata_list[i],
                record_names,
                overlap_policy,
                offset,
                start_map,
                end_map,
                text,
                text_len,
                threshold,
                include_confidence,
                include_spans,
            )
            sample.update(legacy_results)

            relation_results = self._decode_relations(
                i, core, candidates, metadata_list[i], threshold, offset,
                start_map, end_map, text, text_len, include_confidence, include_spans,
            )
            sample.update(relation_results)

            entity_results = self._decode_entities(
                i,
                core,
                specs,
                grouped_candidates[i] if grouped_candidates is not None else [],
                metadata_list[i],
                null_probs[i] if null_probs is not None else None,
                overlap_policy,
                offset,
                start_map,
                end_map,
                text,
                text_len,
                include_confidence,
                include_spans,
            )

            if entity_results:
                sample["entities"] = [entity_results]

            for task_name, config, start, count in classification_records[i]:
                self._decode_classification_probabilities(
                    sample,
                    task_name,
                    config,
                    classification_cpu[start : start + count],
                )

            return sample

        results: List[Dict[str, Any]] = []
        for i in range(len(batch)):
            try:
                results.append(decode_sample(i))
            except Exception:
                logger.exception("extraction failed for sample %d", i)
                if getattr(self, "strict_extraction", True):
                    raise
                results.append({})

        return results

    @staticmethod
    def _query_thresholds(
        specs_by_sample: List[List[Dict[str, Any]]],
        metadata_list: List[Dict[str, Any]],
        default: float,
        device: torch.device,
    ) -> torch.Tensor:
        """Build per-query extraction thresholds from schema metadata."""
        max_queries = max((len(specs) for specs in specs_by_sample), default=0)
        values = torch.full(
            (len(specs_by_sample), max_queries),
            float(default),
            dtype=torch.float32,
            device=device,
        )
        for sample_index, specs in enumerate(specs_by_sample):
            metadata = metadata_list[sample_index]
            for query_id, spec in enumerate(specs):
                configured = None
                if spec["task_type"] == "entities":
                    configured = metadata.get("entity_metadata", {}).get(
                        spec["field_name"], {}
                    ).get("threshold")
                elif spec["task_type"] == "json_structures":
                    configured = metadata.get("field_metadata", {}).get(
                        f'{spec["task_name"]}.{spec["field_name"]}', {}
                    ).get("threshold")
                if configured is not None:
                    values[sample_index, query_id] = float(configured)
        return values

    def _decode_entities(
        self,
        sample_index: int,
        core: Dict[str, Any],
        specs: List[Dict[str, Any]],
        grouped_candidates: List[List[Tuple[float, int, int]]],
        metadata: Dict[str, Any],
        null_probabilities: Optional[torch.Tensor],
        overlap_policy: str,
        offset: int,
        start_map,
        end_map,
        text: str,
        text_len: int,
        include_confidence: bool,
        include_spans: bool,
    ) -> "OrderedDict[str, Any]":
        """Decode content entities while honoring schema-level metadata."""
        attribute_labels = metadata.get("entity_attribute_labels", set())
        by_name = {
            spec["field_name"]: (query_id, spec)
            for query_id, spec in enumerate(specs)
            if (
                spec["task_type"] == "entities"
                and spec["field_name"] not in attribute_labels
            )
        }
        declared_order = list(metadata.get("entity_order", ()))
        names = [
            *[name for name in declared_order if name in by_name],
            *[name for name in by_name if name not in declared_order],
        ]
        decoded: "OrderedDict[str, List[Dict[str, Any]]]" = OrderedDict()
        dtypes: Dict[str, str] = {}
        token_coordinates: Dict[int, Tuple[int, int]] = {}
        for name in names:
            query_id, _ = by_name[name]
            entity_metadata = metadata.get("entity_metadata", {}).get(name, {})
            dtype = entity_metadata.get("dtype", "list")
            dtypes[name] = dtype
            abstained = (
                null_probabilities is not None
                and float(null_probabilities[query_id])
                > self.boundary_settings.abstention_threshold
            )
            scored = (
                []
                if abstained or query_id >= len(grouped_candidates)
                else grouped_candidates[query_id]
            )
            validators = entity_metadata.get("validators", ())
            items: List[Dict[str, Any]] = []
            for probability, start, end in _resolve_spans(
                scored, overlap_policy
            ):
                token_start, token_end = start - offset, end - offset
                if not (
                    0 <= token_start < token_end <= text_len
                ):
                    continue
                char_start, char_end = token_boundaries_to_character_offsets(
                    token_start, token_end, start_map, end_map
                )
                surface = text[char_start:char_end].strip()
                if not surface or (
                    validators
                    and not all(validator.validate(surface) for validator in validators)
                ):
                    continue
                item = {
                    "text": surface,
                    "confidence": probability,
                    "start": char_start,
                    "end": char_end,
                }
                items.append(item)
                token_coordinates[id(item)] = (start, end)
            decoded[name] = items

        self._attach_entity_attributes(
            sample_index,
            core,
            specs,
            metadata,
            decoded,
            token_coordinates,
        )

        has_attributes = bool(metadata.get("entity_attribute_groups"))
        results: "OrderedDict[str, Any]" = OrderedDict()
        for name, items in decoded.items():
            dtype = dtypes[name]
            if dtype == "list":
                results[name] = (
                    [
                        self._format_attributed_entity(
                            item, include_confidence, include_spans
                        )
                        for item in items
                    ]
                    if has_attributes
                    else self._format_spans(
                        [
                            (
                                item["text"],
                                item["confidence"],
                                item["start"],
                                item["end"],
                            )
                            for item in items
                        ],
                        include_confidence,
                        include_spans,
                        already_finalized=True,
                    )
                )
            elif not items:
                results[name] = (
                    None if include_spans or include_confidence else ""
                )
            elif has_attributes:
                results[name] = self._format_attributed_entity(
                    items[0], include_confidence, include_spans
                )
            else:
                item = items[0]
                surface = item["text"]
                probability = item["confidence"]
                char_start = item["start"]
                char_end = item["end"]
                if include_spans and include_confidence:
                    results[name] = {
                        "text": surface,
                        "confidence": probability,
                        "start": char_start,
                        "end": char_end,
                    }
                elif include_spans:
                    results[name] = {
                        "text": surface,
                        "start": char_start,
                        "end": char_end,
                    }
                elif include_confidence:
                    results[name] = {
                        "text": surface, "confidence": probability
                    }
                else:
                    results[name] = surface
        return results

    def _attach_entity_attributes(
        self,
        sample_index: int,
        core: Dict[str, Any],
        specs: List[Dict[str, Any]],
        metadata: Dict[str, Any],
        decoded: "OrderedDict[str, List[Dict[str, Any]]]",
        token_coordinates: Dict[int, Tuple[int, int]],
    ) -> None:
        """Force-score configured attribute labels at retained entity spans."""
        groups = metadata.get("entity_attribute_groups", {})
        if not groups:
            return
        prompt_labels = metadata.get("entity_attribute_prompt_labels", {})
        query_by_name = {
            spec["field_name"]: query_id
            for query_id, spec in enumerate(specs)
            if spec["task_type"] == "entities"
        }
        attribute_rows: List[Tuple[str, int]] = []
        for group in groups.values():
            for label in group.labels:
                prompt = prompt_labels.get(label, label)
                query_id = query_by_name.get(prompt)
                if query_id is not None:
                    attribute_rows.append((label, query_id))
        # Labels are unique across groups by Schema.entity_attributes validation.
        attribute_rows = list(dict.fromkeys(attribute_rows))
        if not attribute_rows:
            return

        unique_pairs = list(dict.fromkeys(
            token_coordinates[id(item)]
            for items in decoded.values()
            for item in items
        ))
        if not unique_pairs:
            return
        device = core["query_states"].device
        query_ids = torch.tensor(
            [query_id for _, query_id in attribute_rows],
            dtype=torch.long,
            device=device,
        )
        pair_tensor = torch.tensor(
            unique_pairs, dtype=torch.long, device=device
        )
        indices = pair_tensor.view(1, 1, len(unique_pairs), 2).expand(
            1, len(attribute_rows), len(unique_pairs), 2
        )
        query_states = core["query_states"][
            sample_index:sample_index + 1
        ].index_select(1, query_ids)
        query_mask = core["query_mask"][
            sample_index:sample_index + 1
        ].index_select(1, query_ids)
        logits = self.boundary_head.score_explicit_spans(
            core["text_states"][sample_index:sample_index + 1],
            core["text_mask"][sample_index:sample_index + 1],
            query_states,
            query_mask,
            indices,
        )[0]
        logits = (
            logits / self.boundary_settings.pair_temperature
        ).float().cpu()
        row_by_label = {
            label: row for row, (label, _) in enumerate(attribute_rows)
        }
        pair_index = {pair: index for index, pair in enumerate(unique_pairs)}

        for entity_name, items in decoded.items():
            for item in items:
                column = pair_index[token_coordinates[id(item)]]
                for group_name, group in groups.items():
                    if (
                        group.applies_to is not None
                        and entity_name not in group.applies_to
                    ):
                        continue
                    present = [
                        (label, row_by_label[label])
                        for label in group.labels
                        if label in row_by_label
                    ]
                    if not present:
                        continue
                    labels, rows = zip(*present)
                    values = logits[
                        torch.tensor(rows, dtype=torch.long, device=device),
                        column,
                    ]
                    if group.multi_label:
                        probabilities = torch.sigmoid(values)
                        item[group_name] = [
                            {
                                "label": label,
                                "confidence": float(probabilities[index]),
                            }
                            for index, label in enumerate(labels)
                            if float(probabilities[index]) >= group.threshold
                        ]
                    else:
                        probabilities = torch.softmax(values, dim=-1)
                        best = int(probabilities.argmax())
                        item[group_name] = {
                            "label": labels[best],
                            "confidence": float(probabilities[best]),
                        }

    def _decode_legacy_structures(
        self,
        batch,
        sample_index: int,
        core: Dict[str, Any],
        specs: List[Dict[str, Any]],
        grouped_candidates: List[List[Tuple[float, int, int]]],
        metadata: Dict[str, Any],
        skip_names: set,
        overlap_policy: str,
        offset: int,
        start_map,
        end_map,
        text: str,
        text_len: int,
        threshold: float,
        include_confidence: bool,
        include_spans: bool,
    ) -> Dict[str, List[Dict[str, Any]]]:
        """Decode non-record JSON structures from sparse boundary candidates.

        Boundary checkpoints do not have the span architecture's count-slot
        axis, so legacy structures are emitted as one instance containing all
        list-valued fields and the best scalar value for each scalar field.
        Record-mode schemas continue to use the identity-preserving record head.
        """
        grouped_specs: "OrderedDict[str, Dict[str, Tuple[int, Dict[str, Any]]]]" = (
            OrderedDict()
        )
        for query_id, spec in enumerate(specs):
            if spec["task_type"] != "json_structures":
                continue
            grouped_specs.setdefault(spec["task_name"], OrderedDict())[
                spec["field_name"]
            ] = (query_id, spec)

        results: Dict[str, List[Dict[str, Any]]] = {}
        for structure_name, fields_by_name in grouped_specs.items():
            if structure_name in skip_names:
                continue
            ordered_fields = metadata.get("field_orders", {}).get(
                structure_name, list(fields_by_name)
            )
            instance: "OrderedDict[str, Any]" = OrderedDict()
            for field_name in ordered_fields:
                if field_name not in fields_by_name:
                    continue
                query_id, _ = fields_by_name[field_name]
                field_key = f"{structure_name}.{field_name}"
                field_metadata = metadata.get("field_metadata", {}).get(
                    field_key, {}
                )
                dtype = field_metadata.get("dtype", "list")
                choices = field_metadata.get("choices")
                if choices:
                    instance[field_name] = self._decode_choice_field(
                        batch,
                        sample_index,
                        core,
                        query_id,
                        choices,
                        dtype,
                        field_metadata.get("threshold"),
                        threshold,
                        offset,
                        include_confidence,
                    )
                    continue

                scored = (
                    grouped_candidates[query_id]
                    if query_id < len(grouped_candidates)
                    else []
                )
                validators = field_metadata.get("validators", ())
                spans: List[Tuple[str, float, int, int]] = []
                for probability, start, end in _resolve_spans(
                    scored, overlap_policy
                ):
                    token_start, token_end = start - offset, end - offset
                    if not (0 <= token_start < token_end <= text_len):
                        continue
                    char_start, char_end = token_boundaries_to_character_offsets(
                        token_start, token_end, start_map, end_map
                    )
                    surface = text[char_start:char_end].strip()
                    if not surface or (
                        validators
                        and not all(
                            validator.validate(surface)
                            for validator in validators
                        )
                    ):
                        continue
                    spans.append(
                        (surface, probability, char_start, char_end)
                    )
                instance[field_name] = self._format_structure_field(
                    spans,
                    dtype == "str",
                    include_confidence,
                    include_spans,
                )
            if any(value is not None and value != [] for value in instance.values()):
                results[structure_name] = [instance]
        return results

    @staticmethod
    def _record_local_choice_mentions(
        text: str,
        choices,
        anchor_char_spans: List[Optional[Tuple[int, int]]],
    ) -> Tuple[bool, Dict[int, List[Tuple[str, int, int]]]]:
        """Assign literal enum mentions to source-ordered record anchors.

        A choice occurring between two anchors normally belongs to the
        preceding record (for example ``Amazon ... (books). Amazon ...``).
        Mentions before the first anchor bind to that first record. This is more
        reliable than nearest-distance assignment for records whose fields
        follow a short anchor across one or more clauses.
        """
        mentions: List[Tuple[str, int, int]] = []
        for choice in choices:
            mentions.extend(
                (choice, match.start(), match.end())
                for match in re.finditer(
                    rf"(?<!\w){re.escape(choice)}(?!\w)",
                    text,
                    flags=re.IGNORECASE,
                )
            )
        if not mentions:
            return False, {}

        valid_anchors = [
            (index, anchor)
            for index, anchor in enumerate(anchor_char_spans)
            if anchor is not None
        ]
        if not valid_anchors:
            return True, {}
        valid_anchors.sort(key=lambda item: (item[1][0], item[0]))

        assigned: Dict[int, List[Tuple[str, int, int]]] = {}
        for mention in sorted(mentions, key=lambda item: item[1]):
            preceding = [
                item
                for item in valid_anchors
                if item[1][0] <= mention[1]
            ]
            owner = (
                max(preceding, key=lambda item: (item[1][0], item[0]))
                if preceding
                else valid_anchors[0]
            )[0]
            assigned.setdefault(owner, []).append(mention)

        # Choice-list values are semantic sets. Keep one source occurrence per
        # value and record while preserving source order.
        for owner, owned_mentions in assigned.items():
            unique = {}
            for mention in owned_mentions:
                unique.setdefault(mention[0], mention)
            assigned[owner] = sorted(
                unique.values(),
                key=lambda item: item[1],
            )
        return True, assigned

    def _decode_choice_field(
        self,
        batch,
        sample_index: int,
        core: Dict[str, Any],
        query_id: int,
        choices,
        dtype: str,
        configured_threshold: Optional[float],
        default_threshold: float,
        prefix_length: int,
        include_confidence: bool,
        preferred_choices: Optional[List[Tuple[str, int, int]]] = None,
        include_spans: bool = False,
    ):
        """Score enum values at their schema-prefix positions."""
        prefix_tokens = batch.text_tokens[sample_index][:prefix_length]
        present: List[Tuple[str, int]] = []
        seen = set()
        for choice in choices:
            if choice in seen:
                continue
            seen.add(choice)
            index = self._find_choice_idx(choice, prefix_tokens)
            if index >= 0:
                present.append((choice, index))
        if not present:
            return [] if dtype == "list" else None

        device = core["query_states"].device
        choice_pairs = torch.tensor(
            [(index, index + 1) for _, index in present],
            dtype=torch.long,
            device=device,
        )
        indices = choice_pairs.view(1, 1, len(present), 2)
        logits = self.boundary_head.score_explicit_spans(
            core["text_states"][sample_index:sample_index + 1],
            core["text_mask"][sample_index:sample_index + 1],
            core["query_states"][
                sample_index:sample_index + 1, query_id:query_id + 1
            ],
            core["query_mask"][
                sample_index:sample_index + 1, query_id:query_id + 1
            ],
            indices,
        )[0, 0]
        probabilities = torch.sigmoid(
            logits / self.boundary_settings.pair_temperature
        ).float().cpu()
        if preferred_choices:
            probability_by_choice = {
                choice: float(probabilities[index])
                for index, (choice, _) in enumerate(present)
            }
            preferred_choices = [
                item
                for item in preferred_choices
                if item[0] in probability_by_choice
            ]

            def format_preferred(item):
                choice, char_start, char_end = item
                probability = probability_by_choice.get(choice, 0.0)
                if include_confidence or include_spans:
                    value = {"text": choice}
                    if include_confidence:
                        value["confidence"] = probability
                    if include_spans:
                        value["start"] = char_start
                        value["end"] = char_end
                    return value
                return choice

            if dtype == "list" and preferred_choices:
                return [
                    format_preferred(item)
                    for item in preferred_choices
                ]
            if preferred_choices:
                return format_preferred(preferred_choices[0])
        field_threshold = (
            float(configured_threshold)
            if configured_threshold is not None
            else float(default_threshold)
        )
        if dtype == "list":
            return [
                (
                    {"text": choice, "confidence": float(probabilities[index])}
                    if include_confidence
                    else choice
                )
                for index, (choice, _) in enumerate(present)
                if float(probabilities[index]) >= field_threshold
            ]
        best = int(probabilities.argmax())
        if float(probabilities[best]) < field_threshold:
            return None
        choice = present[best][0]
        return (
            {"text": choice, "confidence": float(probabilities[best])}
            if include_confidence
            else choice
        )

    def _format_structure_field(
        self,
        spans: List[Tuple[str, float, int, int]],
        is_scalar: bool,
        include_confidence: bool,
        include_spans: bool,
    ):
        if not is_scalar:
            return self._format_spans(
                spans,
                include_confidence,
                include_spans,
                already_finalized=True,
            )
        if not spans:
            return None
        surface, probability, char_start, char_end = spans[0]
        if include_spans and include_confidence:
            return {
                "text": surface,
                "confidence": probability,
                "start": char_start,
                "end": char_end,
            }
        if include_spans:
            return {
                "text": surface, "start": char_start, "end": char_end
            }
        if include_confidence:
            return {"text": surface, "confidence": probability}
        return surface

    def _decode_relations(
        self,
        sample_index: int,
        core: Dict[str, Any],
        candidates,
        metadata: Dict[str, Any],
        threshold: float,
        offset: int,
        start_map,
        end_map,
        text: str,
        text_len: int,
        include_confidence: bool,
        include_spans: bool,
    ) -> Dict[str, Any]:
        """Decode sparse relation pairs for one sample."""
        if not getattr(self, "enable_relations", False) or candidates is None:
            return {}
        rel_specs = core["rel_specs"][sample_index]
        if not rel_specs:
            return {}
        sample_candidates = self._single_sample_candidates(candidates, sample_index)
        pairs = self.relation_pair_generator.generate(
            sample_candidates,
            [QueryLayout(queries=())],
            [entry["spec"] for entry in rel_specs],
        )
        if not len(pairs):
            return {}
        query_states = torch.stack(
            [entry["query_state"] for entry in rel_specs]
        ).unsqueeze(0)
        logits = self.relation_scorer(
            core["text_states"][sample_index:sample_index + 1],
            query_states,
            sample_candidates,
            pairs,
        )
        probabilities = torch.sigmoid(
            logits / self.boundary_settings.relation_temperature
        )
        (
            probabilities,
            head_start,
            head_end,
            tail_start,
            tail_end,
            head_prob,
            tail_prob,
        ) = _copy_tensors_to_cpu(
            [
                probabilities,
                pairs.head_start,
                pairs.head_end,
                pairs.tail_start,
                pairs.tail_end,
                pairs.head_prob,
                pairs.tail_prob,
            ]
        )
        edges: Dict[str, List[Dict[str, Any]]] = {}
        relation_metadata = metadata.get("relation_metadata", {})
        relation_aliases = {
            f"{name}: {description}": name
            for name, description in metadata.get(
                "relation_descriptions",
                {},
            ).items()
        }
        for pair_index, probability in enumerate(probabilities):
            relation_type = relation_aliases.get(
                pairs.relation_types[pair_index],
                pairs.relation_types[pair_index],
            )
            relation_threshold = relation_metadata.get(relation_type, {}).get(
                "threshold", threshold
            )
            if relation_threshold is None:
                relation_threshold = threshold
            score = float(probability.detach())
            if score < relation_threshold:
                continue
            hs = int(head_start[pair_index]) - offset
            he = int(head_end[pair_index]) - offset
            ts = int(tail_start[pair_index]) - offset
            te = int(tail_end[pair_index]) - offset
            if not (0 <= hs < he <= text_len and 0 <= ts < te <= text_len):
                continue
            h0, h1 = token_boundaries_to_character_offsets(hs, he, start_map, end_map)
            t0, t1 = token_boundaries_to_character_offsets(ts, te, start_map, end_map)
            head, tail = text[h0:h1].strip(), text[t0:t1].strip()
            if not head or not tail:
                continue
            edges.setdefault(relation_type, []).append({
                "score": score,
                "head": (head, h0, h1, float(head_prob[pair_index])),
                "tail": (tail, t0, t1, float(tail_prob[pair_index])),
            })

        out: Dict[str, Any] = {}
        for relation_type, relation_edges in edges.items():
            relation_edges = self._deduplicate_relation_edges(relation_edges)
            for edge in relation_edges:
                score = edge["score"]
                head, h0, h1, head_score = edge["head"]
                tail, t0, t1, tail_score = edge["tail"]
                if include_spans:
                    value = {
                        "head": {"text": head, "start": h0, "end": h1},
                        "tail": {"text": tail, "start": t0, "end": t1},
                    }
                    if include_confidence:
                        value["head"]["confidence"] = head_score
                        value["tail"]["confidence"] = tail_score
                        value["confidence"] = score
                elif include_confidence:
                    value = {
                        "head": {"text": head, "confidence": head_score},
                        "tail": {"text": tail, "confidence": tail_score},
                        "confidence": score,
                    }
                else:
                    value = (head, tail)
                out.setdefault(relation_type, []).append(value)
        return out

    @staticmethod
    def _deduplicate_relation_edges(
        edges: List[Dict[str, Any]],
    ) -> List[Dict[str, Any]]:
        """Collapse overlap and repeated-mention relation cross-products.

        Relation proposals intentionally score a capped head×tail cross-product.
        Public decoding should nevertheless emit semantic edges, not every
        occurrence combination or contained partial mention.
        """
        if len(edges) < 2:
            return edges

        def canonical_mentions(side: str):
            mentions = {
                (edge[side][1], edge[side][2]): edge[side]
                for edge in edges
            }
            canonical = {}
            for coordinates, mention in mentions.items():
                start, end = coordinates
                containing = [
                    candidate
                    for candidate in mentions.values()
                    if candidate[1] <= start
                    and candidate[2] >= end
                ]
                canonical[coordinates] = max(
                    containing,
                    key=lambda candidate: (
                        candidate[2] - candidate[1],
                        -candidate[1],
                    ),
                )
            return canonical

        head_canonical = canonical_mentions("head")
        tail_canonical = canonical_mentions("tail")
        exact: Dict[Tuple[int, int, int, int], Dict[str, Any]] = {}
        for edge in edges:
            head = head_canonical[(edge["head"][1], edge["head"][2])]
            tail = tail_canonical[(edge["tail"][1], edge["tail"][2])]
            normalized = {**edge, "head": head, "tail": tail}
            key = (head[1], head[2], tail[1], tail[2])
            previous = exact.get(key)
            if previous is None or edge["score"] > previous["score"]:
                exact[key] = normalized

        def semantic_text(value: str) -> str:
            return " ".join(value.casefold().split())

        semantic: Dict[Tuple[str, str], Dict[str, Any]] = {}
        for edge in exact.values():
            key = (
                semantic_text(edge["head"][0]),
                semantic_text(edge["tail"][0]),
            )
            previous = semantic.get(key)
            if previous is None:
                semantic[key] = edge
                continue

            def rank(candidate):
                _, hs, he, _ = candidate["head"]
                _, ts, te, _ = candidate["tail"]
                distance = max(hs - te, ts - he, 0)
                return (distance, -candidate["score"], hs, ts)

            if rank(edge) < rank(previous):
                semantic[key] = edge

        # If one argument is a strict token-subset of another prediction with
        # the same opposite endpoint, retain the more complete mention.
        kept: List[Dict[str, Any]] = []
        values = list(semantic.values())
        for edge in values:
            head_tokens = set(semantic_text(edge["head"][0]).split())
            tail_tokens = set(semantic_text(edge["tail"][0]).split())
            dominated = False
            for other in values:
                if other is edge:
                    continue
                other_head = set(semantic_text(other["head"][0]).split())
                other_tail = set(semantic_text(other["tail"][0]).split())
                if (
                    head_tokens < other_head
                    and tail_tokens == other_tail
                ) or (
                    tail_tokens < other_tail
                    and head_tokens == other_head
                ):
                    dominated = True
                    break
            if not dominated:
                kept.append(edge)

        return sorted(
            kept,
            key=lambda edge: (
                edge["head"][1],
                edge["tail"][1],
                -edge["score"],
            ),
        )

    def _decode_records(
        self,
        batch,
        sample_index: int,
        core: Dict[str, Any],
        candidates,
        offset: int,
        start_map,
        end_map,
        text: str,
        text_len: int,
        include_confidence: bool,
        include_spans: bool,
        threshold: Optional[float] = None,
        metadata: Optional[Dict[str, Any]] = None,
        overlap_policy: Optional[str] = None,
        packed_record_output: Optional[PackedRecordDecodeOutput] = None,
    ) -> Dict[str, Any]:
        """Decode record/event groups into public structure output shapes."""
        if not getattr(self, "enable_records", False):
            return {}
        if candidates is None:
            return {}
        if packed_record_output is None and candidates.candidate_states is None:
            return {}
        record_specs = getattr(batch, "record_specs", ())
        if sample_index >= len(record_specs) or not record_specs[sample_index]:
            return {}

        settings = self.boundary_settings
        record_threshold = (
            float(threshold)
            if threshold is not None
            else settings.record_anchor_threshold
        )
        metadata = metadata or {}
        query_states_i = core["query_states"][sample_index]
        out: Dict[str, Any] = {}

        def _format_field(
            spans,
            fspec,
            structure_name,
            assignment_scores=None,
            record_index=None,
            record_anchors=None,
        ):
            field_metadata = metadata.get("field_metadata", {}).get(
                f"{structure_name}.{fspec.name}",
                {},
            )
            dtype = field_metadata.get("dtype")
            is_scalar = fspec.cardinality.is_scalar or dtype == "str"
            choices = field_metadata.get("choices")
            validators = field_metadata.get("validators", ())
            formatted: List[Tuple[str, float, int, int]] = []
            prefix_choice_by_token: Optional[Dict[int, str]] = None
            for span_index, (ts_raw, te_raw) in enumerate(spans):
                ts, te = ts_raw - offset, te_raw - offset
                if choices and te_raw <= offset:
                    # decode_group()/RecordHead already picked this record's
                    # own instance-conditioned candidate for the field, but
                    # for a `choices=` field that candidate is one of the
                    # literal enum tokens embedded once in the schema prefix
                    # (e.g. "positive" in "sentiment(positive|negative|
                    # neutral)"), not a document mention. Those tokens live
                    # before `offset`, so token_boundaries_to_character_offsets
                    # (which only maps *document*-range tokens to characters)
                    # can't resolve them -- falling through to the `ts < 0`
                    # check below would silently drop every choice answer.
                    # That forced every record to fall back to
                    # _decode_choice_field()'s document/field-level scoring
                    # (same query_id, no per-record signal), so every record
                    # in the document received the exact same choice value
                    # and confidence regardless of which one actually asked.
                    # Resolve the surface from the schema prefix tokens
                    # instead, so the record's own already-correct
                    # per-instance score and choice survive into `formatted`.
                    if prefix_choice_by_token is None:
                        prefix_tokens = batch.text_tokens[sample_index][:offset]
                        prefix_choice_by_token = {}
                        for choice in choices:
                            idx = self._find_choice_idx(choice, prefix_tokens)
                            if idx >= 0:
                                prefix_choice_by_token[idx] = choice
                    surface = prefix_choice_by_token.get(ts_raw, "")
                    if not surface:
                        continue
                    candidate_probability = self._candidate_span_probability(
                        candidates,
                        sample_index,
                        fspec.query_id,
                        ts_raw,
                        te_raw,
                    )
                    assignment_probability = (
                        assignment_scores[span_index]
                        if assignment_scores is not None
                        and span_index < len(assignment_scores)
                        else None
                    )
                    probability = (
                        min(candidate_probability, float(assignment_probability))
                        if assignment_probability is not None
                        else candidate_probability
                    )
                    configured_threshold = field_metadata.get("threshold")
                    if (
                        configured_threshold is None
                        or probability >= float(configured_threshold)
                    ) and (
                        not validators
                        or all(
                            validator.validate(surface)
                            for validator in validators
                        )
                    ):
                        anchor_span = (
                            record_anchors[record_index]
                            if record_anchors is not None
                            and record_index is not None
                            and record_index < len(record_anchors)
                            else None
                        )
                        if anchor_span is not None:
                            cs, ce = token_boundaries_to_character_offsets(
                                anchor_span[0] - offset,
                                anchor_span[1] - offset,
                                start_map,
                                end_map,
                            )
                        else:
                            cs, ce = 0, 0
                        formatted.append((surface, probability, cs, ce))
                    continue
                if ts < 0 or te > text_len or te <= ts:
                    continue
                cs, ce = token_boundaries_to_character_offsets(ts, te, start_map, end_map)
                surface = text[cs:ce].strip()
                candidate_probability = self._candidate_span_probability(
                    candidates,
                    sample_index,
                    fspec.query_id,
                    ts_raw,
                    te_raw,
                )
                assignment_probability = (
                    assignment_scores[span_index]
                    if assignment_scores is not None
                    and span_index < len(assignment_scores)
                    else None
                )
                probability = (
                    min(candidate_probability, float(assignment_probability))
                    if assignment_probability is not None
                    else candidate_probability
                )
                configured_threshold = field_metadata.get("threshold")
                if (
                    surface
                    and (
                        not fspec.allows_absent
                        or candidate_probability
                        >= record_threshold
                    )
                    and (
                        configured_threshold is None
                        or probability >= float(configured_threshold)
                    )
                    and (
                        not validators
                        or all(
                            validator.validate(surface)
                            for validator in validators
                        )
                    )
                ):
                    formatted.append((surface, probability, cs, ce))
            formatted = finalize_spans(
                formatted,
                dtype="str" if is_scalar else "list",
                overlap_policy=self._resolved_overlap_policy(overlap_policy),
            )
            if choices:
                anchor_char_spans = []
                for anchor_span in record_anchors or ():
                    if anchor_span is None:
                        anchor_char_spans.append(None)
                        continue
                    anchor_start = anchor_span[0] - offset
                    anchor_end = anchor_span[1] - offset
                    if not 0 <= anchor_start < anchor_end <= text_len:
                        anchor_char_spans.append(None)
                        continue
                    anchor_char_spans.append(
                        token_boundaries_to_character_offsets(
                            anchor_start,
                            anchor_end,
                            start_map,
                            end_map,
                        )
                    )
                has_literal_choices = False
                local_choices = {}
                if (
                    record_index is not None
                    and record_index < len(anchor_char_spans)
                    and anchor_char_spans[record_index] is not None
                ):
                    (
                        has_literal_choices,
                        local_choices,
                    ) = self._record_local_choice_mentions(
                        text,
                        choices,
                        anchor_char_spans,
                    )
                    preferred_choices = local_choices.get(record_index, [])
                    if is_scalar and preferred_choices:
                        anchor_start, anchor_end = anchor_char_spans[record_index]

                        def distance_from_anchor(mention):
                            _, mention_start, mention_end = mention
                            return max(
                                anchor_start - mention_end,
                                mention_start - anchor_end,
                                0,
                            )

                        preferred_choices = [min(
                            preferred_choices,
                            key=distance_from_anchor,
                        )]
                    if preferred_choices:
                        return self._decode_choice_field(
                            batch,
                            sample_index,
                            core,
                            fspec.query_id,
                            choices,
                            "str" if is_scalar else "list",
                            field_metadata.get("threshold"),
                            record_threshold,
                            offset,
                            include_confidence,
                            preferred_choices=preferred_choices,
                            include_spans=include_spans,
                        )
                    if has_literal_choices:
                        return None if is_scalar else []

                choice_lookup = {
                    choice.casefold(): choice
                    for choice in choices
                }
                matched_choices = [
                    (
                        choice_lookup[surface.casefold()],
                        probability,
                        char_start,
                        char_end,
                    )
                    for surface, probability, char_start, char_end in formatted
                    if surface.casefold() in choice_lookup
                ]
                if matched_choices:
                    return self._format_structure_field(
                        matched_choices,
                        is_scalar,
                        include_confidence,
                        include_spans,
                    )
                return self._decode_choice_field(
                    batch,
                    sample_index,
                    core,
                    fspec.query_id,
                    choices,
                    "str" if is_scalar else "list",
                    field_metadata.get("threshold"),
                    record_threshold,
                    offset,
                    include_confidence,
                    include_spans=include_spans,
                )
            return self._format_structure_field(
                formatted, is_scalar, include_confidence, include_spans
            )

        for group_index, (task_index, spec) in enumerate(
            record_specs[sample_index].items()
        ):
            if packed_record_output is not None:
                group = packed_record_group_to_ragged(
                    packed_record_output,
                    spec,
                    sample_index,
                    group_index,
                )
            else:
                group = self.record_decoder.forward_group(
                    spec, query_states_i, candidates, sample_index
                )
            decoded = decode_group(
                group,
                anchor_threshold=record_threshold,
                field_threshold=record_threshold,
                object_threshold=record_threshold,
                temperature=settings.record_temperature,
            )
            instances = []
            record_anchors = [record.anchor_span for record in decoded]
            for record_index, rec in enumerate(decoded):
                inst: "OrderedDict[str, Any]" = OrderedDict()
                # Emit every declared field in schema order (legacy shape):
                # scalar -> str/None, list -> list[str] (possibly empty).
                for fspec in spec.fields:
                    spans = rec.fields.get(fspec.query_id, [])
                    value = _format_field(
                        spans,
                        fspec,
                        spec.task_name,
                        rec.field_scores.get(fspec.query_id),
                        record_index,
                        record_anchors,
                    )
                    inst[fspec.name] = value
                if any(v is not None and v != [] for v in inst.values()):
                    if include_confidence:
                        inst["confidence"] = rec.score
                    instances.append(inst)
            if instances:
                out[spec.task_name] = instances
        return out

    def _candidate_span_probability(
        self,
        candidates,
        sample_index: int,
        query_id: int,
        start: int,
        end: int,
    ) -> float:
        """Return the calibrated score of an exact candidate span."""
        if candidates is None or query_id >= candidates.indices.shape[1]:
            return 0.0
        exact = (
            candidates.valid_mask[sample_index, query_id]
            & (candidates.indices[sample_index, query_id, :, 0] == start)
            & (candidates.indices[sample_index, query_id, :, 1] == end)
        )
        if not bool(exact.any()):
            return 0.0
        probabilities = torch.sigmoid(
            candidates.pair_logits[sample_index, query_id, exact]
            / self.boundary_settings.pair_temperature
        )
        return float(probabilities.max())


__all__ = ["BoundaryExtractor"]
