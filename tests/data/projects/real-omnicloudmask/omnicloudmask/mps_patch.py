import warnings

import torch
from torch.torch_version import TorchVersion


# This module contains MPS (Apple Silicon) patches for PyTorch models:
# Conv2d patch: Replaces Conv2d layers with MPS-safe versions that ensure inputs are contiguous  # noqa: E501
#    - Addresses RuntimeError: "view size is not compatible with input tensor's size and stride"  # noqa: E501
#    - Required for some model architectures (like timm EdgeNeXt) on MPS devices
#    - The bug affects torch 2.5 to 2.9 and is fixed in torch 2.10
#

# First torch version without the MPS bug, where the patch is never needed
MPS_BUG_FIXED_TORCH = (2, 10)


def torch_may_need_mps_fix(torch_version: str = torch.__version__) -> bool:
    """Whether this torch version may have the MPS contiguity bug, so models need
    checking with requires_mps_fix. Pre-releases of the fixed version count as
    affected."""
    return TorchVersion(torch_version) < MPS_BUG_FIXED_TORCH


def _get_model_in_channels(model: torch.nn.Module) -> int:
    """Get the number of input channels from the model's first Conv2d layer."""
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            return module.in_channels
    warnings.warn(
        "No Conv2d layer found in model, "
        "defaulting to 3 input channels for MPS compatibility check.",
        stacklevel=2,
    )
    return 3


def requires_mps_fix(
    model: torch.nn.Module, inference_device: torch.device, inference_dtype: torch.dtype
) -> bool:
    """
    Check if MPS fix is needed by testing the model for contiguity issues.
    Returns True if the MPS contiguity issue occurs, False otherwise
    """
    try:
        in_channels = _get_model_in_channels(model)
        test_input = torch.randn(
            1, in_channels, 65, 65, device=inference_device, dtype=inference_dtype
        )

        with torch.no_grad():
            _ = model(test_input)
        return False

    except RuntimeError as e:
        if "view size is not compatible" in str(e):
            return True  # MPS contiguity issue detected
        warnings.warn(
            f"Unexpected error during MPS compatibility check: {e}. "
            "Assuming model does not require MPS Conv2d patch.",
            stacklevel=2,
        )
        return False


class MPSSafeConv2d(torch.nn.Conv2d):
    """MPS-safe version of Conv2d that ensures inputs are contiguous"""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if input.device.type == "mps" and not input.is_contiguous():
            input = input.contiguous()
        return super().forward(input)


def patch_model_for_mps(
    model: torch.nn.Module, inference_device: torch.device, inference_dtype: torch.dtype
) -> torch.nn.Module:
    """
    Replace all Conv2d layers in a model with MPS-safe versions.
    This modifies the model in-place by changing the class of Conv2d layers.

    Args:
        model: The PyTorch model to patch

    Returns:
        The same model with Conv2d layers made MPS-safe
    """
    if not requires_mps_fix(
        model=model, inference_device=inference_device, inference_dtype=inference_dtype
    ):
        return model

    for _, module in model.named_modules():
        if isinstance(module, torch.nn.Conv2d) and not isinstance(
            module, MPSSafeConv2d
        ):
            module.__class__ = MPSSafeConv2d

    return model


def patch_models_for_mps(
    models: list[torch.nn.Module],
    inference_device: torch.device,
    inference_dtype: torch.dtype,
) -> list[torch.nn.Module]:
    """
    Patch multiple models for MPS compatibility

    Args:
        models: List of PyTorch models to patch

    Returns:
        List of patched models
    """
    if inference_device.type != "mps" or not torch_may_need_mps_fix():
        return models

    for model in models:
        patch_model_for_mps(
            model=model,
            inference_device=inference_device,
            inference_dtype=inference_dtype,
        )
    return models
