"""Convenience functions to create CARE configurations."""

from collections.abc import Sequence
from typing import Any, Literal

from careamics.config.algorithms import CAREAlgorithm, N2NAlgorithm
from careamics.config.configuration import Configuration
from careamics.utils import get_logger

from .algorithm_factory import create_algorithm_configuration
from .data_factory import (
    SupportedPatchFilterConfig,
    create_data_configuration,
)
from .factory_utils import assemble_augmentations, validate_input_channels
from .training_factory import create_training_configuration, update_trainer_params

logger = get_logger("CARE/N2N configuration factory")


def _validate_channel_dim(
    axes: str,
    target_axes: str | None,
    channels: Sequence[int] | None,
    n_channels_in: int | None,
    n_channels_out: int | None,
) -> tuple[int, int, str]:
    """Validate channel dimensions and adjust model input and output channel numbers.

    Parameters
    ----------
    axes : str
        Axes of the data (e.g. SYX).
    target_axes : str or None
        Axes of the target data. If unspecified, it will be made equal to `axes`. It
        must be specified when the number of output channels is greater than 1 and
        `axes` does not include 'C'.
    channels : Sequence[int] or None
        Indices of the channels to use.
    n_channels_in : int or None
        Number of input channels.
    n_channels_out : int or None
        Number of output channels.

    Returns
    -------
    int
        Adjusted number of input channels.
    int
        Adjusted number of output channels.
    str
        Adjusted target axes.
    """
    resolved_target_axes = target_axes if target_axes is not None else axes
    target_channels_present = "C" in resolved_target_axes

    validate_input_channels(
        axes=axes, channels=channels, n_channels=n_channels_in, attr_name="n_channels"
    )

    # resolve number of input channels
    if n_channels_in is None and channels is None:
        resolved_n_channels_in = 1
    elif n_channels_in is not None:
        resolved_n_channels_in = n_channels_in
    else:
        assert channels is not None
        resolved_n_channels_in = len(channels)

    if n_channels_out is not None:
        resolved_n_channels_out = n_channels_out
    else:
        # if target axes has channels, default to input channels, otherwise 1
        resolved_n_channels_out = (
            resolved_n_channels_in if target_channels_present else 1
        )

    if not target_channels_present and resolved_n_channels_out > 1:
        raise ValueError(
            f"Number of output channels is greater than 1 (got "
            f"{resolved_n_channels_out}), but `target_axes` does not include 'C' "
            f"(got {target_axes}). Please specify `target_axes` with 'C' to indicate "
            f"the channel dimension in the target data."
        )

    if target_axes is None and target_channels_present:
        logger.warning(
            "Warning, in CARE/N2N configuration: "
            "Target axes have been inferred from input `axes`. Make sure that the "
            "target data has the axes in the same order as the input, otherwise "
            "silent failure may occur (e.g. empty target patches during training)."
        )

    return resolved_n_channels_in, resolved_n_channels_out, resolved_target_axes


