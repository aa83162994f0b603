from typing import Callable, Dict, List, Optional, Tuple

import metatensor.torch as mts
import torch
from metatensor.torch import Labels, TensorBlock, TensorMap
from metatomic.torch import NeighborListOptions, System

from ..data import DatasetInfo
from .atom_pair_helpers import get_pair_sample_labels
from .target_info import TargetInfo


# ===== General utilities


def get_per_atom_sample_labels(
    systems: List[System],
    system_ids: torch.Tensor,
) -> Labels:
    """
    Builds the atom sample labels for the input ``systems``, labelling each system's
    atoms with the corresponding entry of ``system_ids`` (rather than assuming the
    systems have a local batch index 0, ..., n_batch - 1), so the result can be matched
    directly against a target's own, native "system" sample values.

    :param systems: List of systems to build the per-atom sample labels for.
    :param system_ids: the "system" label value for each system, in the same order as
        ``systems``.
    :return: The per-atom sample labels.
    """
    system_indices = torch.concatenate(
        [
            torch.full(
                (len(system),),
                int(system_ids[i_system]),
                device=systems[0].device,
            )
            for i_system, system in enumerate(systems)
        ],
    )

    sample_values = torch.stack(
        [
            system_indices,
            torch.concatenate(
                [
                    torch.arange(
                        len(system),
                        device=systems[0].device,
                    )
                    for system in systems
                ],
            ),
        ],
        dim=1,
    )
    sample_labels = Labels(
        names=["system", "atom"],
        values=sample_values,
    )
    return sample_labels


# ===== Densification utilities (keys with atom types to samples)


def _densify_atomic_basis_target(
    tensor: TensorMap,
    layout: TensorMap,
    fill_value: float = torch.nan,
) -> TensorMap:
    """
    Densify a per-atom/atom-pair atomic basis target by moving the "atom_type"-like
    (i.e. either "atom_type" or "first_atom_type"/"second_atom_type") key dimension(s)
    to the samples, creating a padded property dimension according to the maximum
    property size for each irrep.

    :param tensor: the per-atom/atom-pair atomic basis target TensorMap to densify.
    :param layout: the layout TensorMap defining the global basis set.
    :param fill_value: the value to use for filling in the padded values when
        densifying.

    :return: the densified per-atom/atom-pair atomic basis target TensorMap.
    """

    # First ensure that the tensor has all keys present in the layout tensor (i.e. the
    # global basis set definition). If any blocks aren't present, they are added as
    # zero-sample blocks with the correct components and properties.
    blocks: list[TensorBlock] = []
    for key, layout_block in layout.items():
        if key in tensor.keys:
            existing_block = tensor.block(key)
            block = TensorBlock(
                values=existing_block.values,
                samples=existing_block.samples,
                components=existing_block.components,
                properties=existing_block.properties,
            )
        else:
            block = layout_block.copy(deep=False)
            assert len(block.samples) == 0
        blocks.append(block)

    tensor = TensorMap(layout.keys, blocks)

    # Now densification can be done.

    # First, identify the "atom_type"-like key dimensions.
    type_names: list[str] = []
    for name in tensor.keys.names:
        if name.endswith("atom_type"):
            type_names.append(name)

    # Now move the "atom_type"-like key dimension to the samples and remove them
    tensor = tensor.keys_to_samples(
        type_names, fill_value=fill_value, sort_samples=True
    )
    for name in type_names:
        tensor = mts.remove_dimension(tensor, "samples", name)

    return tensor


