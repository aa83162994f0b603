import warnings
from functools import lru_cache, partial
from pathlib import Path
from typing import Optional, Union, cast

import numpy as np
import segmentation_models_pytorch as smp
import timm
import torch
from safetensors.torch import load_file

from .mps_patch import patch_models_for_mps


def get_torch_dtype(dtype: Union[torch.dtype, str]) -> torch.dtype:
    """Return a torch.dtype from a string or torch.dtype."""
    if isinstance(dtype, str):
        dtype_mapping = {
            "torch.float16": torch.float16,
            "float16": torch.float16,
            "fp16": torch.float16,
            "half": torch.float16,
            "torch.bfloat16": torch.bfloat16,
            "bfloat16": torch.bfloat16,
            "bf16": torch.bfloat16,
            "torch.float32": torch.float32,
            "float32": torch.float32,
            "fp32": torch.float32,
            "float": torch.float32,
        }
        try:
            return dtype_mapping[dtype.lower()]
        except KeyError:
            raise ValueError(
                f"Invalid dtype: {dtype}. Must be one of {list(dtype_mapping.keys())}"
            ) from None
    elif isinstance(dtype, torch.dtype):
        return dtype
    else:
        raise TypeError(
            f"Expected dtype to be a str or torch.dtype, but got {type(dtype)}"
        )


def create_gradient_mask(
    patch_size: int, patch_overlap: int, device: torch.device, dtype: torch.dtype
) -> torch.Tensor:
    """Create a gradient mask for a given patch size and overlap."""
    if patch_overlap > 0:
        if patch_overlap * 2 > patch_size:
            patch_overlap = patch_size // 2

        gradient_strength = 1
        gradient = (
            torch.ones((patch_size, patch_size), dtype=torch.int, device=device)
            * patch_overlap
        )
        gradient[:, :patch_overlap] = torch.tile(
            torch.arange(1, patch_overlap + 1),
            (patch_size, 1),
        )
        gradient[:, -patch_overlap:] = torch.tile(
            torch.arange(patch_overlap, 0, -1),
            (patch_size, 1),
        )
        gradient = gradient / patch_overlap
        rotated_gradient = torch.rot90(gradient)
        combined_gradient = rotated_gradient * gradient

        combined_gradient = (combined_gradient * gradient_strength) + (
            1 - gradient_strength
        )
    else:
        combined_gradient = torch.ones(
            (patch_size, patch_size), dtype=torch.int, device=device
        )
    return combined_gradient.to(dtype)


def _compares_to_nodata(nodata_value: Optional[int | float]) -> bool:
    """Whether values must also be compared with nodata_value, on top of the NaN
    check: not when it is None or NaN itself."""
    return nodata_value is not None and not np.isnan(nodata_value)


def is_nodata(array: np.ndarray, nodata_value: Optional[int | float] = 0) -> np.ndarray:
    """Boolean mask of the nodata values in array. NaN is always nodata, as it can
    never be a valid reflectance, and so is any value equal to nodata_value."""
    if np.issubdtype(array.dtype, np.floating):
        nodata = np.isnan(array)
        if _compares_to_nodata(nodata_value):
            nodata |= array == nodata_value
        return nodata
    if _compares_to_nodata(nodata_value):
        return array == nodata_value
    return np.zeros(array.shape, dtype=bool)


def is_nodata_torch(
    tensor: torch.Tensor, nodata_value: Optional[int | float] = 0
) -> torch.Tensor:
    """Torch version of is_nodata."""
    if tensor.is_floating_point():
        nodata = torch.isnan(tensor)
        if _compares_to_nodata(nodata_value):
            nodata |= tensor == nodata_value
        return nodata
    if _compares_to_nodata(nodata_value):
        return tensor == nodata_value
    return torch.zeros_like(tensor, dtype=torch.bool)


def channel_norm(
    patch: np.ndarray, nodata_value: Optional[int | float] = 0
) -> np.ndarray:
    """Normalize each band of the input array by subtracting the nonzero mean and
    dividing by the nonzero standard deviation then fill nodata values with 0."""
    out_array = np.zeros(patch.shape, dtype=np.float32)
    for id, band in enumerate(patch):
        # Mask for valid values
        mask = ~is_nodata(band, nodata_value)
        # Check if there are any valid values
        if np.any(mask):
            masked_values = band[mask]
            mean = masked_values.mean()
            std = masked_values.std()
            if std == 0:
                std = 1  # Prevent division by zero
            # Normalize only non-zero values
            out_array[id][mask] = (masked_values - mean) / std
        else:
            continue

    return out_array