def create_care_config(
    *,
    # mandatory parameters
    experiment_name: str,
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    # optional parameters
    num_epochs: int = 30,
    num_steps: int | None = None,
    augmentations: Sequence[Literal["x_flip", "y_flip", "rotate_90"]] | None = None,
    n_val_patches: int = 8,
    n_channels_in: int | None = None,
    n_channels_out: int | None = None,
    target_axes: str | None = None,
) -> Configuration[CAREAlgorithm]:
    """
    Create a configuration for training CARE.

    The `axes` parameters must reflect the actual axes and axis order from the data,
    and should be the same throughout all images. The accepted axes are STCZYX. If "C"
    is in `axes`, then you need to set `n_channels_in` and `n_channels_out` to the
    number of channels expected in the input and output, respectively.

    By default, CAREamics will go through the entire training data once per epoch. For
    large datasets, this can lead to very long epochs. To limit the number of batches
    per epoch, set the `num_steps` parameter to the desired number of batches.

    If the content of your data is expected to always have the same orientation,
    consider disabling certain augmentations. By default `augmentations=None` will apply
    random flips along X and Y, and random 90 degrees rotations in the XY plane. To
    disable augmentations, set `augmentations=[]`.

    See `create_advanced_care_config` for more parameters.

    Parameters
    ----------
    experiment_name : str
        Name of the experiment. A valid experiment name is a non-empty string that only
        contains letters, numbers, underscores, dashes and spaces.
    data_type : Literal["array", "tiff", "zarr", "czi", "custom"]
        Type of the data.
    axes : str
        Axes of the data (e.g. SYX).
    patch_size : Sequence[int]
        Size of the patches along the spatial dimensions (e.g. [64, 64]).
    batch_size : int
        Batch size.
    num_epochs : int, default=30
        Number of epochs to train for.
    num_steps : int, default=None
        Number of batches in 1 epoch.
    augmentations : Sequence of {"x_flip", "y_flip", "rotate_90"}, default=None
        List of augmentations to apply. If `None`, all augmentations are applied.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    n_channels_in : int or None, default=None
        Number of input channels.
    n_channels_out : int | None, default=None
        Number of output channels. If `target_axes` contains `C` then it will default to
        `n_channels_in` otherwise it will default to 1. Note that if `target_axes` is
        `None` it will default to `axes`.
    target_axes : str or None, default=None
        Axes of target data. If not specified it will default to `axes`. Pay extra
        attention if you are training a task that has a different number of input and
        output channels.

    Returns
    -------
    Configuration
        Configuration for training CARE.
    """
    return create_advanced_care_config(**locals())


def create_n2n_config(
    *,
    # mandatory parameters
    experiment_name: str,
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    # optional parameters
    num_epochs: int = 30,
    num_steps: int | None = None,
    augmentations: Sequence[Literal["x_flip", "y_flip", "rotate_90"]] | None = None,
    n_val_patches: int = 8,
    n_channels_in: int | None = None,
    n_channels_out: int | None = None,
    target_axes: str | None = None,
) -> Configuration[N2NAlgorithm]:
    """
    Create a configuration for training Noise2Noise.

    The `axes` parameters must reflect the actual axes and axis order from the data,
    and should be the same throughout all images. The accepted axes are STCZYX. If "C"
    is in `axes`, then you need to set `n_channels_in` and `n_channels_out` to the
    number of channels expected in the input and output, respectively.

    By default, CAREamics will go through the entire training data once per epoch. For
    large datasets, this can lead to very long epochs. To limit the number of batches
    per epoch, set the `num_steps` parameter to the desired number of batches.

    If the content of your data is expected to always have the same orientation,
    consider disabling certain augmentations. By default `augmentations=None` will apply
    random flips along X and Y, and random 90 degrees rotations in the XY plane. To
    disable augmentations, set `augmentations=[]`.

    See `create_advanced_care_config` for more parameters.

    Parameters
    ----------
    experiment_name : str
        Name of the experiment. A valid experiment name is a non-empty string that only
        contains letters, numbers, underscores, dashes and spaces.
    data_type : Literal["array", "tiff", "zarr", "czi", "custom"]
        Type of the data.
    axes : str
        Axes of the data (e.g. SYX).
    patch_size : Sequence[int]
        Size of the patches along the spatial dimensions (e.g. [64, 64]).
    batch_size : int
        Batch size.
    num_epochs : int, default=30
        Number of epochs to train for.
    num_steps : int, default=None
        Number of batches in 1 epoch.
    augmentations : Sequence of {"x_flip", "y_flip", "rotate_90"}, default=None
        List of augmentations to apply. If `None`, all augmentations are applied.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    n_channels_in : int or None, default=None
        Number of input channels.
    n_channels_out : int | None, default=None
        Number of output channels. If `target_axes` contains `C` then it will default to
        `n_channels_in` otherwise it will default to 1. Note that if `target_axes` is
        `None` it will default to `axes`.
    target_axes : str or None, default=None
        Axes of target data. If not specified it will default to `axes`. Pay extra
        attention if you are training a task that has a different number of input and
        output channels.

    Returns
    -------
    Configuration
        Configuration for training Noise2Noise.
    """
    return create_advanced_n2n_config(**locals())