def densify_atomic_basis_target(
    tensor: TensorMap,
    layout: TensorMap,
    fill_value: float = torch.nan,
) -> TensorMap:
    """
    Densify the atomic basis target by moving any "atom_type"-like key dimensions to the
    samples, creating a padded property dimension according to the maximum property size
    for each irrep.

    :param tensor: the atomic basis target TensorMap to densify.
    :param layout: the layout TensorMap defining the global basis set (i.e. the union of
        all blocks that should be present in the output).
    :param fill_value: the value to use for filling in the padded values when
        densifying.

    :return: the densified atomic basis target TensorMap.
    """
    if "atom" in tensor.sample_names or "first_atom" in tensor.sample_names:
        return _densify_atomic_basis_target(tensor, layout, fill_value)

    raise NotImplementedError(
        "Currently only densification of per-atom/atom-pair atomic basis "
        "targets is implemented."
    )


def _pad_block(
    block: TensorBlock,
    axis: str,
    padded_labels: Labels,
    fill_value: float,
) -> TensorBlock:
    """
    Takes a TensorBlock and pads it along the specified axis with zeros, using the
    provided padded_labels to determine the metadata structure of the new block.

    Any of the samples/properties that are already present in the block will be filled
    with the original values, while the new samples/properties will be filled with
    ``fill_value``.

    :param block: The TensorBlock to pad.
    :param axis: Either ``"samples"`` or ``"properties"``, specifying which axis to pad.
    :param padded_labels: The target Labels defining the full (padded) extent of the
        chosen axis.
    :param fill_value: Value used to fill positions that have no corresponding entry in
        the original block.
    :return: A new TensorBlock padded to the requested shape along the chosen axis.
    """
    if axis == "samples":
        samples = padded_labels
        properties = block.properties

        block_values = torch.full(
            (len(samples), *[len(c) for c in block.components], len(properties)),
            fill_value=fill_value,
            dtype=block.values.dtype,
            device=block.values.device,
        )
        # Intersect first rather than assuming `block.samples` is a subset of
        # `samples`: for atom-pair targets, the real data may contain pairs
        # outside the model's own neighbor list (e.g. a different cutoff was
        # used when the target data was generated), in which case those extra
        # samples are simply dropped.
        intersection = samples.intersection(block.samples)
        idxs_padded = samples.select(intersection)
        idxs_original = block.samples.select(intersection)
        assert len(idxs_padded) == len(idxs_original)
        if len(idxs_original) > 0:
            block_values[idxs_padded] = block.values[idxs_original]

    else:
        assert axis == "properties"
        samples = block.samples
        properties = padded_labels

        block_values = torch.full(
            (len(samples), *[len(c) for c in block.components], len(properties)),
            fill_value=fill_value,
            dtype=block.values.dtype,
        )
        intersection = properties.intersection(block.properties)
        idxs_padded = properties.select(intersection)
        idxs_original = block.properties.select(intersection)
        assert len(idxs_padded) == len(idxs_original)
        if len(idxs_original) > 0:
            block_values[..., idxs_padded] = block.values[..., idxs_original]

    return TensorBlock(
        samples=samples,
        components=block.components,
        properties=properties,
        values=block_values,
    )


def _pad_samples_per_atom_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    system_ids: torch.Tensor,
) -> TensorMap:
    sample_labels = get_per_atom_sample_labels(systems, system_ids)
    new_blocks = []
    for block in tensor:
        new_vals = torch.full(
            (len(sample_labels), *block.values.shape[1:]),
            fill_value=torch.nan,
            dtype=block.values.dtype,
        )
        sample_mask = sample_labels.select(block.samples)
        new_vals[sample_mask] = block.values
        new_block = TensorBlock(
            values=new_vals,
            samples=sample_labels,
            components=block.components,
            properties=block.properties,
        )
        new_blocks.append(new_block)

    return TensorMap(tensor.keys, new_blocks)


def _pad_samples_per_atom_pair_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    system_ids: torch.Tensor,
    nl_options: NeighborListOptions,
) -> TensorMap:
    # Build the pair sample labels, keyed by the tensor's own native "system" ids
    sample_labels = get_per_atom_sample_labels(systems, system_ids)
    pair_sample_labels = get_pair_sample_labels(
        sample_labels,
        systems=systems,
        nl_options=nl_options,
    )

    # Pad the samples according to the neighbor-list pair samples
    new_blocks = []
    for block in tensor:
        new_blocks.append(_pad_block(block, "samples", pair_sample_labels, torch.nan))

    return TensorMap(tensor.keys, new_blocks)