def band_valid_mask(
    batch: torch.Tensor, nodata_value: Optional[int | float] = 0
) -> torch.Tensor:
    """Boolean mask of values in batch that are not nodata (see is_nodata)."""
    return ~is_nodata_torch(batch, nodata_value)


def channel_norm_torch(
    batch: torch.Tensor,
    nodata_value: Optional[int | float] = 0,
    valid: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Batched torch version of channel_norm. Normalize each band of each image in
    a (B, C, H, W) batch by subtracting the nonzero mean and dividing by the nonzero
    standard deviation then fill nodata values with 0. A precomputed valid mask from
    band_valid_mask can be passed to avoid recomputing it."""
    batch = batch.to(torch.float32)
    if valid is None:
        valid = band_valid_mask(batch, nodata_value)

    count = valid.sum(dim=(2, 3), keepdim=True).clamp(min=1)
    mean = torch.where(valid, batch, 0).sum(dim=(2, 3), keepdim=True) / count
    centered = torch.where(valid, batch - mean, 0)
    std = ((centered**2).sum(dim=(2, 3), keepdim=True) / count).sqrt()
    std = torch.where(std == 0, 1, std)  # Prevent division by zero
    return centered / std


def store_results(
    pred_batch: torch.Tensor,
    index_batch: list[tuple],
    pred_tracker: torch.Tensor,
    gradient: torch.Tensor,
    grad_tracker: Optional[torch.Tensor] = None,
) -> None:
    """Store the results of the model inference in the pred_tracker
    and grad_tracker tensors."""
    # Store the predictions in the pred_tracker tensor
    assert pred_batch.ndim == 4, "pred_batch must have 4 dimensions, (B, class, H, W)"
    assert pred_batch.shape[0] == len(index_batch), "Batch size must match index_batch"
    if pred_batch.shape[1] != pred_tracker.shape[0]:
        raise ValueError(
            f"Models predicted {pred_batch.shape[1]} classes, but pred_classes is "
            f"{pred_tracker.shape[0]}. Set pred_classes to match the output of your "
            f"custom models."
        )
    assert pred_batch.shape[2] == gradient.shape[0], "Height must match gradient"
    assert pred_batch.shape[3] == gradient.shape[1], "Width must match gradient"

    pred_batch *= gradient[None, None, :, :]

    for pred, index in zip(
        pred_batch.to(pred_tracker.device), index_batch, strict=True
    ):
        pred_tracker[:, index[0] : index[1], index[2] : index[3]] += pred
        if grad_tracker is not None:
            grad_tracker[index[0] : index[1], index[2] : index[3]] += gradient.to(
                grad_tracker.device
            )


def infer_batch(
    models: list[torch.nn.Module], patch_batch: torch.Tensor
) -> torch.Tensor:
    """Run each model on the patch_batch and return the mean prediction."""
    all_preds = []

    for model in models:
        with torch.no_grad():
            all_preds.append(model(patch_batch))

    return torch.mean(torch.stack(all_preds), dim=0)


def inference_and_store(
    models: list[torch.nn.Module],
    patch_batch: torch.Tensor,
    index_batch: list[tuple],
    pred_tracker: torch.Tensor,
    gradient: torch.Tensor,
    grad_tracker: Optional[torch.Tensor] = None,
) -> None:
    """Perform inference on the patch_batch and store the results
    in the pred_tracker and grad_tracker tensors."""

    mean_preds = infer_batch(models, patch_batch)

    store_results(
        pred_batch=mean_preds,
        index_batch=index_batch,
        pred_tracker=pred_tracker,
        gradient=gradient,
        grad_tracker=grad_tracker,
    )


def default_device() -> torch.device:
    """Return the default device for model inference"""
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def load_model(
    model_path: Union[Path, str],
    device: torch.device,
    dtype: torch.dtype = torch.float32,
) -> torch.nn.Module:
    """Load a PyTorch model from a file and move it to the
    specified device and dtype."""
    model_path = Path(model_path)
    if not model_path.is_file():
        raise FileNotFoundError(f"Model file not found at: {model_path}")

    try:
        model = torch.load(model_path, map_location="cpu")
    except Exception as e:
        raise RuntimeError(f"Error loading model: {e}") from None

    model.eval()
    return model.to(device=device, dtype=dtype)


def build_fastai_model(
    model_name: str,
    in_chans: int = 3,
    n_out: int = 4,
) -> torch.nn.Module:
    """Build Fastai DynamicUnet model from timm model"""
    try:
        from fastai.vision.learner import (  # type: ignore[import-not-found]
            create_unet_model,
        )
    except ImportError as err:
        raise ImportError(
            "fastai is not installed. Please install with legacy model support "
            "to use model versions 1-3.\n\n"
            "Installation options:\n"
            "  pip install omnicloudmask[legacy]\n"
            "  uv add omnicloudmask --extra legacy\n"
            "  conda install conda-forge::omnicloudmask conda-forge::fastai"
        ) from err

    timm_model = partial(
        timm.create_model,
        model_name=model_name,
        pretrained=False,
        in_chans=in_chans,
    )

    model = create_unet_model(
        arch=timm_model,
        n_out=n_out,
        img_size=(509, 509),
        act_cls=torch.nn.Mish,
        pretrained=False,
    )
    return model


# Room for a few configurations of the two default models, e.g. compiled for
# different patch sizes, so alternating between them doesn't reload or recompile
@lru_cache(maxsize=8)
def load_model_from_weights(
    model_name: str,
    weights_path: Union[Path, str],
    model_library: str,
    device: torch.device,
    dtype: torch.dtype = torch.float32,
    in_chans: int = 3,
    n_out: int = 4,
    compile_models: bool = False,
    patch_size: int | tuple[int, int] = 1000,
    batch_size: int = 1,
    compile_mode: str = "default",
) -> torch.nn.Module:
    """Build Fastai DynamicUnet model from timm model and load weights from file"""
    if model_library == "fastai":
        model = build_fastai_model(
            model_name=model_name, in_chans=in_chans, n_out=n_out
        )
    elif model_library == "smp":
        model = smp.Unet(
            encoder_name=model_name,
            encoder_weights=None,
            in_channels=in_chans,
            classes=n_out,
        )
    else:
        raise ValueError(
            f"Invalid model_library: {model_library}. Must be one of 'fastai' or 'smp'."
        )

    # If using the v2+ weights then the file will be saved as a .safetensors file
    if Path(weights_path).suffix == ".safetensors":
        model_state = load_file(weights_path)

    elif Path(weights_path).suffix == ".pth":
        model_state = torch.load(weights_path, weights_only=True)
    else:
        raise ValueError(
            "Unsupported file format. Only .safetensors and .pth files are supported."
        )
    model.load_state_dict(model_state)
    model.eval()

    model = model.to(device=device, dtype=dtype)

    if compile_models:
        model = compile_torch_model(
            model=model,
            patch_size=patch_size,
            batch_size=batch_size,
            dtype=dtype,
            device=device,
            compile_mode=compile_mode,
        )

    return model


class FixedBatchModel(torch.nn.Module):
    """Runs a model compiled for a fixed batch size, padding smaller batches with
    zeros and dropping their outputs, so every call has the same shape and the
    model is never recompiled for a short final batch."""

    def __init__(self, model: torch.nn.Module, batch_size: int) -> None:
        super().__init__()
        self.model = model
        self.batch_size = batch_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        count = x.shape[0]
        if count >= self.batch_size:
            return self.model(x)
        padding = x.new_zeros((self.batch_size - count, *x.shape[1:]))
        return self.model(torch.cat([x, padding]))[:count]


def compile_torch_model(
    model: torch.nn.Module,
    patch_size: int | tuple[int, int],
    batch_size: int,
    dtype: torch.dtype,
    device: torch.device,
    compile_mode: str,
) -> torch.nn.Module:
    """Compile a PyTorch model for inference on batches of batch_size, warming it
    up at patch_size, either square or (height, width).

    Shapes are static: dynamic shapes are slower than eager on MPS, and compiling
    every batch size from 1 to batch_size hits Dynamo's recompile limit above 8 on
    MPS. Smaller batches are padded to batch_size instead. A different patch size
    compiles a new graph.

    On MPS the model is patched before compiling, as checking a compiled model runs
    it at another shape, which would compile it again."""
    if isinstance(patch_size, int):
        patch_size = (patch_size, patch_size)

    model = patch_models_for_mps(
        [model], inference_device=device, inference_dtype=dtype
    )[0]

    try:
        # We use cast as torch.compile returns a Any, not a Module
        compiled_model = cast(
            torch.nn.Module,
            torch.compile(model, mode=compile_mode, fullgraph=False, dynamic=False),
        )
        dummy = torch.zeros((batch_size, 3, *patch_size), dtype=dtype, device=device)
        with torch.no_grad():
            _ = compiled_model(dummy)
        return FixedBatchModel(compiled_model, batch_size)
    except Exception as e:
        warnings.warn(
            f"Failed to compile model with torch.compile: {e}. "
            "Returning the original model without compilation.",
            stacklevel=2,
        )
        return model