def create_advanced_care_config(
    *,
    experiment_name: str,
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    # optional parameters
    num_epochs: int = 30,
    num_steps: int | None = None,
    n_channels_in: int | None = None,
    n_channels_out: int | None = None,
    target_axes: str | None = None,
    augmentations: Sequence[Literal["x_flip", "y_flip", "rotate_90"]] | None = None,
    n_val_patches: int = 8,
    # advanced parameters
    in_memory: bool | None = None,
    channels: Sequence[int] | None = None,
    independent_channels: bool = False,
    normalization: Literal["mean_std", "min_max", "quantile", "none"] = "mean_std",
    normalization_params: dict[str, Any] | None = None,
    patch_filter_config: SupportedPatchFilterConfig | None = None,
    # lightning parameters
    num_workers: int = -1,
    trainer_params: dict | None = None,
    model_params: dict | None = None,
    optimizer: Literal["Adam", "Adamax", "SGD"] = "Adam",
    optimizer_params: dict[str, Any] | None = None,
    lr_scheduler: Literal["ReduceLROnPlateau", "StepLR"] = "ReduceLROnPlateau",
    lr_scheduler_params: dict[str, Any] | None = None,
    train_dataloader_params: dict[str, Any] | None = None,
    val_dataloader_params: dict[str, Any] | None = None,
    checkpoint_params: dict[str, Any] | None = None,
    early_stopping_params: dict[str, Any] | None = None,
    logger: Literal["wandb", "tensorboard", "none"] = "none",
    # reproducibility
    seed: int | None = None,
) -> Configuration[CAREAlgorithm]:
    """
    Create a configuration for training CARE.

    If "Z" is present in `axes`, then `patch_size` must be a list of length 3, otherwise
    2.

    If "C" is present in `axes`, then you need to set `n_channels_in` and
    `n_channels_out` to the number of input and output channels, respectively.

    By default, all channels are trained independently. To train all channels together,
    set `independent_channels` to False.

    By default, the augmentations applied are random flips along X or Y, and random
    90 degrees rotations in the XY plane. To disable the augmentations, simply pass an
    empty list.

    The parameters of the UNet can be specified in the `model_params` (passed as a
    parameter-value dictionary).

    Note that `num_workers` is applied to all dataloaders unless explicitly overridden
    in the respective dataloader parameters.

    Parameters
    ----------
    experiment_name : str
        Name of the experiment. A valid experiment name is a non-empty string that only
        contains letters, numbers, underscores, dashes and spaces.
    data_type : Literal["array", "tiff", "zarr", "czi", "custom"]
        Type of the data.
    axes : str
        Axes of the data (e.g. SYX).
    patch_size : Sequence[int]
        Size of the patches along the spatial dimensions (e.g. [64, 64]).
    batch_size : int
        Batch size.
    num_epochs : int, default=30
        Number of epochs to train for. If provided, this will be added to
        trainer_params.
    num_steps : int | None, default=None
        Number of batches in 1 epoch. If provided, this will be added to trainer_params.
        Translates to `limit_train_batches` in PyTorch Lightning Trainer. See relevant
        documentation for more details.
    n_channels_in : int | None, default=None
        Number of input channels. If `channels` is specified, then the number of
        channels is inferred from its length and this parameter is ignored.
    n_channels_out : int | None, default=None
        Number of output channels. If `target_axes` contains `C` then it will default to
        `n_channels_in` otherwise it will default to 1. Note that if `target_axes` is
        `None` it will default to `axes`.
    target_axes : str or None, default=None
        Axes of target data. If not specified it will default to `axes`. Pay extra
        attention if you are training a task that has a different number of input and
        output channels.
    augmentations : Sequence[{"x_flip", "y_flip", "rotate_90"}] | None, default=None
        List of transforms to apply, either both or one of XYFlipConfig and
        XYRandomRotate90Config. By default, it applies both XYFlip (on X and Y)
        and XYRandomRotate90 (in XY) to the images.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    in_memory : bool | None, default=None
        Whether to load all data into memory. This is only supported for 'array',
        'tiff' and 'custom' data types. If `None`, defaults to `True` for 'array',
        'tiff' and `custom`, and `False` for 'zarr' and 'czi' data types. Must be `True`
        for `array`.
    channels : Sequence[int] | None, default=None
        List of channels to use. If `None`, all channels are used.
    independent_channels : bool, default=False
        Whether to train all channels independently.
    normalization : {"mean_std", "min_max", "quantile", "none"}, default="mean_std"
        Normalization strategy to use.
    normalization_params : dict[str, Any] | None, default=None
        Strategy-specific normalization parameters. If None, default values are used.

        - For "mean_std": {"input_means": [...], "input_stds": [...]} (optional)
        - For "min_max": {"input_mins": [...], "input_maxes": [...]} (optional)
        - For "quantile": {"lower_quantiles": 0.01, "upper_quantiles": 0.99} (optional)
        - For "none": No parameters needed.

    patch_filter_config : SupportedPatchFilterConfig | None, default=None
        Specify the configuration for patch filtering. Patch filtering reduces the
        probability of background patches being selected during training. If `None`,
        no patch filter is applied.
    num_workers : int, default=-1
        Number of workers for data loading. Use `-1` to automatically choose based
        on the number of available CPUs. Unless explicitly overridden in
        `train_dataloader_params` and `val_dataloader_params`, this will be applied to
        all dataloaders.
    trainer_params : dict | None, default=None
        Parameters for the trainer, see the relevant documentation.
    model_params : dict | None, default=None
        UNetModel parameters.
    optimizer : Literal["Adam", "Adamax", "SGD"], default="Adam"
        Optimizer to use.
    optimizer_params : dict[str, Any] | None, default=None
        Parameters for the optimizer, see PyTorch documentation for more details.
    lr_scheduler : Literal["ReduceLROnPlateau", "StepLR"], default="ReduceLROnPlateau"
        Learning rate scheduler to use.
    lr_scheduler_params : dict[str, Any] | None, default=None
        Parameters for the learning rate scheduler, see PyTorch documentation for more
        details.
    train_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the training dataloader, see the PyTorch docs for `DataLoader`.
        If left as `None`, `{"shuffle": True}` will be used.
    val_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the validation dataloader, see PyTorch the docs for `DataLoader`.
    checkpoint_params : dict[str, Any] | None, default=None
        Parameters for the checkpoint callback, see PyTorch Lightning documentation
        (`ModelCheckpoint`) for the list of available parameters.
    early_stopping_params : dict[str, Any] | None, default=None
        Parameters for the early stopping callback, see PyTorch Lightning documentation
        (`EarlyStopping`) for the list of available parameters.
    logger : Literal["wandb", "tensorboard", "none"], default="none"
        Logger to use.
    seed : int | None, default=None
        Random seed for reproducibility.

    Returns
    -------
    Configuration
        Configuration for training CARE.
    """
    config_dict = _create_advanced_supervised_config(algorithm="care", **locals())

    return Configuration(**config_dict)