def pad_samples_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    system_ids: torch.Tensor,
    nl_options: Optional[NeighborListOptions] = None,
) -> TensorMap:
    """
    Pad the samples of the atomic basis target to have the same number of samples for
    each block.

    :param systems: List of systems in the batch
    :param tensor: the atomic basis target TensorMap to pad.
    :param system_ids: the "system" label value for each system, in the same order as
        ``systems``, matching the tensor's own native "system" sample values.
    :param nl_options: Options for the neighbor list used to enumerate edges for
        per-atom-pair targets. Required if ``tensor`` is a per-atom-pair target.

    :return: the padded atomic basis target TensorMap
    """

    if "atom" in tensor.sample_names:
        return _pad_samples_per_atom_atomic_basis_target(systems, tensor, system_ids)
    elif "first_atom" in tensor.sample_names:
        if nl_options is None:
            raise ValueError(
                "`nl_options` must be provided to pad a per-atom-pair atomic "
                "basis target."
            )
        return _pad_samples_per_atom_pair_atomic_basis_target(
            systems, tensor, system_ids, nl_options
        )
    raise NotImplementedError(
        "Currently only padding of per-atom and per-atom-pair atomic basis targets "
        "is implemented."
    )


def prepare_atomic_basis_targets(
    systems: List[System],
    system_ids: torch.Tensor,
    tensor: TensorMap,
    layout: TensorMap,
    nl_options: Optional[NeighborListOptions] = None,
    fill_value: float = torch.nan,
) -> TensorMap:
    """
    Prepare the atomic basis targets for batching by densifying (moving "atom_type" key
    dimensions to the samples) and padding the samples.

    :param systems: List of systems in the batch.
    :param system_ids: Tensor containing the system ids for each sample in the input
        ``tensor``.
    :param tensor: the atomic basis target TensorMap to prepare.
    :param layout: the layout TensorMap defining the global basis set (i.e. the union of
        all blocks that should be present in the output).
    :param nl_options: Options for the neighbor list used to enumerate edges for
        per-atom-pair targets. Required if ``tensor`` is a per-atom-pair target.
    :param fill_value: the value to use for filling in the padded values when densifying
        and padding. Default is NaN, but can be set to 0 if desired (e.g. for
        classification targets).
    :return: the prepared atomic basis target TensorMap, densified and padded, keeping
        the tensor's own native "system" ids.
    """

    # Densify: "atom type" key dimensions -> samples
    tensor = densify_atomic_basis_target(tensor, layout, fill_value)

    # Pad samples, labelling them with the target's own native "system" ids
    tensor = pad_samples_atomic_basis_target(systems, tensor, system_ids, nl_options)

    return tensor


# ===== Sparsification utilities (atom types back to keys)


def _compute_sparse_properties(layout: TensorMap) -> TensorMap:
    """Compute the properties of the sparse tensor map that results from
    sparsifying a given dense tensor map.

    This can be computed once and for all for a given layout, and be reused to
    sparsify as many padded tensor maps as needed with the function
    :func:`sparsify_atomic_basis_target`.

    :param layout: the layout ``TensorMap`` defining the global basis set.
    :return: The ``TensorMap`` to be used to go from the dense to the sparse
      representation. The values of each block are the indices of the properties
      to select from a padded tensor map.
    """
    non_type_indices: list[int] = []
    for i, name in enumerate(layout.keys.names):
        if not name.endswith("atom_type"):
            non_type_indices.append(i)

    # Build union of properties across atom types for each non-type key — same
    # logic as _densify_atomic_basis_target.
    union_properties: dict[str, Labels] = {}
    for key, block in layout.items():
        k = str([key.values[i].item() for i in non_type_indices])
        if k not in union_properties:
            union_properties[k] = block.properties
        else:
            union_properties[k] = union_properties[k].union(block.properties)

    blocks: list[TensorBlock] = []
    for key, block in layout.items():
        padded_properties = union_properties[
            str([key.values[i].item() for i in non_type_indices])
        ]

        blocks.append(
            TensorBlock(
                values=padded_properties.select(block.properties).reshape(1, -1),
                samples=Labels(["_"], torch.zeros((1, 1), dtype=torch.int64)),
                components=[],
                properties=block.properties,
            )
        )

    return TensorMap(layout.keys, blocks)


