"""Convenience functions to create NG data configurations."""

from collections.abc import Sequence
from typing import Any, Literal

from careamics.config.augmentations import (
    SPATIAL_TRANSFORMS_UNION,
    XYFlipConfig,
    XYRandomRotate90Config,
)
from careamics.config.data import DataConfig
from careamics.config.data.patch_filter import (
    MaxPatchFilterConfig,
    MeanStdPatchFilterConfig,
    ShannonPatchFilterConfig,
)
from careamics.config.utils.random import generate_random_seed

SupportedPatchFilterConfig = (
    MaxPatchFilterConfig | MeanStdPatchFilterConfig | ShannonPatchFilterConfig
)
"""Configuration for filtering background patches during training."""


def list_spatial_augmentations(
    augmentations: list[SPATIAL_TRANSFORMS_UNION] | None = None,
    seed: int | None = None,
) -> list[SPATIAL_TRANSFORMS_UNION]:
    """
    List the augmentations to apply.

    Parameters
    ----------
    augmentations : list of augmentations, optional
        List of augmentations to apply, either both or one of XYFlipConfig and
        XYRandomRotate90Config.
    seed : int, optional
        Random seed for reproducibility.

    Returns
    -------
    list of augmentations
        List of augmentations to apply.

    Raises
    ------
    ValueError
        If the augmentations are not XYFlipConfig or XYRandomRotate90Config.
    ValueError
        If there are duplicate augmentations.
    """
    if augmentations is None:
        transform_list: list[SPATIAL_TRANSFORMS_UNION] = [
            XYFlipConfig(seed=seed),
            XYRandomRotate90Config(seed=seed),
        ]
    else:
        # throw error if not all augmentations are pydantic models
        if not all(
            isinstance(t, XYFlipConfig) or isinstance(t, XYRandomRotate90Config)
            for t in augmentations
        ):
            raise ValueError(
                "Accepted augmentations are either XYFlipConfig or "
                "XYRandomRotate90Config."
            )

        # check that there is no duplication
        aug_types = [t.__class__ for t in augmentations]
        if len(set(aug_types)) != len(aug_types):
            raise ValueError("Duplicate augmentations are not allowed.")

        transform_list = augmentations

    return transform_list


def create_data_configuration(
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    target_axes: str | None = None,
    augmentations: list[SPATIAL_TRANSFORMS_UNION] | None = None,
    normalization: dict | None = None,
    patch_filter_config: SupportedPatchFilterConfig | None = None,
    channels: Sequence[int] | None = None,
    in_memory: bool | None = None,
    n_val_patches: int = 8,
    num_workers: int = -1,
    train_dataloader_params: dict[str, Any] | None = None,
    val_dataloader_params: dict[str, Any] | None = None,
    pred_dataloader_params: dict[str, Any] | None = None,
    seed: int | None = None,
) -> DataConfig:
    """
    Create a training DataConfig.

    Note that `num_workers` is applied to all dataloaders unless explicitly overridden
    in the respective dataloader parameters.

    Parameters
    ----------
    data_type : {"array", "tiff", "zarr", "czi", "custom"}
        Type of the data.
    axes : str
        Axes of the data.
    patch_size : list of int
        Size of the patches along the spatial dimensions.
    batch_size : int
        Batch size.
    target_axes : str or None, default=None
        Axes of target data. If `None`, targets use `axes`.
    augmentations : list of augmentations or None, default=None
        List of augmentations to apply. If `None`, default augmentations are applied
        (flip in X and Y, rotations by 90 degrees in the XY plane).
    normalization : dict, default=None
        Normalization configuration dictionary. If None, defaults to mean_std
        normalization with automatically computed statistics.
    patch_filter_config : SupportedPatchFilterConfig | None, default=None
        Specify the configuration for patch filtering. Patch filtering reduces the
        probability of background patches being selected during training. If `None`,
        no patch filter is applied.
    channels : Sequence of int, default=None
        List of channels to use. If `None`, all channels are used.
    in_memory : bool, default=None
        Whether to load all data into memory. This is only supported for 'array',
        'tiff' and 'custom' data types. If `None`, defaults to `True` for 'array',
        'tiff' and `custom`, and `False` for 'zarr' and 'czi' data types. Must be `True`
        for `array`.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    num_workers : int, default=-1
        Number of workers for data loading. Use ``-1`` to automatically choose based
        on the number of available CPUs (calls :func:`get_default_num_workers`).
    train_dataloader_params : dict
        Parameters for the training dataloader, see PyTorch notes, by default None.
    val_dataloader_params : dict
        Parameters for the validation dataloader, see PyTorch notes, by default None.
    pred_dataloader_params : dict
        Parameters for the test dataloader, see PyTorch notes, by default None.
    seed : int, default=None
        Random seed for reproducibility. If `None`, seed is generated automatically.

    Returns
    -------
    DataConfig
        Next-Generation Data model with the specified parameters.
    """
    if seed is None:
        seed = generate_random_seed()

    if augmentations is None:
        augmentations = list_spatial_augmentations(seed=seed)

    # data model
    data: dict[str, Any] = {
        "mode": "training",
        "data_type": data_type,
        "axes": axes,
        "target_axes": target_axes,
        "batch_size": batch_size,
        "channels": channels,
        "augmentations": augmentations,
        "n_val_patches": n_val_patches,
        "seed": seed,
        "normalization": (
            normalization if normalization is not None else {"name": "mean_std"}
        ),
    }

    if patch_filter_config is not None:
        data["patch_filter"] = patch_filter_config

    if in_memory is not None:
        data["in_memory"] = in_memory

    if num_workers != -1:
        data["num_workers"] = num_workers

    if train_dataloader_params is not None:
        if "shuffle" not in train_dataloader_params:
            train_dataloader_params["shuffle"] = True
        data["train_dataloader_params"] = train_dataloader_params
    else:
        data["train_dataloader_params"] = {"shuffle": True}

    if val_dataloader_params is not None:
        data["val_dataloader_params"] = val_dataloader_params

    if pred_dataloader_params is not None:
        data["pred_dataloader_params"] = pred_dataloader_params

    # add training patching
    data["patching"] = {
        "name": "stratified",
        "patch_size": patch_size,
    }

    return DataConfig(**data)