def create_advanced_n2n_config(
    experiment_name: str,
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    # optional parameters
    num_epochs: int = 30,
    num_steps: int | None = None,
    n_channels_in: int | None = None,
    n_channels_out: int | None = None,
    target_axes: str | None = None,
    augmentations: Sequence[Literal["x_flip", "y_flip", "rotate_90"]] | None = None,
    n_val_patches: int = 8,
    # advanced parameters
    in_memory: bool | None = None,
    channels: Sequence[int] | None = None,
    independent_channels: bool = True,
    normalization: Literal["mean_std", "min_max", "quantile", "none"] = "mean_std",
    normalization_params: dict[str, Any] | None = None,
    patch_filter_config: SupportedPatchFilterConfig | None = None,
    # - Lightning parameters
    num_workers: int = -1,
    trainer_params: dict | None = None,
    model_params: dict | None = None,
    optimizer: Literal["Adam", "Adamax", "SGD"] = "Adam",
    optimizer_params: dict[str, Any] | None = None,
    lr_scheduler: Literal["ReduceLROnPlateau", "StepLR"] = "ReduceLROnPlateau",
    lr_scheduler_params: dict[str, Any] | None = None,
    train_dataloader_params: dict[str, Any] | None = None,
    val_dataloader_params: dict[str, Any] | None = None,
    checkpoint_params: dict[str, Any] | None = None,
    logger: Literal["wandb", "tensorboard", "none"] = "none",
    # - reproducibility
    seed: int | None = None,
) -> Configuration[N2NAlgorithm]:
    """
    Create a configuration for training Noise2Noise.

    If "Z" is present in `axes`, then `patch_size` must be a list of length 3, otherwise
    2.

    If "C" is present in `axes`, then you need to set `n_channels_in` and
    `n_channels_out` to the number of input and output channels, respectively.

    By default, all channels are trained independently. To train all channels together,
    set `independent_channels` to False.

    By default, the augmentations applied are random flips along X or Y, and random
    90 degrees rotations in the XY plane. To disable the augmentations, simply pass an
    empty list.

    The parameters of the UNet can be specified in the `model_params` (passed as a
    parameter-value dictionary).

    Note that `num_workers` is applied to all dataloaders unless explicitly overridden
    in the respective dataloader parameters.

    Parameters
    ----------
    experiment_name : str
        Name of the experiment. A valid experiment name is a non-empty string that only
        contains letters, numbers, underscores, dashes and spaces.
    data_type : Literal["array", "tiff", "zarr", "czi", "custom"]
        Type of the data.
    axes : str
        Axes of the data (e.g. SYX).
    patch_size : Sequence[int]
        Size of the patches along the spatial dimensions (e.g. [64, 64]).
    batch_size : int
        Batch size.
    num_epochs : int, default=30
        Number of epochs to train for. If provided, this will be added to
        trainer_params.
    num_steps : int | None, default=None
        Number of batches in 1 epoch. If provided, this will be added to trainer_params.
        Translates to `limit_train_batches` in PyTorch Lightning Trainer. See relevant
        documentation for more details.
    n_channels_in : int | None, default=None
        Number of input channels. If `channels` is specified, then the number of
        channels is inferred from its length and this parameter is ignored.
    n_channels_out : int | None, default=None
        Number of output channels. If `target_axes` contains `C` then it will default to
        `n_channels_in` otherwise it will default to 1. Note that if `target_axes` is
        `None` it will default to `axes`.
    target_axes : str or None, default=None
        Axes of target data. If not specified it will default to `axes`. Pay extra
        attention if you are training a task that has a different number of input and
        output channels.
    augmentations : Sequence[{"x_flip", "y_flip", "rotate_90"}] | None, default=None
        List of transforms to apply, either both or one of XYFlipConfig and
        XYRandomRotate90Config. By default, it applies both XYFlip (on X and Y)
        and XYRandomRotate90 (in XY) to the images.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    in_memory : bool | None, default=None
        Whether to load all data into memory. This is only supported for 'array',
        'tiff' and 'custom' data types. If `None`, defaults to `True` for 'array',
        'tiff' and `custom`, and `False` for 'zarr' and 'czi' data types. Must be `True`
        for `array`.
    channels : Sequence[int] | None, default=None
        List of channels to use. If `None`, all channels are used.
    independent_channels : bool, default=True
        Whether to train all channels independently.
    normalization : {"mean_std", "min_max", "quantile", "none"}, default="mean_std"
        Normalization strategy to use.
    normalization_params : dict[str, Any] | None, default=None
        Strategy-specific normalization parameters. If None, default values are used.

        - For "mean_std": {"input_means": [...], "input_stds": [...]} (optional)
        - For "min_max": {"input_mins": [...], "input_maxes": [...]} (optional)
        - For "quantile": {"lower_quantiles": 0.01, "upper_quantiles": 0.99} (optional)
        - For "none": No parameters needed.

    patch_filter_config : SupportedPatchFilterConfig | None, default=None
        Specify the configuration for patch filtering. Patch filtering reduces the
        probability of background patches being selected during training. If `None`,
        no patch filter is applied.
    num_workers : int, default=-1
        Number of workers for data loading. Use `-1` to automatically choose based
        on the number of available CPUs. Unless explicitly overridden in
        `train_dataloader_params` and `val_dataloader_params`, this will be applied to
        all dataloaders.
    trainer_params : dict | None, default=None
        Parameters for the trainer, see the relevant documentation.
    model_params : dict | None, default=None
        UNetModel parameters.
    optimizer : Literal["Adam", "Adamax", "SGD"], default="Adam"
        Optimizer to use.
    optimizer_params : dict[str, Any] | None, default=None
        Parameters for the optimizer, see PyTorch documentation for more details.
    lr_scheduler : Literal["ReduceLROnPlateau", "StepLR"], default="ReduceLROnPlateau"
        Learning rate scheduler to use.
    lr_scheduler_params : dict[str, Any] | None, default=None
        Parameters for the learning rate scheduler, see PyTorch documentation for more
        details.
    train_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the training dataloader, see the PyTorch docs for `DataLoader`.
        If left as `None`, `{"shuffle": True}` will be used.
    val_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the validation dataloader, see PyTorch the docs for `DataLoader`.
    checkpoint_params : dict[str, Any] | None, default=None
        Parameters for the checkpoint callback, see PyTorch Lightning documentation
        (`ModelCheckpoint`) for the list of available parameters.
    logger : Literal["wandb", "tensorboard", "none"], default="none"
        Logger to use.
    seed : int | None, default=None
        Random seed for reproducibility.

    Returns
    -------
    Configuration
        Configuration for training Noise2Noise.
    """
    config_dict = _create_advanced_supervised_config(algorithm="n2n", **locals())

    return Configuration(**config_dict)