def _sparsify_per_atom_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    sparse_properties: TensorMap,
    atom_types_batch: Optional[torch.Tensor] = None,
) -> TensorMap:
    """
    Sparsify the per-atom atomic basis target by creating blocks with an explicit
    "atom_type" dimension. The dense blocks of the input ``tensor`` are therefore sliced
    according to atom type of each atom in the samples.

    :param systems: List of systems in the batch.
    :param tensor: the atomic basis target TensorMap to sparsify.
    :param sparse_properties: A TensorMap containing the properties to select
        from the dense tensor map to create each block in the sparse layout.
    :param atom_types_batch: Optional tensor containing the atom types for each sample
        in the batch. If not provided, these are inferred from the systems.
    :return: the sparsified atomic basis target TensorMap
    """
    if atom_types_batch is None:
        # Get the atom types for each sample in the batch from the systems
        atom_types_batch = torch.cat(
            [system.types for system in systems],
            dim=0,
        )

    device = tensor.device

    # Sparsify by moving the "atom_type" from the samples to the keys
    unique_types: list[int] = (
        torch.unique(atom_types_batch).to(torch.int64).cpu().tolist()
    )
    atom_type_masks: Dict[int, torch.Tensor] = {}
    atom_type_samples: Dict[int, Labels] = {}

    # Compute the samples masks (i.e. get the indices for the atoms
    # of each type), and build the samples labels. This could be computed
    # in the dataloader since it only depends on the atom types of the systems.
    sample_indices = torch.arange(len(atom_types_batch)).to(device=device)
    for atom_type in unique_types:
        atom_type_masks[atom_type] = sample_indices[atom_types_batch == atom_type]
        atom_type_samples[atom_type] = Labels(
            names=["system", "atom"],
            values=tensor[0].samples.values[atom_type_masks[atom_type]],
        )

    sparse_properties = sparse_properties.to(device=device)

    # Build the sparsified tensormap by looping over the dense one
    # and splitting each block into one block per atom type.
    new_keys: list[list[int]] = []
    sparse_blocks: List[TensorBlock] = []
    for key, block in tensor.items():
        key_values: list[int] = key.values.to(torch.int64).tolist()
        for atom_type in unique_types:
            new_key = key_values + [atom_type]

            # Get the corresponding layout block to know which properties to select
            block_position = sparse_properties.keys.position(new_key)
            if block_position is None:
                # This irrep doesn't exist for this atom type in the layout
                continue
            assert block_position is not None  # for torchscript
            layout_block = sparse_properties.block_by_id(block_position)

            # Select samples
            values = block.values[atom_type_masks[atom_type]]
            # Select properties
            properties_mask = layout_block.values.ravel()
            # Do block.values[..., properties_mask] in a torchscriptable way.
            if block.values.ndim == 3:
                values = values[:, :, properties_mask]
            elif block.values.ndim == 4:
                values = values[:, :, :, properties_mask]
            else:
                raise ValueError(
                    "Tensorblocks with more than 2 component dimensions can't be "
                    "sparsified with the current implementation."
                )

            sparse_block = TensorBlock(
                values=values,
                samples=atom_type_samples[atom_type],
                components=block.components,
                properties=layout_block.properties,
            )

            new_keys.append(new_key)
            sparse_blocks.append(sparse_block)

    tensor = TensorMap(
        Labels(
            names=tensor.keys.names + ["atom_type"],
            values=torch.tensor(new_keys, device=device),
        ),
        sparse_blocks,
    )

    return tensor


def _sparsify_per_atom_pair_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    sparse_properties: TensorMap,
    atom_types_batch: Optional[torch.Tensor] = None,
) -> TensorMap:
    """
    Sparsify the per-atom-pair atomic basis target by creating blocks with explicit
    "first_atom_type" and "second_atom_type" dimensions.

    :param systems: List of systems in the batch.
    :param tensor: the atomic basis target TensorMap to sparsify.
    :param sparse_properties: A TensorMap containing the properties to select.
    :param atom_types_batch: Optional concatenated atom-type tensor for the batch.
    :return: the sparsified atomic basis target TensorMap
    """
    if atom_types_batch is None:
        # Get the atom types for each sample in the batch from the systems
        atom_types_batch = torch.cat(
            [system.types for system in systems],
            dim=0,
        )

    device = tensor.device
    atom_types_batch = atom_types_batch.to(device=device)

    unique_types: list[int] = (
        torch.unique(atom_types_batch).to(torch.int64).cpu().tolist()
    )

    sparse_properties = sparse_properties.to(device=device)

    # Pre-compute per-system atom offsets so we can look up types from
    # atom_types_batch with a single vectorized indexing step.
    n_systems = len(systems)
    system_lengths = torch.tensor(
        [len(s.types) for s in systems], dtype=torch.long, device=device
    )
    offsets = torch.zeros(n_systems, dtype=torch.long, device=device)
    if n_systems > 1:
        offsets[1:] = torch.cumsum(system_lengths[:-1], dim=0)

    new_keys: list[list[int]] = []
    sparse_blocks: List[TensorBlock] = []
    for key, block in tensor.items():
        key_values: list[int] = key.values.to(torch.int64).tolist()

        sample_vals = block.samples.values.long()

        # Get the true system indices
        _, sys_col = torch.unique_consecutive(sample_vals[:, 0], return_inverse=True)
        first_atom_col = sample_vals[:, 1]
        second_atom_col = sample_vals[:, 2]

        # Get the atomic types of the batch
        first_types = atom_types_batch[offsets[sys_col] + first_atom_col]
        second_types = atom_types_batch[offsets[sys_col] + second_atom_col]

        for first_atom_type in unique_types:
            for second_atom_type in unique_types:
                mask = (first_types == first_atom_type) & (
                    second_types == second_atom_type
                )
                new_key = key_values + [first_atom_type, second_atom_type]

                block_position = sparse_properties.keys.position(new_key)
                if block_position is None:
                    continue
                assert block_position is not None  # for torchscript
                layout_block = sparse_properties.block_by_id(block_position)

                # Select samples
                values = block.values[mask]
                # Select properties
                properties_mask = layout_block.values.ravel()
                # Do block.values[..., properties_mask] in a torchscriptable way.
                if block.values.ndim == 3:
                    values = values[:, :, properties_mask]
                elif block.values.ndim == 4:
                    values = values[:, :, :, properties_mask]
                else:
                    raise ValueError(
                        "Tensorblocks with more than 2 component dimensions can't be "
                        "sparsified with the current implementation."
                    )

                sparse_block = TensorBlock(
                    values=values,
                    samples=Labels(
                        names=[
                            "system",
                            "first_atom",
                            "second_atom",
                            "cell_shift_a",
                            "cell_shift_b",
                            "cell_shift_c",
                        ],
                        values=block.samples.values[mask],
                    ),
                    components=block.components,
                    properties=layout_block.properties,
                )

                new_keys.append(new_key)
                sparse_blocks.append(sparse_block)

    tensor = TensorMap(
        Labels(
            names=tensor.keys.names + ["first_atom_type", "second_atom_type"],
            values=torch.tensor(new_keys, device=device),
        ),
        sparse_blocks,
    )

    return tensor