def _create_advanced_supervised_config(
    algorithm: Literal["care", "n2n"],
    # mandatory parameters
    experiment_name: str,
    data_type: Literal["array", "tiff", "zarr", "czi", "custom"],
    axes: str,
    patch_size: Sequence[int],
    batch_size: int,
    # optional parameters
    num_epochs: int = 30,
    num_steps: int | None = None,
    n_channels_in: int | None = None,
    n_channels_out: int | None = None,
    target_axes: str | None = None,
    augmentations: Sequence[Literal["x_flip", "y_flip", "rotate_90"]] | None = None,
    n_val_patches: int = 8,
    # advanced parameters
    in_memory: bool | None = None,
    channels: Sequence[int] | None = None,
    independent_channels: bool = False,
    normalization: Literal["mean_std", "min_max", "quantile", "none"] = "mean_std",
    normalization_params: dict[str, Any] | None = None,
    patch_filter_config: SupportedPatchFilterConfig | None = None,
    # lightning parameters
    num_workers: int = -1,
    trainer_params: dict | None = None,
    model_params: dict | None = None,
    optimizer: Literal["Adam", "Adamax", "SGD"] = "Adam",
    optimizer_params: dict[str, Any] | None = None,
    lr_scheduler: Literal["ReduceLROnPlateau", "StepLR"] = "ReduceLROnPlateau",
    lr_scheduler_params: dict[str, Any] | None = None,
    train_dataloader_params: dict[str, Any] | None = None,
    val_dataloader_params: dict[str, Any] | None = None,
    checkpoint_params: dict[str, Any] | None = None,
    early_stopping_params: dict[str, Any] | None = None,
    logger: Literal["wandb", "tensorboard", "none"] = "none",
    # reproducibility
    seed: int | None = None,
) -> dict[str, Any]:
    """
    Create a configuration for training CARE or N2N.

    If "Z" is present in `axes`, then `patch_size` must be a list of length 3, otherwise
    2.

    If "C" is present in `axes`, then you need to set `n_channels_in` and
    `n_channels_out` to the number of input and output channels, respectively.

    By default, all channels are trained independently. To train all channels together,
    set `independent_channels` to False.

    By default, the augmentations applied are random flips along X or Y, and random
    90 degrees rotations in the XY plane. To disable the augmentations, simply pass an
    empty list.

    The parameters of the UNet can be specified in the `model_params` (passed as a
    parameter-value dictionary).

    Note that `num_workers` is applied to all dataloaders unless explicitly overridden
    in the respective dataloader parameters.

    Parameters
    ----------
    algorithm : Literal["care", "n2n"]
        Algorithm for which to create the configuration.
    experiment_name : str
        Name of the experiment. A valid experiment name is a non-empty string that only
        contains letters, numbers, underscores, dashes and spaces.
    data_type : Literal["array", "tiff", "zarr", "czi", "custom"]
        Type of the data.
    axes : str
        Axes of the data (e.g. SYX).
    patch_size : Sequence[int]
        Size of the patches along the spatial dimensions (e.g. [64, 64]).
    batch_size : int
        Batch size.
    num_epochs : int, default=30
        Number of epochs to train for. If provided, this will be added to
        trainer_params.
    num_steps : int | None, default=None
        Number of batches in 1 epoch. If provided, this will be added to trainer_params.
        Translates to `limit_train_batches` in PyTorch Lightning Trainer. See relevant
        documentation for more details.
    n_channels_in : int | None, default=None
        Number of input channels. If `channels` is specified, then the number of
        channels is inferred from its length and this parameter is ignored.
    n_channels_out : int | None, default=None
        Number of output channels. If not specified, but n_channels_in is specified,
        it will default to the same number as n_channels_in.
    target_axes : str or None, default=None
        Axes of target data. Required when the output has more than one channel.
    augmentations : Sequence[{"x_flip", "y_flip", "rotate_90"}] | None, default=None
        List of transforms to apply, either both or one of XYFlipConfig and
        XYRandomRotate90Config. By default, it applies both XYFlip (on X and Y)
        and XYRandomRotate90 (in XY) to the images.
    n_val_patches : int, default=8,
        The number of patches to set aside for validation during training. This
        parameter will be ignored if separate validation data is specified for training.
    in_memory : bool | None, default=None
        Whether to load all data into memory. This is only supported for 'array',
        'tiff' and 'custom' data types. If `None`, defaults to `True` for 'array',
        'tiff' and `custom`, and `False` for 'zarr' and 'czi' data types. Must be `True`
        for `array`.
    channels : Sequence[int] | None, default=None
        List of channels to use. If `None`, all channels are used.
    independent_channels : bool, default=False
        Whether to train all channels independently.
    normalization : {"mean_std", "min_max", "quantile", "none"}, default="mean_std"
        Normalization strategy to use.
    normalization_params : dict[str, Any] | None, default=None
        Strategy-specific normalization parameters. If None, default values are used.

        - For "mean_std": {"input_means": [...], "input_stds": [...]} (optional)
        - For "min_max": {"input_mins": [...], "input_maxes": [...]} (optional)
        - For "quantile": {"lower_quantiles": 0.01, "upper_quantiles": 0.99} (optional)
        - For "none": No parameters needed.

    patch_filter_config : SupportedPatchFilterConfig | None, default=None
        Specify the configuration for patch filtering. Patch filtering reduces the
        probability of background patches being selected during training. If `None`,
        no patch filter is applied.
    num_workers : int, default=-1
        Number of workers for data loading. Use `-1` to automatically choose based
        on the number of available CPUs. Unless explicitly overridden in
        `train_dataloader_params` and `val_dataloader_params`, this will be applied to
        all dataloaders.
    trainer_params : dict | None, default=None
        Parameters for the trainer, see the relevant documentation.
    model_params : dict | None, default=None
        UNetModel parameters.
    optimizer : Literal["Adam", "Adamax", "SGD"], default="Adam"
        Optimizer to use.
    optimizer_params : dict[str, Any] | None, default=None
        Parameters for the optimizer, see PyTorch documentation for more details.
    lr_scheduler : Literal["ReduceLROnPlateau", "StepLR"], default="ReduceLROnPlateau"
        Learning rate scheduler to use.
    lr_scheduler_params : dict[str, Any] | None, default=None
        Parameters for the learning rate scheduler, see PyTorch documentation for more
        details.
    train_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the training dataloader, see the PyTorch docs for `DataLoader`.
        If left as `None`, `{"shuffle": True}` will be used.
    val_dataloader_params : dict[str, Any] | None, default=None
        Parameters for the validation dataloader, see PyTorch the docs for `DataLoader`.
    checkpoint_params : dict[str, Any] | None, default=None
        Parameters for the checkpoint callback, see PyTorch Lightning documentation
        (`ModelCheckpoint`) for the list of available parameters.
    early_stopping_params : dict[str, Any] | None, default=None
        Parameters for the early stopping callback, see PyTorch Lightning documentation
        (`EarlyStopping`) for the list of available parameters.
    logger : Literal["wandb", "tensorboard", "none"], default="none"
        Logger to use.
    seed : int | None, default=None
        Random seed for reproducibility.

    Returns
    -------
    dict[str, Any]
        Parameters required to instantiate a CAREamics configuration.
    """
    # if there are channels, we need to specify their number
    n_channels_in, n_channels_out, target_axes = _validate_channel_dim(
        axes, target_axes, channels, n_channels_in, n_channels_out
    )

    # normalization
    norm_config = {"name": normalization}
    if normalization_params is not None:
        norm_config.update(normalization_params)

    # data
    data_config = create_data_configuration(
        data_type=data_type,
        axes=axes,
        target_axes=target_axes,
        patch_size=patch_size,
        batch_size=batch_size,
        augmentations=assemble_augmentations(augmentations, seed),
        n_val_patches=n_val_patches,
        normalization=norm_config,
        patch_filter_config=patch_filter_config,
        channels=channels,
        in_memory=in_memory,
        num_workers=num_workers,
        train_dataloader_params=train_dataloader_params,
        val_dataloader_params=val_dataloader_params,
        seed=seed,
    )

    # algorithm
    algorithm_params = create_algorithm_configuration(
        dimensions=3 if data_config.is_3D() else 2,
        algorithm=algorithm,
        loss="mae",
        independent_channels=independent_channels,
        n_channels_in=n_channels_in,
        n_channels_out=n_channels_out,
        use_n2v2=False,
        model_params=model_params,
        optimizer=optimizer,
        optimizer_params=optimizer_params,
        lr_scheduler=lr_scheduler,
        lr_scheduler_params=lr_scheduler_params,
    )

    # training
    final_trainer_params = update_trainer_params(
        trainer_params=trainer_params,
        num_epochs=num_epochs,
        num_steps=num_steps,
    )
    training_params = create_training_configuration(
        algorithm=algorithm,
        trainer_params=final_trainer_params,
        logger=logger,
        checkpoint_params=checkpoint_params,
        early_stopping_params=early_stopping_params,
        monitor_metric="val_loss",
    )

    return {
        "experiment_name": experiment_name,
        "algorithm_config": algorithm_params,
        "data_config": data_config,
        "training_config": training_params,
    }