def sparsify_atomic_basis_target(
    systems: List[System],
    tensor: TensorMap,
    layout: Optional[TensorMap] = None,
    atom_types_batch: Optional[torch.Tensor] = None,
    sparse_properties: Optional[TensorMap] = None,
) -> TensorMap:
    """
    Sparsify the atomic basis target by creating blocks with an explicit "atom_type"
    dimension. The dense blocks of the input ``tensor`` are therefore sliced according
    to atom type of each atom in the samples.

    :param systems: List of systems in the batch.
    :param tensor: the atomic basis target TensorMap to sparsify.
    :param layout: the layout TensorMap defining the global basis set (i.e. the union of
        all blocks that should be present in the sparsified output). Required if
        ``sparse_properties`` is not provided.
    :param atom_types_batch: Optional tensor containing the atom types for each sample
        in the batch. If not provided, these are inferred from the systems.
    :param sparse_properties: A TensorMap containing the properties to select from the
        dense tensor map to create each block in the sparse layout. If not provided, it
        is computed from ``layout``.

    :return: the sparsified atomic basis target TensorMap
    """
    if sparse_properties is None:
        if layout is None:
            raise ValueError("Either `layout` or `sparse_properties` must be provided.")
        sparse_properties = _compute_sparse_properties(layout)

    if "atom" in tensor.sample_names:
        return _sparsify_per_atom_atomic_basis_target(
            systems, tensor, sparse_properties, atom_types_batch
        )

    assert "first_atom" in tensor.sample_names
    return _sparsify_per_atom_pair_atomic_basis_target(
        systems, tensor, sparse_properties, atom_types_batch
    )


# ===== dataloader transforms


def get_prepare_atomic_basis_targets_transform(
    target_info_dict: dict[str, TargetInfo],
    extra_data_info_dict: dict[str, TargetInfo],
    nl_options: Optional[NeighborListOptions] = None,
) -> Tuple[Callable, Callable]:
    """
    Get a function that prepares the atomic basis targets for batching by densifying and
    padding.

    :param target_info_dict: Dictionary mapping target names to TargetInfo objects.
    :param extra_data_info_dict: Dictionary mapping extra data names to TargetInfo
        objects.
    :param nl_options: Options for the neighbor list used to enumerate edges for
        per-atom-pair targets. Required if any of the targets/extra data are
        per-atom-pair atomic basis targets.

    :return: A function that takes in systems, targets and extra data, and returns the
        systems, targets and extra data with prepared atomic basis targets.
    """

    def transform(
        systems: List[System],
        targets: Dict[str, TensorMap],
        extra: Dict[str, TensorMap],
    ) -> Tuple[List[System], Dict[str, TensorMap], Dict[str, TensorMap]]:
        """
        Transform function that prepares the atomic basis targets for batching by
        densifying and padding, modifying in-place. Samples keep the tensor's own
        native "system" ids throughout.

        :param systems: List of systems.
        :param targets: Dictionary containing the targets corresponding to the systems.
        :param extra: Dictionary containing any extra data.
        :return: The systems, targets and extra data with prepared atomic basis targets.
        """
        for name, tensor in targets.items():
            if name in target_info_dict and target_info_dict[name].is_atomic_basis:
                if "mtt::aux::system_index" not in extra:
                    raise ValueError(
                        "Atomic-basis targets require the "
                        "'mtt::aux::system_index' extra data, which is "
                        "currently only provided by datasets read from disk "
                        "(DiskDataset)."
                    )
                system_ids = (
                    extra["mtt::aux::system_index"][0]
                    .values[:, 0]
                    .to(dtype=torch.int64)
                )

                targets[name] = prepare_atomic_basis_targets(
                    systems,
                    system_ids,
                    tensor,
                    target_info_dict[name].layout,
                    nl_options,
                    fill_value=torch.nan,
                )

        for name, tensor in extra.items():
            if (
                name in extra_data_info_dict
                and extra_data_info_dict[name].is_atomic_basis
            ):
                if "mtt::aux::system_index" not in extra:
                    raise ValueError(
                        "Atomic-basis targets require the "
                        "'mtt::aux::system_index' extra data, which is "
                        "currently only provided by datasets read from disk "
                        "(DiskDataset)."
                    )
                system_ids = (
                    extra["mtt::aux::system_index"][0]
                    .values[:, 0]
                    .to(dtype=torch.int64)
                )

                extra[name] = prepare_atomic_basis_targets(
                    systems,
                    system_ids,
                    tensor,
                    extra_data_info_dict[name].layout,
                    nl_options,
                    fill_value=torch.nan,
                )

        return systems, targets, extra

    # Precompute property masks for all atomic basis targets and extra data.
    # This avoids calling layout_properties.select(block.properties) every
    # time we want to sparsify a batch.
    sparse_properties: dict[str, TensorMap] = {}
    for name, info in target_info_dict.items():
        if info.is_atomic_basis:
            sparse_properties[name] = _compute_sparse_properties(info.layout)
    for name, info in extra_data_info_dict.items():
        if info.is_atomic_basis:
            sparse_properties[name] = _compute_sparse_properties(info.layout)

    def reverse_transform(
        systems: List[System],
        targets: Dict[str, TensorMap],
        extra: Dict[str, TensorMap],
    ) -> Tuple[List[System], Dict[str, TensorMap], Dict[str, TensorMap]]:
        """
        Reverse transform function that unpads, undensifies and reindexes the atomic
        basis targets, modifying in-place.

        :param systems: List of systems.
        :param targets: Dictionary containing the targets corresponding to the systems.
        :param extra: Dictionary containing any extra data.
        :return: The systems, targets and extra data with unprepared atomic basis
            targets.
        """
        for name, tensor in targets.items():
            if name in target_info_dict and target_info_dict[name].is_atomic_basis:
                if name in sparse_properties:
                    sparse_properties[name] = sparse_properties[name].to(tensor.device)
                targets[name] = sparsify_atomic_basis_target(
                    systems,
                    tensor,
                    target_info_dict[name].layout,
                    sparse_properties=sparse_properties.get(name),
                )

        for name, tensor in extra.items():
            if (
                name in extra_data_info_dict
                and extra_data_info_dict[name].is_atomic_basis
            ):
                if name in sparse_properties:
                    sparse_properties[name] = sparse_properties[name].to(tensor.device)
                extra[name] = sparsify_atomic_basis_target(
                    systems,
                    tensor,
                    extra_data_info_dict[name].layout,
                    sparse_properties=sparse_properties.get(name),
                )

        return systems, targets, extra

    return transform, reverse_transform


# ===== DatasetInfo manipulation utilities


def densify_atomic_basis_dataset_info(dataset_info: DatasetInfo) -> DatasetInfo:
    """
    Densify the atomic basis target layouts in the TargetInfos of the input
    ``dataset_info`` by moving any

    :param dataset_info: the input DatasetInfo with TargetInfos containing atomic basis
        targets to densify.
    :return: a new DatasetInfo with the same information as the input, but with the
        atomic basis targets densified.
    """

    return DatasetInfo(
        length_unit=dataset_info.length_unit,
        atomic_types=dataset_info.atomic_types,
        targets={
            target_name: (
                TargetInfo(
                    quantity=target_info.quantity,
                    unit=target_info.unit,
                    layout=densify_atomic_basis_target(
                        target_info.layout, target_info.layout
                    ),
                    description=target_info.description,
                )
                if target_info.is_atomic_basis
                else target_info
            )
            for target_name, target_info in dataset_info.targets.items()
        },
    )
