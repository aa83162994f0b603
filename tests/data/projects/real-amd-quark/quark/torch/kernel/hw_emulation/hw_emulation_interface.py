#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from functools import partial
from typing import Any

import torch
from packaging.version import Version
from torch._inductor.decomposition import register_decomposition
from torch.library import Library, impl
from torch.types import Number

from quark.common.data_type import BaseFP8_E5M3
from quark.common.utils.import_utils import TORCH_HIGHER_OR_EQUAL_2_7
from quark.common.utils.log import ScreenLogger, log_errors
from quark.torch.kernel.float8_e5m3 import (
    convert_fp32_to_e5m3_bits_func,
    dequantize_float8_e5m3_func,
    float32_qdq_to_float8_e5m3_func,
)
from quark.torch.kernel.hw_emulation.extensions import kernel_ext
from quark.torch.quantization.config.type import MX6, MX9, Dtype, QSchemeType
from quark.torch.quantization.utils import (
    calculate_qmin_qmax,
    even_round,
    get_dtype_params,
    reshape_to_blocks,
    t_exponent,
)
from quark.torch.utils import QUARK_AWQ_MEMORY_OPTIMIZATION, TRITON_GPU_SUPPORTS_FP8, assert_no_nan

# impl_abstract renamed to register_fake in PyTorch 2.4
# TODO: Remove this once we drop pytorch<=2.4 support.
if Version(torch.__version__) < Version("2.4.0"):  # pragma: no cover
    from torch.library import impl_abstract as register_fake
else:  # pragma: no cover
    from torch.library import register_fake

logger = ScreenLogger(__name__)

# NOTE: The default of PyTorch is 8 guard failures allowed with `fullgraph=True`, after that an error `torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with one_graph=True.` is raised.
# In the case of `scaled_fake_quantize`, the default of 8 is too small as there are guard failures for:
# - size mismatch (`size mismatch at index 2. expected 4096, actual 12288`, `size mismatch at index 0. expected 1, actual 64`), as specialization occurs in some cases (specifically, specialization on `1` and `>1`).
# - rank mismatch (`rank mismatch. expected 2, actual 3`, `tensor 'args[1]' rank mismatch. expected 3, actual 2`), as we pass both 2D weights and 3D inputs (and potentially 4D inputs!) into `scaled_fake_quantize`.
# - running under no_grad/with gradient (e.g. if QAT is run, and later `with torch.no_grad()` is used).
# - running different quantization specs that dispatch to different path within `scaled_fake_quantize`.
# - running with different devices (`tensor 'args[1]' Tensor device index mismatch. Expected device index to be 3, actual 5`).
# - using inputs as torch.Tensor (activation) or torch.nn.Parameter (weight), PyTorch bug. Reference: https://github.com/pytorch/pytorch/issues/165051 (`0/0: expected type of 'args[1]' to be a tensor type, ' but found <class 'torch.nn.parameter.Parameter'>`)
RECOMPILATION_LIMIT = 48 * max(1, torch.cuda.device_count())

# Dynamo raises `FailOnRecompileLimitHit` on whichever of its two limits is reached first, so both
# are raised here: `recompile_limit` (PyTorch default 8) and `accumulated_recompile_limit` (default
# 256). Raising only the former would still leave `scaled_fake_quantize` capped at 256, which
# `RECOMPILATION_LIMIT` exceeds from 6 devices up. The `max()` below keeps either limit from being
# lowered below its PyTorch default.
TORCH_DEFAULT_LIMITS: dict[str, int]
if Version(torch.__version__) >= Version("2.7"):
    TORCH_DEFAULT_LIMITS = {"recompile_limit": 8, "accumulated_recompile_limit": 256}
elif Version(torch.__version__) >= Version("2.5"):  # pragma: no cover
    TORCH_DEFAULT_LIMITS = {"cache_size_limit": 8, "accumulated_cache_size_limit": 256}
else:  # pragma: no cover
    TORCH_DEFAULT_LIMITS = {}


def raise_dynamo_recompilation_limits(target_limit: int = RECOMPILATION_LIMIT) -> None:
    """Raise every Dynamo limit in ``TORCH_DEFAULT_LIMITS`` that is still at its PyTorch default up to
    ``target_limit``. A limit the user set themselves is left alone: it is never lowered, and never
    raised either, only reported when it sits below what `scaled_fake_quantize` needs.

    Called at import; also called directly by the tests, which is why it is a function rather than a
    module-level loop.
    """
    for config_name, torch_default in TORCH_DEFAULT_LIMITS.items():
        current_limit = getattr(torch._dynamo.config, config_name)
        expected_limit = max(torch_default, target_limit)

        if current_limit == torch_default:
            setattr(torch._dynamo.config, config_name, expected_limit)
        elif current_limit < expected_limit:
            logger.warning(
                f"Detected user-specified torch._dynamo.config.{config_name}={current_limit}. This may be too small for AMD Quark needs that expects >={expected_limit} (as different quantization schemes, different devices may trigger `scaled_fake_quantize` recompilations), and may make AMD Quark fall back to the much slower non-compiled `scaled_fake_quantize`."
            )


raise_dynamo_recompilation_limits()

__all__ = [
    "quant_fp8_e4m3",
    "dequant_fp8_e4m3",
    "quant_fp8_e4m3_with_scale",
    "dequant_fp8_e4m3_with_scale",
    "quant_fp8_e5m2",
    "dequant_fp8_e5m2",
    "quant_fp8_e5m2_with_scale",
    "dequant_fp8_e5m2_with_scale",
    "scaled_fake_quantize",
]


def cast_to_float8_and_back(x: torch.Tensor, float8_dtype: torch.dtype) -> torch.Tensor:
    """
    Casting to float8 is broken with torch.compile with some torch versions with `torch<2.7`.

    This utility function bypasses the issue by guarding the bugged op to not be traced by `torch.compile` for `torch<2.7`.
    """
    x_dtype = x.dtype

    if TORCH_HIGHER_OR_EQUAL_2_7 and (
        x.device.type == "cpu" or (x.dtype not in {torch.float16, torch.bfloat16} and TRITON_GPU_SUPPORTS_FP8)
    ):
        return x.to(float8_dtype).to(x_dtype)
    elif float8_dtype == torch.float8_e4m3fn:
        # For torch<=2.7, casting to float8_e4m3fn is bugged (even on gfx942).
        # (CompilationError at `tmp8 = tmp7.to(tl.float8e4nv)`)
        # On gfx90a, float8_e4m3fn conversion is bugged as well:
        # ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e5',)
        # The tests
        # - test/test_for_torch/test_hf_export_import.py::test_fp8_inp_weight_out_import[real_quantized]
        # - test/test_for_torch/test_hf_export_import.py::test_fp8_kv_cache_import[real_quantized-no-kv]
        # - test/test_for_torch/test_hf_export_import.py::test_wfp8_int4perchannel_afp8_import[real_quantized]
        # do NOT pass when using `torch.compile` for the op `x.to(float8_dtype).to(x_dtype)` when `x_dtype` is torch.float16 or torch.bfloat16.
        # It seems like this cast with torch.compile is not deterministic, or has some issue that needs to be
        # investigated. As a temporary solution, to prioritize correctness, we do not use torch.compile for
        # this cast for these dtypes.
        return torch.ops.torch_guard.cast_to_float8_e4m3fn_and_back(x)
    elif float8_dtype == torch.float8_e5m2:
        # No issue with torch.float8_e5m2 on torch<=2.7.
        # No issue with torch.float8_e5m2 on gfx90a.
        return x.to(float8_dtype).to(x_dtype)
    else:
        raise ValueError(f"Wrong dtype={float8_dtype}")


def prepare_inputs_per_group(
    inputs: torch.Tensor, scale: torch.Tensor, axis: int, group_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """
    Ensures that the inputs and scale have the following shapes:

    * ``scale``: [-1, inputs.size(axis) // group_size, 1]
    * ``inputs```: [-1, inputs.size(axis) // group_size, group_size]

    For example, the input:
    * ``inputs`` of shape (256, 128, 64)
    * ``scale`` of shape (256, 4, 64)
    * ``axis=1``
    * ``group_size=32``

    gives ``inputs`` of shape (256 * 128, 4, 32)
          ``scale`` of shape (256 * 128, 4, 1)

    Passing the argument ``scales`` with the broadcasting dimension already present is accepted, for example:

    * ``inputs`` of shape (256, 128, 64)
    * ``scale`` of shape (8, 1, 128, 64)
    * ``axis=0``
    * ``group_size=32``

    gives ``inputs`` of shape (128 * 64, 8, 32)
          ``scale`` of shape (128 * 64, 8, 1)
    """
    inputs_ndim = inputs.ndim
    inputs = inputs.to(torch.float32)
    scale = scale.to(torch.float32)

    inputs = reshape_to_blocks(inputs, group_size, axis)

    # `reshape_to_blocks` reshapes to a 3D tensor [-1, axis_size // group_size, group_size].
    # For the scale, the `1` dimension should be the last. Remove the dim from
    # the scale tensor if it is already present.
    # `axis_positive` axis is expected to be of dimension `axis_size // group_size`.
    if scale.dim() == inputs_ndim + 1:
        axis_positive = (inputs_ndim + axis) % inputs_ndim
        scale = scale.squeeze(axis_positive + 1)

    # Move the group dimension to the end: [..., inputs.size(axis) // group_size, 1].
    scale = scale.transpose(axis, -1)
    scale = scale.unsqueeze(-1)

    # Finally, merge all dimensions except the end [inputs.size(axis) // group_size, 1].
    if scale.dim() > inputs.dim():
        scale = scale.reshape(-1, scale.shape[-2], scale.shape[-1])

    return inputs, scale


# namespace
quant_scope_lib = Library("quark", "DEF")

quant_scope_lib.define("quant_fp8_e4m3(Tensor x) -> Tensor")


@impl(quant_scope_lib, "quant_fp8_e4m3", "CompositeExplicitAutograd")
def quant_fp8_e4m3(inputs: torch.Tensor) -> torch.Tensor:
    inputs = torch.clamp(inputs, min=-448, max=448)
    return inputs.to(torch.float8_e4m3fn)


quant_scope_lib.define("quant_fp8_e5m2(Tensor x) -> Tensor")


@impl(quant_scope_lib, "quant_fp8_e5m2", "CompositeExplicitAutograd")
def quant_fp8_e5m2(inputs: torch.Tensor) -> torch.Tensor:
    inputs = torch.clamp(inputs, min=-57344, max=57344)
    return inputs.to(torch.float8_e5m2)


quant_scope_lib.define("dequant_fp8_e4m3(Tensor x) -> Tensor")


@impl(quant_scope_lib, "dequant_fp8_e4m3", "CompositeExplicitAutograd")
def dequant_fp8_e4m3(inputs: torch.Tensor) -> torch.Tensor:
    return inputs.to(torch.float16)


quant_scope_lib.define("dequant_fp8_e5m2(Tensor x) -> Tensor")


@impl(quant_scope_lib, "dequant_fp8_e5m2", "CompositeExplicitAutograd")
def dequant_fp8_e5m2(inputs: torch.Tensor) -> torch.Tensor:
    return inputs.to(torch.float16)


quant_scope_lib.define("quant_fp8_e4m3_with_scale(Tensor x, float scale) -> Tensor")


@impl(quant_scope_lib, "quant_fp8_e4m3_with_scale", "CompositeExplicitAutograd")
def quant_fp8_e4m3_with_scale(inputs: torch.Tensor, scale: float) -> torch.Tensor:
    inputs = inputs / scale
    inputs = torch.clamp(inputs, min=-448, max=448)
    return inputs.to(torch.float8_e4m3fn)


quant_scope_lib.define("quant_fp8_e5m2_with_scale(Tensor x, float scale) -> Tensor")


@impl(quant_scope_lib, "quant_fp8_e5m2_with_scale", "CompositeExplicitAutograd")
def quant_fp8_e5m2_with_scale(inputs: torch.Tensor, scale: float) -> torch.Tensor:
    inputs = inputs / scale
    inputs = torch.clamp(inputs, min=-57344, max=57344)
    return inputs.to(torch.float8_e5m2)


quant_scope_lib.define("dequant_fp8_e4m3_with_scale(Tensor x, float scale) -> Tensor")


@impl(quant_scope_lib, "dequant_fp8_e4m3_with_scale", "CompositeExplicitAutograd")
def dequant_fp8_e4m3_with_scale(inputs: torch.Tensor, scale: float) -> torch.Tensor:
    return inputs.to(torch.float16) * scale


quant_scope_lib.define("dequant_fp8_e5m2_with_scale(Tensor x, float scale) -> Tensor")


@impl(quant_scope_lib, "dequant_fp8_e5m2_with_scale", "CompositeExplicitAutograd")
def dequant_fp8_e5m2_with_scale(inputs: torch.Tensor, scale: float) -> torch.Tensor:
    return inputs.to(torch.float16) * scale


quant_scope_lib.define("quant_dequant_fp8_e4m3(Tensor x) -> Tensor")


@impl(quant_scope_lib, "quant_dequant_fp8_e4m3", "CompositeExplicitAutograd")
def quant_dequant_fp8_e4m3(inputs: torch.Tensor) -> torch.Tensor:
    inputs_type = inputs.dtype
    inputs = torch.clamp(inputs, min=-448, max=448)
    outputs = (inputs).to(torch.float8_e4m3fn).to(inputs_type)
    return outputs


quant_scope_lib.define("quant_dequant_fp8_e5m2(Tensor x) -> Tensor")


@impl(quant_scope_lib, "quant_dequant_fp8_e5m2", "CompositeExplicitAutograd")
def quant_dequant_fp8_e5m2(inputs: torch.Tensor) -> torch.Tensor:
    inputs_type = inputs.dtype
    inputs = torch.clamp(inputs, min=-57344, max=57344)
    outputs = (inputs).to(torch.float8_e5m2).to(inputs_type)
    return outputs


quant_scope_lib.define(
    "scaled_fake_quantize(str quant_dtype, Tensor inputs, Tensor scale, Tensor zero_point, SymInt axis, SymInt group_size, float quant_min, float quant_max, SymInt round_mode, str qscheme, str mx_element_dtype) -> Tensor"
)


@impl(quant_scope_lib, "scaled_fake_quantize", "CompositeExplicitAutograd")
def scaled_fake_quantize(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: float,
    quant_max: float,
    round_mode: int,
    qscheme: str,
    mx_element_dtype: str,
) -> torch.Tensor:
    return scaled_fake_quantize_impl(
        quant_dtype,
        inputs,
        scale,
        zero_point,
        axis,
        group_size,
        quant_min,
        quant_max,
        round_mode,
        qscheme,
        mx_element_dtype,
    )


@register_fake("quark::scaled_fake_quantize")
def _(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: float,
    quant_max: float,
    round_mode: int,
    qscheme: str,
    mx_element_dtype: str,
) -> torch.Tensor:
    return torch.empty_like(inputs)


@register_decomposition(torch.ops.quark.scaled_fake_quantize)
def scaled_fake_quantize_impl(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: float,
    quant_max: float,
    round_mode: int,
    qscheme: str,
    mx_element_dtype: str,
) -> torch.Tensor:
    if quant_dtype not in DTYPE_TO_FAKE_QUANTIZE_FUNCS:
        raise ValueError(f"Unsupported Quant Data Type: {quant_dtype}")  # pragma: no cover

    return DTYPE_TO_FAKE_QUANTIZE_FUNCS[quant_dtype](  # type: ignore[operator]
        inputs,
        scale=scale,
        zero_point=zero_point,
        axis=axis,
        group_size=group_size,
        quant_min=quant_min,
        quant_max=quant_max,
        round_mode=round_mode,
        qscheme=qscheme,
        quant_dtype=quant_dtype,
        mx_element_dtype=mx_element_dtype,
    )


quant_scope_lib.define(
    'non_scaled_fake_quantize(Tensor input_tensor, str quant_dtype, str mx_element_dtype, SymInt axis, SymInt block_size, str scale_calculation_mode="even") -> Tensor'
)


@impl(quant_scope_lib, "non_scaled_fake_quantize", "CompositeExplicitAutograd")
def non_scaled_fake_quantize(
    input_tensor: torch.Tensor,
    quant_dtype: str,
    mx_element_dtype: str,
    axis: int,
    block_size: int,
    scale_calculation_mode: str = "even",
) -> torch.Tensor:
    return non_scaled_fake_quantize_impl(
        input_tensor, quant_dtype, mx_element_dtype, axis, block_size, scale_calculation_mode
    )


@register_fake("quark::non_scaled_fake_quantize")
def _(
    input_tensor: torch.Tensor,
    quant_dtype: str,
    mx_element_dtype: str,
    axis: int,
    block_size: int,
    scale_calculation_mode: str = "even",
) -> torch.Tensor:
    return torch.empty_like(input_tensor)


@register_decomposition(torch.ops.quark.non_scaled_fake_quantize)
def non_scaled_fake_quantize_impl(
    input_tensor: torch.Tensor,
    quant_dtype: str,
    mx_element_dtype: str,
    axis: int,
    block_size: int,
    scale_calculation_mode: str = "even",
) -> torch.Tensor:
    if quant_dtype not in DTYPE_TO_NON_SCALED_FAKE_QUANTIZE_FUNCS:
        logger.error(f"Unsupported Quant Data Type: {quant_dtype}")  # pragma: no cover

    if quant_dtype == Dtype.mx.value:
        fake_quantize_func = partial(fake_quantize_mx, scale_calculation_mode=scale_calculation_mode)
    else:
        fake_quantize_func = DTYPE_TO_NON_SCALED_FAKE_QUANTIZE_FUNCS[quant_dtype]  # type: ignore[assignment]

    return fake_quantize_func(
        input_tensor=input_tensor,
        quant_dtype=quant_dtype,
        mx_element_dtype=mx_element_dtype,
        axis=axis,
        block_size=block_size,
    )


# Custom ops used to avoid dynamo entering into certain non-compatible ops.
torch_guard_lib = Library("torch_guard", "DEF")


def fake_quantize_int(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    zero_point: torch.Tensor | None = None,
    axis: int | None = None,
    group_size: int | None = None,
    quant_min: float | None = None,
    quant_max: float | None = None,
    round_mode: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    quant_min = int(quant_min)
    quant_max = int(quant_max)
    if qscheme == QSchemeType.per_tensor.value:
        return fake_quantize_int_per_tensor_affine(inputs, scale, zero_point, quant_min, quant_max, round_mode)
    elif qscheme == QSchemeType.per_channel.value:
        return fake_quantize_int_per_channel_affine(inputs, scale, zero_point, axis, quant_min, quant_max, round_mode)
    elif qscheme == QSchemeType.per_group.value:
        return fake_quantize_int_per_group_affine(
            inputs, scale, zero_point, axis, group_size, quant_min, quant_max, round_mode
        )
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def fake_quantize_fp8_e4m3(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    group_size: int | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return fake_quantize_fp8_e4m3_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return fake_quantize_fp8_e4m3_per_channel_with_scale(inputs, scale, axis)
    elif qscheme == QSchemeType.per_group.value:
        return fake_quantize_fp8_per_group_with_scale(inputs, scale, axis, group_size, fp8_dtype=torch.float8_e4m3fn)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def fake_quantize_fp8_e5m2(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    group_size: int | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return fake_quantize_fp8_e5m2_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return fake_quantize_fp8_e5m2_per_channel_with_scale(inputs, scale, axis)
    elif qscheme == QSchemeType.per_group.value:
        return fake_quantize_fp8_per_group_with_scale(inputs, scale, axis, group_size, fp8_dtype=torch.float8_e5m2)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def scaled_fake_quantize_fp8_e5m3(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    group_size: int | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    """Fake quantize to FP8 E5M3 format with scaling.

    Currently only supports per-tensor quantization scheme.
    E5M3 format is unsigned (no sign bit) with range [0, 114688.0].
    """
    if qscheme == QSchemeType.per_tensor.value:
        return fake_quantize_fp8_e5m3_per_tensor_with_scale(inputs, scale)
    else:
        raise NotImplementedError(
            f"Unsupported qscheme={qscheme} for quant_dtype={quant_dtype}. Only per_tensor is supported for fp8_e5m3. Please open an issue."
        )


# Required to bypass:
# (EngineCore_DP0 pid=493927) RuntimeError: Cannot access data pointer of Tensor (e.g. FakeTensor, FunctionalTensor). If you're using torch.compile/export/fx, it is likely that we are erroneously tracing into a custom kernel. To fix this, please wrap the custom kernel into an opaque custom op. Please see the following for details: https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html
# (EngineCore_DP0 pid=493927) While executing %scaled_fake_quantize : [num_users=1] = call_function[target=torch.ops.quark.scaled_fake_quantize](args = (fp8_e5m3, %masked_fill, None, %tensor, -1, 1, 0.0, 114688.0, 2, per_group, None), kwargs = {})
torch_guard_lib.define("_float32_qdq_to_float8_e5m3_func(Tensor inputs) -> Tensor")


@impl(torch_guard_lib, "_float32_qdq_to_float8_e5m3_func", "CompositeExplicitAutograd")
def _float32_qdq_to_float8_e5m3_func(inputs: torch.Tensor) -> torch.Tensor:
    return float32_qdq_to_float8_e5m3_func(inputs)


@register_fake("torch_guard::_float32_qdq_to_float8_e5m3_func")
def _(inputs: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(inputs)


def fake_quantize_float8_e5m3(
    input_tensor: torch.Tensor,
    **kwargs: Any,
) -> torch.Tensor:
    if input_tensor.dtype not in [torch.float32, torch.float16, torch.bfloat16]:
        raise ValueError(
            f"fake_quantize_float8_e5m3 input must be float32, float16, or bfloat16, got {input_tensor.dtype}."
        )

    original_dtype = input_tensor.dtype

    # We use float32 for processing here.
    # TODO: implement direct BF16/FP16 processing, instead of casting to float32.
    inputs_f32 = input_tensor.to(torch.float32)

    output = torch.ops.torch_guard._float32_qdq_to_float8_e5m3_func(inputs_f32)

    return output.to(original_dtype)


def fake_quantize_fp8_per_group_with_scale(
    input_tensor: torch.Tensor, scale: torch.Tensor, axis: int, group_size: int, fp8_dtype: torch.dtype, **kwargs: Any
) -> torch.Tensor:
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    input_dtype = input_tensor.dtype
    input_tensor = input_tensor.to(torch.float32)
    scale = scale.to(torch.float32)

    input_tensor = reshape_to_blocks(input_tensor, group_size, axis)
    if scale.dim() < input_tensor.dim():
        scale = scale.unsqueeze(-1)

    input_tensor = input_tensor / scale

    quark_dtype = Dtype.from_torch_dtype(fp8_dtype)
    quant_min, quant_max = calculate_qmin_qmax(quark_dtype)
    input_tensor = torch.clamp(input_tensor, quant_min, quant_max)

    output_tensor = cast_to_float8_and_back(input_tensor, float8_dtype=fp8_dtype)
    output_tensor = output_tensor * scale

    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape).to(input_dtype)
    if scale.dim() > output_tensor.dim():
        scale = scale.squeeze(-1)
    assert_no_nan(output_tensor, message="fake_quantize_fp8_per_group_with_scale output_tensor contains NaN!")
    return output_tensor.transpose(axis, -1)


def fake_quantize_fp4_fp6(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    group_size: int | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return fake_quantize_fp4_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return fake_quantize_fp4_fp6_per_channel_with_scale(inputs, scale, axis, quant_dtype)
    elif qscheme == QSchemeType.per_group.value:
        return fake_quantize_fp4_fp6_per_group_with_scale(inputs, scale, axis, group_size, quant_dtype, **kwargs)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def fake_quantize_fp4_per_tensor_with_scale(inputs: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError(
        "FP4 per-tensor fake quantization is not yet implemented. "
        "Use per-group quantization (QSchemeType.per_group) instead."
    )


def fake_quantize_fp4_fp6_per_channel_with_scale(
    inputs: torch.Tensor, scale: torch.Tensor, axis: int, quant_dtype: str
) -> torch.Tensor:
    inputs_type = inputs.dtype
    dtype = Dtype.from_str(quant_dtype)
    ebits, mbits, _ = get_dtype_params(dtype)
    _, quant_max = calculate_qmin_qmax(dtype)
    scale = scale.masked_fill(scale == 0.0, torch.finfo(torch.float32).eps).to(inputs_type).to(inputs.device)
    if axis >= 0:
        for k in range(inputs.dim() - axis - 1):
            scale = scale.unsqueeze(-1)
    else:
        for k in range(-1 - axis):
            scale = scale.unsqueeze(-1)
    inputs = inputs / scale
    qinputs = torch.ops.quark.fake_quantize_to_low_precision_fp(inputs.contiguous(), ebits, mbits, quant_max, 0)

    # NOTE: This can not be done in-place, as otherwise raises:
    # torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
    # AssertionError: aot_autograd expected to have an entirely functional graph, but found %mul_ : [num_users=1] = call_function[target=torch.ops.aten.mul_.Tensor](args = (%fake_quantize_to_low_precision_fp, %where), kwargs = {})
    outputs = qinputs * scale

    return outputs.to(inputs.dtype)


def fake_quantize_fp4_fp6_per_group_with_scale(
    input_tensor: torch.Tensor,
    scale: torch.Tensor,
    axis: int,
    group_size: int,
    quant_dtype: str | None,
    **kwargs: Any,
) -> torch.Tensor:
    input_shape = list(input_tensor.shape)

    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    ebits, mbits, _ = get_dtype_params(quant_dtype)
    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    input_dtype = input_tensor.dtype
    input_tensor = input_tensor.to(torch.float32)
    scale = scale.to(torch.float32)

    input_tensor = reshape_to_blocks(input_tensor, group_size, axis)
    if scale.dim() < input_tensor.dim():
        scale = scale.unsqueeze(-1)

    max_exp = pow(2.0, ebits) - 1
    offset_exp = pow(2.0, ebits - 1) - 1
    quant_max = pow(2.0, max_exp - offset_exp) * (1 + (pow(2.0, mbits) - 1) / (pow(2.0, mbits)))

    input_tensor = input_tensor / scale

    output_tensor = torch.ops.quark.fake_quantize_to_low_precision_fp(input_tensor, ebits, mbits, quant_max, 0)

    # NOTE: This can not be done in-place, as otherwise raises:
    # torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
    # AssertionError: aot_autograd expected to have an entirely functional graph, but found %mul_ : [num_users=1] = call_function[target=torch.ops.aten.mul_.Tensor](args = (%fake_quantize_to_low_precision_fp, %where), kwargs = {})
    output_tensor = output_tensor * scale

    # We can not simply reshape to `(output_tensor.size(0), -1)` because
    # in some cases the first dimension may be 0-sized, resulting in
    # the error `cannot reshape tensor of 0 elements into shape [0, -1]`.
    # This is e.g. the case with mixtral and qwen2_moe before
    # https://github.com/huggingface/transformers/pull/32429,
    # i.e. with transformers<=4.51.
    output_tensor = output_tensor.reshape(output_tensor.size(0), output_tensor.shape[1:].numel())

    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape).to(input_dtype)

    if scale.dim() > output_tensor.dim():
        scale = scale.squeeze(-1)

    return output_tensor.transpose(axis, -1)


# `test/test_for_torch/test_realq_deq.py::test_fp16_per_channel_quantize_axis_range`
# `torch.equal` otherwise does not exactly pass. There is not much to fuse anyway.
torch_guard_lib.define("_fake_quantize_with_dtype_convert(Tensor inputs, str quant_dtype) -> Tensor")


@impl(torch_guard_lib, "_fake_quantize_with_dtype_convert", "CompositeExplicitAutograd")
def _fake_quantize_with_dtype_convert(inputs: torch.Tensor, quant_dtype: str) -> torch.Tensor:
    quant_torch_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(quant_dtype)
    input_origin_type = inputs.dtype
    if input_origin_type != quant_torch_dtype:
        inputs = inputs.to(quant_torch_dtype)
        inputs = inputs.to(input_origin_type)
    return inputs


@register_fake("torch_guard::_fake_quantize_with_dtype_convert")
def _(inputs: torch.Tensor, quant_dtype: str) -> torch.Tensor:
    return torch.empty_like(inputs)


def fake_quantize_with_dtype_convert(
    inputs: torch.Tensor, quant_dtype: str | None = None, **kwargs: Any
) -> torch.Tensor:
    return torch.ops.torch_guard._fake_quantize_with_dtype_convert(inputs, quant_dtype)


def fake_quantize_fp8_per_tensor_with_scale(
    inputs: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype, max_value: Number
) -> torch.Tensor:
    inputs = inputs / scale
    inputs = torch.clamp(inputs, min=-max_value, max=max_value)

    inputs = cast_to_float8_and_back(inputs, float8_dtype=dtype) * scale

    return inputs


fake_quantize_fp8_e4m3_per_tensor_with_scale = partial(
    fake_quantize_fp8_per_tensor_with_scale, dtype=torch.float8_e4m3fn, max_value=448
)
fake_quantize_fp8_e5m2_per_tensor_with_scale = partial(
    fake_quantize_fp8_per_tensor_with_scale, dtype=torch.float8_e5m2, max_value=57344
)


def fake_quantize_fp8_e5m3_per_tensor_with_scale(inputs: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Fake quantize to FP8 E5M3 format with per-tensor scale.

    E5M3 is unsigned (no sign bit), so we clamp to [0, max_value].
    We use the custom E5M3 quantization/dequantization implementation.
    """
    original_dtype = inputs.dtype

    # Convert to float32 for E5M3 quantization
    inputs = inputs.to(torch.float32)
    scale_f32 = scale.to(torch.float32)

    # Scale the input
    inputs = inputs / scale_f32

    # Apply E5M3 quantization and dequantization
    output = torch.ops.torch_guard._float32_qdq_to_float8_e5m3_func(inputs)

    # Scale back and restore original dtype
    output = output * scale_f32

    return output.to(original_dtype)


def fake_quantize_fp8_per_channel_with_scale(
    inputs: torch.Tensor, scale: torch.Tensor, axis: int, dtype: torch.dtype, max_value: Number
) -> torch.Tensor:
    inputs_dtype = inputs.dtype
    scale = scale.to(inputs_dtype).to(inputs.device)
    if axis >= 0:
        for k in range(inputs.dim() - axis - 1):
            scale = scale.unsqueeze(-1)
    else:
        for k in range(-1 - axis):
            scale = scale.unsqueeze(-1)
    inputs = inputs / scale
    inputs = torch.clamp(inputs, min=-max_value, max=max_value)

    inputs = cast_to_float8_and_back(inputs, float8_dtype=dtype) * scale

    return inputs


fake_quantize_fp8_e4m3_per_channel_with_scale = partial(
    fake_quantize_fp8_per_channel_with_scale, dtype=torch.float8_e4m3fn, max_value=448
)
fake_quantize_fp8_e5m2_per_channel_with_scale = partial(
    fake_quantize_fp8_per_channel_with_scale, dtype=torch.float8_e5m2, max_value=57344
)

# Operations using kernels from `kernel_ext` can not be traced into by inductor.
# As the decorator `@torch.compiler.disable` either fails to prevent inductor attempting to enter them, or prevents to use `fullgraph=True`, we instead define
# custom ops wrapping `kernel_ext` operations to prevent torch.compile to inspect
# them.
# Reference: # Reference: https://github.com/pytorch/pytorch/issues/156322#issuecomment-2996141115
quant_scope_lib.define(
    "fake_quantize_per_tensor_affine(Tensor inputs, Tensor scale, Tensor zero_point, float quant_min, float quant_max, int round_mode) -> Tensor"
)


@impl(quant_scope_lib, "fake_quantize_per_tensor_affine", "CompositeExplicitAutograd")
def fake_quantize_per_tensor_affine(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    quant_min: float,
    quant_max: float,
    round_mode: int,
) -> torch.Tensor:
    quant_min = int(quant_min)
    quant_max = int(quant_max)
    return kernel_ext.fake_quantize_per_tensor_affine(inputs, scale, zero_point, quant_min, quant_max, round_mode)


@register_fake("quark::fake_quantize_per_tensor_affine")
def _(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    quant_min: float,
    quant_max: float,
    round_mode: int,
) -> torch.Tensor:
    return torch.empty_like(inputs)


torch_guard_lib.define(
    "fake_quantize_per_tensor_affine_guard(Tensor inputs, Tensor scale, Tensor zero_point, int quant_min, int quant_max) -> Tensor"
)


@impl(torch_guard_lib, "fake_quantize_per_tensor_affine_guard", "CompositeExplicitAutograd")
def fake_quantize_per_tensor_affine_guard(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, quant_min: int, quant_max: int
) -> torch.Tensor:
    # `torch.fake_quantize_per_tensor_affine` can not be traced into by inductor with the error `Backend compiler `inductor` failed with aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default`.
    # Thus, we guard it in a custom op.
    # Reference: https://github.com/pytorch/pytorch/issues/156322#issuecomment-2996141115
    return torch.fake_quantize_per_tensor_affine(inputs, scale, zero_point, quant_min, quant_max)


@register_fake("torch_guard::fake_quantize_per_tensor_affine_guard")
def _(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, quant_min: float, quant_max: float
) -> torch.Tensor:
    return torch.empty_like(inputs)


torch_guard_lib.define(
    "fake_quantize_per_channel_affine_guard("
    "Tensor inputs, Tensor scale, Tensor zero_point, int axis, int quant_min, int quant_max"
    ") -> Tensor"
)


@impl(torch_guard_lib, "fake_quantize_per_channel_affine_guard", "CompositeExplicitAutograd")
def fake_quantize_per_channel_affine_guard(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    quant_min: int,
    quant_max: int,
) -> torch.Tensor:
    # On PyTorch 2.10 ROCm, inductor can fail to trace this op with:
    # `Backend compiler 'inductor' failed with aten.fake_quantize_per_channel_affine_cachemask.default`.
    # Guard it the same way as the per-tensor variant.
    return torch.fake_quantize_per_channel_affine(inputs, scale, zero_point, axis, quant_min, quant_max)


@register_fake("torch_guard::fake_quantize_per_channel_affine_guard")
def _(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    quant_min: float,
    quant_max: float,
) -> torch.Tensor:
    return torch.empty_like(inputs)


# See the comment in `fake_quantize_fp8_per_tensor_with_scale` for the reason this custom operator is defined.
torch_guard_lib.define("cast_to_float8_e4m3fn_and_back(Tensor inputs) -> Tensor")


@impl(torch_guard_lib, "cast_to_float8_e4m3fn_and_back", "CompositeExplicitAutograd")
def cast_to_float8_e4m3fn_and_back(inputs: torch.Tensor) -> torch.Tensor:
    inputs_dtype = inputs.dtype
    return inputs.to(torch.float8_e4m3fn).to(inputs_dtype)


@register_fake("torch_guard::cast_to_float8_e4m3fn_and_back")
def _(inputs: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(inputs)


# NOTE: `@torch.compiler.disable` does not work when using `register_decomposition` as we do.
# As a workaround, we register as custom ops the functions which can not be traced into.
def fake_quantize_int_per_tensor_affine(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, quant_min: int, quant_max: int, round_mode: int
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    if kernel_ext is not None and inputs.device != torch.device("cpu"):
        if scale.device != inputs.device:
            scale = scale.to(inputs.device)
        if zero_point.device != inputs.device:
            zero_point = zero_point.to(inputs.device)
        inputs = inputs.contiguous()
        res = torch.ops.quark.fake_quantize_per_tensor_affine(
            inputs, scale, zero_point, quant_min, quant_max, round_mode
        )
    else:
        res = torch.ops.torch_guard.fake_quantize_per_tensor_affine_guard(
            inputs, scale, zero_point, quant_min, quant_max
        )

    if inputs_type != res.dtype:
        res = res.to(inputs_type)
    if scale_type != scale.dtype:
        scale = scale.to(scale_type)
    return res


def fake_quantize_per_channel_affine(
    input: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, axis: int, quant_min: int, quant_max: int
) -> torch.Tensor:
    """
    Implements ``torch.fake_quantize_per_channel_affine`` (https://docs.pytorch.org/docs/stable/generated/torch.fake_quantize_per_channel_affine.html).

    The function ``torch.fake_quantize_per_channel_affine`` does not support CUDA Graph, but this one does.
    """
    # Currently torch.fake_quantize_per_channel_affine saves more gpu memory
    if QUARK_AWQ_MEMORY_OPTIMIZATION:
        return torch.ops.torch_guard.fake_quantize_per_channel_affine_guard(
            input, scale, zero_point, axis, quant_min, quant_max
        )
    unsqueeze_slice = (None,) * axis + (...,) + (None,) * (input.ndim - axis - 1)
    scale = scale[unsqueeze_slice]
    zero_point = zero_point[unsqueeze_slice]

    # PyTorch uses an aten::mul operation to divide by the scale in its implementation: https://github.com/pytorch/pytorch/blob/v2.7.1/aten/src/ATen/native/quantized/cuda/FakeQuantizeCore.cu#L186.
    # In order to have matching logits compared to `torch.fake_quantize_per_channel_affine`, we use an aten::div followed by an aten::mul op as well here.
    # Check for bounds of scale to avoid NaN/Inf in the output.
    scale_min = torch.finfo(scale.dtype).tiny
    scale = torch.clamp(scale, min=scale_min)
    inv_scale = 1.0 / scale

    # PyTorch uses `std::nearbyint(input_val * inv_scale) + zero_point`. This may yield different results than `std::nearbyint(input_val * inv_scale + zero_point)`, one needs to be extra careful here.
    # Reference: https://github.com/pytorch/pytorch/issues/49779.
    q_x = torch.clamp(torch.round(input * inv_scale) + zero_point, quant_min, quant_max)
    qdq_x = (q_x - zero_point) * scale
    return qdq_x


def fake_quantize_int_per_channel_affine(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    quant_min: int,
    quant_max: int,
    round_mode: int,
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    # We do not use `torch.fake_quantize_per_channel_affine` as this operator does not support CUDA Graph capture.
    # Reference: https://github.com/pytorch/pytorch/issues/155231.
    res = fake_quantize_per_channel_affine(inputs, scale, zero_point, axis, quant_min, quant_max)

    if inputs_type != res.dtype:
        res = res.to(inputs_type)
    if scale_type != scale.dtype:
        scale = scale.to(scale_type)
    return res


def fake_quantize_int_per_group_affine(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: int,
    quant_max: int,
    round_mode: int,
) -> torch.Tensor:
    # Reshape input tensor to [-1, group_size] and then use per channel kernel"
    inputs_dim = inputs.size()
    new_axis_list = [i for i in range(len(inputs_dim))]  # noqa: C416

    new_axis_list[axis] = -1
    new_axis_list[-1] = axis

    inputs = inputs.permute(new_axis_list)
    inputs_shape = inputs.shape
    if group_size > 0:
        inputs = inputs.reshape(-1, group_size)

    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    # We do not use `torch.fake_quantize_per_channel_affine` as this operator does not support CUDA Graph capture.
    # Reference: https://github.com/pytorch/pytorch/issues/155231.
    res = fake_quantize_per_channel_affine(inputs, scale.reshape(-1), zero_point.reshape(-1), 0, quant_min, quant_max)

    if inputs_type != res.dtype:
        res = res.to(inputs_type)
    if scale_type != scale.dtype:
        scale = scale.to(scale_type)

    # Reshape back input tensor
    res = res.reshape(inputs_shape).permute(new_axis_list)
    return res


def fake_quantize_bfp16(input_tensor: torch.Tensor, axis: int, block_size: int, **kwargs: Any) -> torch.Tensor:
    block_size = 8
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]
    eps = torch.finfo(torch.float32).eps

    block_x = reshape_to_blocks(input_tensor.detach(), block_size, axis)  # type: ignore
    block_x = block_x.nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
    amax, _ = torch.max(torch.abs(block_x), dim=-1)

    scale = torch.pow(2, torch.floor(torch.log2(amax)) - 6)
    scale = scale.masked_fill(scale == 0.0, eps)
    zero_point = torch.zeros_like(scale).to(torch.int32)

    quantized_block_x_int = fake_quantize_int(
        inputs=block_x,
        scale=scale,
        zero_point=zero_point,
        axis=-1,
        group_size=block_size,
        quant_min=-129,
        quant_max=128,
        qscheme=QSchemeType.per_group.value,
    ) / scale.unsqueeze(-1)
    bool_mask = torch.logical_or(quantized_block_x_int >= 128, quantized_block_x_int < -128)
    scale_adjust = torch.pow(2, torch.any(bool_mask, dim=-1).to(torch.float32))
    amax *= scale_adjust

    scale = torch.pow(2, torch.floor(torch.log2(amax)) - 6)
    scale = scale.masked_fill(scale == 0.0, eps)
    zero_point = torch.zeros_like(scale).to(torch.int32)

    output_tensor = fake_quantize_int(
        inputs=block_x,
        scale=scale,
        zero_point=zero_point,
        axis=-1,
        group_size=block_size,
        quant_min=-128,
        quant_max=127,
        qscheme=QSchemeType.per_group.value,
    )

    output_tensor = output_tensor.reshape(-1, output_tensor.size(-1) * output_tensor.size(-2))[:, : input_shape[-1]]
    output_tensor = output_tensor.reshape(input_shape)
    return output_tensor.transpose(axis, -1)


def fake_quantize_mx(
    input_tensor: torch.Tensor, axis: int, block_size: int, scale_calculation_mode: str = "even", **kwargs: Any
) -> torch.Tensor:
    mx_element_dtype = kwargs["mx_element_dtype"]
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    block_x = reshape_to_blocks(input_tensor.detach(), block_size, axis)
    amax, _ = torch.max(torch.abs(block_x), dim=-1, keepdim=True)
    ebits, mbits, emax = get_dtype_params(mx_element_dtype)
    if scale_calculation_mode == "floor":
        scale = torch.pow(2, torch.floor(torch.log2(amax)) - emax)
    elif scale_calculation_mode == "ceil":
        scale = torch.pow(2, torch.ceil(torch.log2(amax)) - emax)
    else:
        scale = even_round(amax, Dtype(mx_element_dtype))
    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    element_dtype = Dtype(mx_element_dtype)

    input_dtype = input_tensor.dtype
    input_tensor = input_tensor.to(torch.float32)
    scale = scale.to(torch.float32)

    input_tensor = reshape_to_blocks(input_tensor, block_size, axis)

    # convert input_tensor to different element_dtypes
    if element_dtype == Dtype.int8:
        output_tensor = fake_quantize_int_per_group_affine(
            inputs=input_tensor,
            scale=scale / 64,
            zero_point=torch.zeros_like(scale),
            axis=-1,
            group_size=block_size,
            quant_min=-127,
            quant_max=127,
            round_mode=0,
        )
    elif element_dtype == Dtype.fp8_e4m3:
        output_tensor = fake_quantize_fp8_e4m3_per_channel_with_scale(inputs=input_tensor, scale=scale, axis=-1)
    elif element_dtype == Dtype.fp8_e5m2:
        output_tensor = fake_quantize_fp8_e5m2_per_channel_with_scale(inputs=input_tensor, scale=scale, axis=-1)
    elif element_dtype in [Dtype.fp4, Dtype.fp6_e3m2, Dtype.fp6_e2m3]:
        # bias mode: ieee_wo_inf_and_nan
        quant_bit_e, quant_bit_m, _ = get_dtype_params(element_dtype)
        max_exp = pow(2.0, quant_bit_e) - 1
        offset_exp = pow(2.0, quant_bit_e - 1) - 1
        quant_max = pow(2.0, max_exp - offset_exp) * (1 + (pow(2.0, quant_bit_m) - 1) / (pow(2.0, quant_bit_m)))

        input_tensor = input_tensor / scale
        output_tensor = torch.ops.quark.fake_quantize_to_low_precision_fp(
            input_tensor.contiguous(), ebits, mbits, quant_max, 0
        )

        # NOTE: This can not be done in-place, as otherwise raises:
        # torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
        # AssertionError: aot_autograd expected to have an entirely functional graph, but found %mul_ : [num_users=1] = call_function[target=torch.ops.aten.mul_.Tensor](args = (%fake_quantize_to_low_precision_fp, %where), kwargs = {})
        output_tensor = output_tensor * scale
    else:
        raise ValueError(f"unsupported element dtype : {element_dtype}")  # pragma: no cover

    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape).to(input_dtype)
    return output_tensor.transpose(axis, -1)


def _compute_mx_exponents(
    input_tensor: torch.Tensor, axis: int, block_size: int, sub_block_size: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Compute the two-level MicroeXponent exponents shared by the MX6/MX9 fake and real paths.

    Returns ``(blocked_input, max_exp, shared_exp, sub_shift_bits)``, where ``blocked_input`` is
    ``input_tensor`` reshaped to ``(rows, num_blocks, block_size)``, ``max_exp`` is the block
    exponent with shape ``(rows, num_blocks, 1)``, ``sub_shift_bits`` is the 0/1 shift of each
    sub-block with shape ``(rows, num_blocks, block_size // sub_block_size)``, and ``shared_exp``
    is ``max_exp`` minus that shift, broadcast back over every element of the block.
    """
    # Subnormals all report exponent -127 from the IEEE exponent field, so the step derived
    # from them is meaningless. Flush them, as the ONNX kernel and the hardware do.
    smallest_normal = torch.finfo(input_tensor.dtype).smallest_normal
    input_tensor = torch.where(input_tensor.abs() < smallest_normal, 0.0, input_tensor)

    block_x = reshape_to_blocks(input_tensor.detach(), block_size, axis)

    # NOTE: This can not be done in-place with Tensor._nan_to_num, as otherwise raises:
    # torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
    # AssertionError: aot_autograd expected to have an entirely functional graph=
    block_x = torch.nan_to_num(block_x, nan=0.0, posinf=0.0, neginf=0.0)

    amax, _ = torch.max(torch.abs(block_x), dim=-1, keepdim=True)
    max_exp = t_exponent(amax)

    blocked_input = reshape_to_blocks(input_tensor, block_size, axis)

    t_exp = t_exponent(blocked_input)
    idx2 = max_exp - t_exp >= 1

    # shared prime bit
    assert idx2.shape[-1] % sub_block_size == 0
    old_shape = idx2.shape
    target_shape = old_shape[0:-1] + (old_shape[-1] // sub_block_size, sub_block_size)
    idx2 = idx2.reshape(target_shape)
    # A sub-block shifts only when every one of its elements sits below the block exponent.
    sub_shift_bits = torch.sum(idx2, -1, keepdim=True) == sub_block_size
    repeat_times = [1 for _ in range(len(sub_shift_bits.shape))]
    repeat_times[-1] = sub_block_size
    idx2 = sub_shift_bits.repeat(repeat_times).reshape(old_shape)

    shared_exp = idx2 * (-1) + max_exp

    return blocked_input, max_exp, shared_exp, sub_shift_bits.squeeze(-1)


def _mx6_mx9_codes(
    blocked_input: torch.Tensor, shared_exp: torch.Tensor, quant_bit: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Round a blocked input to MX6/MX9 integer codes, returning ``(codes, scale)``.

    Dequantizing is ``codes * scale``, which is what ``fake_quantize_mx6_mx9`` returns.
    """
    scale = torch.pow(2.0, shared_exp - quant_bit + 2)

    # The element field is quant_bit bits wide including the sign, and an element is encoded
    # against its own sub-block's step, so the bound is this constant rather than something
    # derived from max_exp -- which was one bit too loose wherever the sub-block shift fired.
    quant_max = float(2 ** (quant_bit - 1) - 1)

    codes = torch.round(blocked_input / scale)
    codes = torch.clamp(codes, -quant_max, quant_max)

    return codes, scale


def _can_read_values(tensor: torch.Tensor) -> bool:
    """False while tracing, where branching on a tensor's values is a data-dependent graph break."""
    if torch.compiler.is_compiling() or torch._guards.detect_fake_mode() is not None:
        return False
    return not isinstance(tensor, torch._subclasses.FakeTensor)


def fake_quantize_mx6_mx9(input_tensor: torch.Tensor, axis: int, block_size: int, **kwargs: Any) -> torch.Tensor:
    quant_bit = kwargs["quant_bit"]
    sub_block_size = kwargs["sub_block_size"]
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    input_dtype = input_tensor.dtype

    blocked_input, _, shared_exp, _ = _compute_mx_exponents(input_tensor, axis, block_size, sub_block_size)
    codes, scale = _mx6_mx9_codes(blocked_input, shared_exp, quant_bit)

    output_tensor = codes * scale

    # nan_to_num above only cleans `block_x`, so the data path still carries any Inf, which
    # the clamp would saturate to quant_max -- turning an overflow into a plausible finite
    # number. Restore the non-finite inputs so they propagate, as NaN already does.
    output_tensor = torch.where(torch.isfinite(blocked_input), output_tensor, blocked_input)

    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape).to(input_dtype)
    return output_tensor.transpose(axis, -1)


def real_quantize_mx6_mx9(input_tensor: torch.Tensor, axis: int, block_size: int, **kwargs: Any) -> torch.Tensor:
    """Emit MX6/MX9 codes together with their inlined exponents.

    Each block of ``block_size`` elements widens to ``block_size + 2`` values laid out as
    ``[block_exp, sub_block_bits_packed, codes...]``. ``sub_block_bits_packed`` holds one bit per
    sub-block, bit ``j`` being the shift of sub-block ``j``. Dequantizing a block is
    ``codes * 2 ** (block_exp - shift - quant_bit + 2)``, which reproduces
    :func:`fake_quantize_mx6_mx9` exactly.

    The values are still float, so this is a layout change rather than a size reduction: a block
    costs ``block_size + 2`` floats instead of the 12 bytes (MX6) or 18 bytes (MX9) the format
    budgets for it. Nothing packs them yet, and export is not wired up either --
    ``StaticNonScaledRealQuantizer.to_real_quantize_params`` asserts on ``mx_element_dtype``,
    which the MX6/MX9 specs do not set; ``create_pack_method`` has no ``Pack_mx6``/``Pack_mx9``
    and falls back to the identity ``PackMethod``; and ``Dtype.to_torch_packed_dtype`` still
    reports mx6/mx9 as unserializable. Reaching this kernel today means calling
    ``torch.ops.quark.non_scaled_real_quantize`` directly.

    Only finite inputs are meaningful: MX6/MX9 have no encoding for Inf or NaN, so those
    positions carry whatever the clamp produced. Real quantize runs on trained weights, where
    they do not occur.
    """
    quant_bit = kwargs["quant_bit"]
    sub_block_size = kwargs["sub_block_size"]

    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]
    assert input_shape[-1] % block_size == 0

    blocked_input, max_exp, shared_exp, sub_shift_bits = _compute_mx_exponents(
        input_tensor, axis, block_size, sub_block_size
    )
    codes, _ = _mx6_mx9_codes(blocked_input, shared_exp, quant_bit)

    if __debug__ and _can_read_values(codes):
        # Non-finite inputs are excluded -- they have no MX encoding at all, see the docstring.
        element_max = float(2 ** (quant_bit - 1) - 1)
        finite_codes = codes[torch.isfinite(blocked_input)]
        assert bool(torch.all(finite_codes.abs() <= element_max)), (
            f"element code out of range: |code| exceeds the {quant_bit}-bit signed field's {element_max}."
        )

    bit_weights = torch.pow(2.0, torch.arange(sub_shift_bits.size(-1), device=codes.device, dtype=torch.float32))
    packed_bits = torch.sum(sub_shift_bits.to(torch.float32) * bit_weights, dim=-1, keepdim=True)

    output_tensor = torch.cat([max_exp.to(codes.dtype), packed_bits.to(codes.dtype), codes], dim=-1)
    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    input_shape[-1] = input_shape[-1] // block_size * (block_size + 2)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape)
    return output_tensor.transpose(axis, -1)


def fake_quantize_non_mx(input_tensor: torch.Tensor, element_dtype: Dtype, axis: int, block_size: int) -> torch.Tensor:
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    block_x = reshape_to_blocks(input_tensor.detach(), block_size, axis)
    amax, _ = torch.max(torch.abs(block_x), dim=-1, keepdim=True)
    ebits, mbits, emax = get_dtype_params(element_dtype)
    element_dtype_str = Dtype(element_dtype)

    quant_bit_e, quant_bit_m, _ = get_dtype_params(element_dtype_str)
    max_exp = pow(2.0, quant_bit_e) - 1
    offset_exp = pow(2.0, quant_bit_e - 1) - 1
    quant_max = pow(2.0, max_exp - offset_exp) * (1 + (pow(2.0, quant_bit_m) - 1) / (pow(2.0, quant_bit_m)))

    scale = torch.div(amax, quant_max)

    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    input_dtype = input_tensor.dtype
    input_tensor = input_tensor.to(torch.float32)
    scale = scale.to(torch.float32)

    input_tensor = reshape_to_blocks(input_tensor, block_size, axis)

    input_tensor = input_tensor / scale
    output_tensor = torch.ops.quark.fake_quantize_to_low_precision_fp(
        input_tensor.contiguous(), ebits, mbits, quant_max, 0
    )

    # NOTE: This can not be done in-place, as otherwise raises:
    # torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
    # AssertionError: aot_autograd expected to have an entirely functional graph, but found %mul_ : [num_users=1] = call_function[target=torch.ops.aten.mul_.Tensor](args = (%fake_quantize_to_low_precision_fp, %where), kwargs = {})
    output_tensor = output_tensor * scale

    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape).to(input_dtype)
    return output_tensor.transpose(axis, -1)


quant_scope_lib.define(
    "fake_quantize_to_low_precision_fp(Tensor inputs, SymInt ebits, SymInt mbits, float quant_max, SymInt round_mode) -> Tensor"
)


@impl(quant_scope_lib, "fake_quantize_to_low_precision_fp", "CompositeExplicitAutograd")
def fake_quantize_to_low_precision_fp(
    inputs: torch.Tensor, ebits: int, mbits: int, quant_max: float, round_mode: int
) -> torch.Tensor:
    return kernel_ext.fake_quantize_to_low_precision_fp(inputs.contiguous(), ebits, mbits, quant_max, round_mode)


@register_fake("quark::fake_quantize_to_low_precision_fp")
def _(inputs: torch.Tensor, ebits: int, mbits: int, quant_max: float, round_mode: int) -> torch.Tensor:
    return torch.empty_like(inputs, memory_format=torch.contiguous_format)


quant_scope_lib.define(
    "scaled_real_quantize(str quant_dtype, Tensor inputs, Tensor scale, Tensor zero_point, SymInt axis, SymInt group_size, float quant_min, float quant_max, SymInt round_mode, str qscheme) -> Tensor"
)


@log_errors
@impl(quant_scope_lib, "scaled_real_quantize", "CompositeExplicitAutograd")
def scaled_real_quantize(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: float,
    quant_max: float,
    round_mode: int,
    qscheme: str,
) -> torch.Tensor:
    return scaled_real_quantize_impl(
        quant_dtype, inputs, scale, zero_point, axis, group_size, quant_min, quant_max, round_mode, qscheme
    )


@register_decomposition(torch.ops.quark.scaled_real_quantize)
def scaled_real_quantize_impl(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: float,
    quant_max: float,
    round_mode: int,
    qscheme: str,
) -> torch.Tensor:
    if quant_dtype not in DTYPE_TO_REAL_QUANTIZE_FUNCS:
        raise ValueError(f"Unsupported Quant Data Type: {quant_dtype}")  # pragma: no cover

    return DTYPE_TO_REAL_QUANTIZE_FUNCS[quant_dtype](  # type: ignore[operator]
        inputs,
        scale=scale,
        zero_point=zero_point,
        axis=axis,
        group_size=group_size,
        quant_min=quant_min,
        quant_max=quant_max,
        round_mode=round_mode,
        qscheme=qscheme,
        quant_dtype=quant_dtype,
    )


quant_scope_lib.define(
    "non_scaled_real_quantize(Tensor input_tensor, str quant_dtype, str mx_element_dtype, SymInt axis, SymInt block_size) -> Tensor"
)


@log_errors
@impl(quant_scope_lib, "non_scaled_real_quantize", "CompositeExplicitAutograd")
def non_scaled_real_quantize(
    input_tensor: torch.Tensor, quant_dtype: str, mx_element_dtype: str, axis: int, block_size: int
) -> torch.Tensor:
    return non_scaled_real_quantize_impl(input_tensor, quant_dtype, mx_element_dtype, axis, block_size)


@register_decomposition(torch.ops.quark.non_scaled_real_quantize)
def non_scaled_real_quantize_impl(
    input_tensor: torch.Tensor, quant_dtype: str, mx_element_dtype: str, axis: int, block_size: int
) -> torch.Tensor:
    # NOTE: `bfp16` also routes to `StaticNonScaledRealQuantizer` and is blocked by this same
    # dispatch; it is the intended next addition here once it grows a real-quantize kernel.
    if quant_dtype in DTYPE_TO_NON_SCALED_REAL_QUANTIZE_FUNCS:
        return DTYPE_TO_NON_SCALED_REAL_QUANTIZE_FUNCS[quant_dtype](
            input_tensor=input_tensor, axis=axis, block_size=block_size
        )

    assert quant_dtype == "mx" and mx_element_dtype in ["fp4", "fp6_e2m3", "fp6_e3m2"], (
        "Only mxfp4, mxfp6_e2m3 and mxfp6_e3m2 is supported!"
    )

    return real_quantize_mxfp(
        input_tensor=input_tensor, mx_element_dtype=mx_element_dtype, axis=axis, block_size=block_size
    )


def real_quantize_mxfp(
    input_tensor: torch.Tensor, mx_element_dtype: str, axis: int, block_size: int, **kwargs: Any
) -> torch.Tensor:
    assert mx_element_dtype in ["fp4", "fp6_e2m3", "fp6_e3m2"], "Only mxfp4, mxfp6_e2m3 and mxfp6_e3m2 is supported!"
    assert input_tensor.shape[-1] % 32 == 0
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    block_x = reshape_to_blocks(input_tensor.detach(), block_size, axis)
    amax, _ = torch.max(torch.abs(block_x), dim=-1, keepdim=True)
    ebits, mbits, emax = get_dtype_params(mx_element_dtype)
    scale = torch.pow(2, torch.floor(torch.log2(amax)) - emax)
    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    element_dtype = Dtype(mx_element_dtype)

    input_dtype = input_tensor.dtype
    input_tensor = input_tensor.to(torch.float32)
    scale = scale.to(torch.float32)

    input_tensor = reshape_to_blocks(input_tensor, block_size, axis)

    quant_bit_e, quant_bit_m, _ = get_dtype_params(element_dtype)
    max_exp = pow(2.0, quant_bit_e) - 1
    offset_exp = pow(2.0, quant_bit_e - 1) - 1
    quant_max = pow(2.0, max_exp - offset_exp) * (1 + (pow(2.0, quant_bit_m) - 1) / (pow(2.0, quant_bit_m)))

    input_tensor = input_tensor / scale
    output_tensor = torch.ops.quark.fake_quantize_to_low_precision_fp(
        input_tensor.contiguous(), ebits, mbits, quant_max, 0
    )
    output_tensor = torch.cat([scale, output_tensor], dim=-1)
    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    input_shape[-1] = input_shape[-1] // 32 * 33
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape)

    input_tensor = input_tensor.to(input_dtype)
    return output_tensor.transpose(axis, -1)


def real_quantize_int(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    zero_point: torch.Tensor | None = None,
    axis: int | None = None,
    group_size: int | None = None,
    quant_min: float | None = None,
    quant_max: float | None = None,
    round_mode: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    quant_min = int(quant_min)
    quant_max = int(quant_max)
    if qscheme == QSchemeType.per_tensor.value:
        return real_quantize_int_per_tensor_affine(inputs, scale, zero_point, quant_min, quant_max, round_mode)
    elif qscheme == QSchemeType.per_channel.value:
        return real_quantize_int_per_channel_affine(inputs, scale, zero_point, axis, quant_min, quant_max, round_mode)
    elif qscheme == QSchemeType.per_group.value:
        return real_quantize_int_per_group_affine(
            inputs, scale, zero_point, axis, group_size, quant_min, quant_max, round_mode
        )
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def real_quantize_fp8_e4m3(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return real_quantize_fp8_e4m3_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return real_quantize_fp8_e4m3_per_channel_with_scale(inputs, scale, axis)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def real_quantize_fp8_e5m2(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return real_quantize_fp8_e5m2_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return real_quantize_fp8_e5m2_per_channel_with_scale(inputs, scale, axis)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def real_quantize_with_dtype_convert(
    inputs: torch.Tensor, quant_dtype: str | None = None, **kwargs: Any
) -> torch.Tensor:
    return _real_quantize_with_dtype_convert(inputs, quant_dtype)


def real_quantize_float8_e5m3(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    """
    Real quantize float32 tensor to float8_e5m3 format stored as uint8.
    E5M3 format: 5 exponent bits, 3 mantissa bits, no sign bit.

    If a per-tensor scale (global) is given, inputs are normalized by it
    first: round_e5m3(inputs / scale). scale=None casts directly.
    """
    # TODO: Support native BF16/FP16 processing here.
    inputs_f32 = inputs.to(torch.float32)
    if scale is not None:
        inputs_f32 = inputs_f32 / scale.to(torch.float32)

    if not (inputs_f32 >= 0).all():
        raise ValueError("E5M3 only supports positive values (no sign bit)")

    # Clamp input to max E5M3 value
    inputs_clamped = torch.clamp(inputs_f32, max=BaseFP8_E5M3.max_value)

    # Convert FP32 to E5M3 bits
    return convert_fp32_to_e5m3_bits_func(inputs_clamped)


def real_quantize_int_per_tensor_affine(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, quant_min: int, quant_max: int, round_mode: int
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    # PyTorch uses an aten::mul operation to divide by the scale in its implementation: https://github.com/pytorch/pytorch/blob/v2.5.1/aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp#L2535
    # In order to have matching logits compared to `torch.fake_quantize_per_tensor_affine`, we use an aten::mul op as well here.
    inv_scale = 1.0 / scale
    res = torch.round(inputs * inv_scale + zero_point).clamp_(quant_min, quant_max)

    if inputs.dtype != inputs_type:
        inputs = inputs.to(inputs_type)
    if scale.dtype != scale_type:
        scale = scale.to(scale_type)

    return res.contiguous().to(torch.int)


def real_quantize_int_per_channel_affine(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    quant_min: int,
    quant_max: int,
    round_mode: int,
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    inputs_transpose = torch.transpose(inputs, axis, -1)

    # PyTorch uses an aten::mul operation to divide by the scale in its implementation: https://github.com/pytorch/pytorch/blob/v2.5.1/aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp#L2656
    # In order to have matching logits compared to `torch.fake_quantize_per_tensor_affine`, we use an aten::mul op as well here.
    inv_scale = 1.0 / scale

    res = torch.round(inputs_transpose * inv_scale + zero_point).clamp(quant_min, quant_max)
    res = res.transpose(-1, axis)

    if inputs.dtype != inputs_type:
        inputs = inputs.to(inputs_type)
    if scale.dtype != scale_type:
        scale = scale.to(scale_type)

    return res.contiguous().to(torch.int)


def real_quantize_int_per_group_affine(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    quant_min: int,
    quant_max: int,
    round_mode: int,
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale_type = scale.dtype
    if inputs_type != torch.float:
        inputs = inputs.to(torch.float)
    if scale_type != inputs.dtype:
        scale = scale.to(inputs.dtype)

    inputs_transpose = torch.transpose(inputs, axis, -1)
    scale_transpose = torch.transpose(scale, axis, -1)
    zp_transpose = torch.transpose(zero_point, axis, -1)

    inputs_shape = inputs_transpose.shape
    scale_shape = scale_transpose.shape
    g_size = inputs_shape[-1] // scale_shape[-1]

    inputs_reshape = torch.reshape(inputs_transpose, (-1, inputs_transpose.shape[-1]))
    scale_reshape = torch.reshape(scale_transpose, (-1, scale_transpose.shape[-1]))
    zp_reshape = torch.reshape(zp_transpose, (-1, zp_transpose.shape[-1]))

    quant_dim = inputs_transpose.shape[-1]

    # PyTorch uses an aten::mul operation to divide by the scale in its implementation: https://github.com/pytorch/pytorch/blob/v2.5.1/aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp#L2535
    # In order to have matching logits compared to `torch.fake_quantize_per_channel_affine`, we use an aten::mul op as well
    # here.
    scale_reshape_inv = 1.0 / scale_reshape[:, torch.arange(quant_dim) // g_size]

    inputs_div = inputs_reshape * scale_reshape_inv + zp_reshape[:, torch.arange(quant_dim) // g_size]
    res = torch.round(inputs_div).clamp(quant_min, quant_max)
    res = res.reshape(inputs_shape).transpose(-1, axis)

    if inputs.dtype != inputs_type:
        inputs = inputs.to(inputs_type)
    if scale.dtype != scale_type:
        scale = scale.to(scale_type)

    return res.contiguous().to(torch.int)


def real_quantize_fp8_per_tensor_with_scale(
    inputs: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype, max_value: Number
) -> torch.Tensor:
    res = inputs / scale
    res = torch.clamp(res, min=-max_value, max=max_value)
    return res.to(dtype)


real_quantize_fp8_e4m3_per_tensor_with_scale = partial(
    real_quantize_fp8_per_tensor_with_scale, dtype=torch.float8_e4m3fn, max_value=448
)
real_quantize_fp8_e5m2_per_tensor_with_scale = partial(
    real_quantize_fp8_per_tensor_with_scale, dtype=torch.float8_e5m2, max_value=57344
)


def real_quantize_fp8_per_channel_with_scale(
    inputs: torch.Tensor, scale: torch.Tensor, axis: int, dtype: torch.dtype, max_value: Number
) -> torch.Tensor:
    inputs_type = inputs.dtype
    scale = scale.to(inputs_type).to(inputs.device)
    if axis >= 0:
        for k in range(inputs.dim() - axis - 1):
            scale = scale.unsqueeze(-1)
    else:
        for k in range(-1 - axis):
            scale = scale.unsqueeze(-1)
    res = inputs / scale
    res = torch.clamp(res, min=-max_value, max=max_value)
    return res.to(dtype)


real_quantize_fp8_e4m3_per_channel_with_scale = partial(
    real_quantize_fp8_per_channel_with_scale, dtype=torch.float8_e4m3fn, max_value=448
)
real_quantize_fp8_e5m2_per_channel_with_scale = partial(
    real_quantize_fp8_per_channel_with_scale, dtype=torch.float8_e5m2, max_value=57344
)


def real_quantize_fp4_fp6_per_group(
    input_tensor: torch.Tensor,
    scale: torch.Tensor,
    axis: int,
    group_size: int,
    quant_dtype: str | None,
    **kwargs: Any,
) -> torch.Tensor:
    input_shape = list(input_tensor.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    ebits, mbits, _ = get_dtype_params(quant_dtype)
    eps = torch.finfo(torch.float32).eps
    scale = scale.masked_fill(scale == 0.0, eps)

    input_dtype = input_tensor.dtype

    input_tensor, scale = prepare_inputs_per_group(input_tensor, scale, axis, group_size)

    max_exp = pow(2.0, ebits) - 1
    offset_exp = pow(2.0, ebits - 1) - 1
    quant_max = pow(2.0, max_exp - offset_exp) * (1 + (pow(2.0, mbits) - 1) / (pow(2.0, mbits)))

    input_tensor = input_tensor / scale
    output_tensor = torch.ops.quark.fake_quantize_to_low_precision_fp(
        input_tensor.contiguous(), ebits, mbits, quant_max, 0
    )

    output_tensor = output_tensor.reshape(output_tensor.size(0), -1)
    output_tensor = output_tensor[:, : input_shape[-1]].reshape(input_shape)

    input_tensor = input_tensor.to(input_dtype)

    return output_tensor.transpose(axis, -1)


def _real_quantize_with_dtype_convert(inputs: torch.Tensor, quant_dtype: str) -> torch.Tensor:
    quant_torch_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(quant_dtype)
    input_origin_type = inputs.dtype
    res = inputs
    if input_origin_type != quant_torch_dtype:
        res = res.to(quant_torch_dtype)
    return res


quant_scope_lib.define(
    "dequantize(str quant_dtype, Tensor inputs, Tensor scale, Tensor zero_point, SymInt axis, SymInt group_size, str qscheme) -> Tensor"
)


@impl(quant_scope_lib, "dequantize", "CompositeExplicitAutograd")
def dequantize(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    qscheme: str,
) -> torch.Tensor:
    """
    Dequantizes the unpacked tensor ``inputs`` using the quantization parameters ``scale`` and ``zero_point``.

    In case ``qscheme="per_group"``, ``axis`` indicates the dimension for which the quantization parameters ``scale`` and ``zero_point`` are shared per group of ``group_size``.

    In this case, an example of valid input is:
    * ``inputs`` of shape (256, 128, 64)
    * ``scale`` of shape (256, 128, 2)
    * ``axis=-1``
    * ``group_size=32``.
    """
    return dequantize_impl(quant_dtype, inputs, scale, zero_point, axis, group_size, qscheme)


@register_decomposition(torch.ops.quark.dequantize)
def dequantize_impl(
    quant_dtype: str,
    inputs: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    axis: int,
    group_size: int,
    qscheme: str,
) -> torch.Tensor:
    if quant_dtype not in DTYPE_TO_DEQUANTIZE_FUNCS:
        raise ValueError(f"Unsupported Quant Data Type: {quant_dtype}")  # pragma: no cover

    return DTYPE_TO_DEQUANTIZE_FUNCS[quant_dtype](  # type: ignore[operator]
        inputs,
        scale=scale,
        zero_point=zero_point,
        axis=axis,
        group_size=group_size,
        qscheme=qscheme,
        quant_dtype=quant_dtype,
    )


def dequantize_int(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    zero_point: torch.Tensor | None = None,
    axis: int | None = None,
    group_size: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return dequantize_int_per_tensor_affine(inputs, scale, zero_point)
    elif qscheme == QSchemeType.per_channel.value:
        return dequantize_int_per_channel_affine(inputs, scale, zero_point, axis)
    elif qscheme == QSchemeType.per_group.value:
        return dequantize_int_per_group_affine(inputs, scale, zero_point, axis, group_size)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def dequantize_fp8(
    inputs: torch.Tensor,
    scale: torch.Tensor | None = None,
    axis: int | None = None,
    qscheme: str | None = None,
    quant_dtype: str | None = None,
    **kwargs: Any,
) -> torch.Tensor:
    if qscheme == QSchemeType.per_tensor.value:
        return dequantize_fp8_per_tensor_with_scale(inputs, scale)
    elif qscheme == QSchemeType.per_channel.value:
        return dequantize_fp8_per_channel_with_scale(inputs, scale, axis)
    elif qscheme == QSchemeType.per_block.value:
        # The unified dispatch carries only axis/group_size; recover block
        # dimensions from scale shape (the impl drives math from scale.shape).
        if scale is None:
            raise ValueError("per_block FP8 dequantization requires a scale tensor")
        if inputs.dim() != 2 or scale.dim() != 2:
            raise ValueError(
                f"per_block FP8 dequantization expects 2D inputs and scale, "
                f"got inputs.shape={tuple(inputs.shape)}, scale.shape={tuple(scale.shape)}"
            )
        M, N = inputs.shape
        num_block_rows, num_block_cols = scale.shape
        block_size = (M // num_block_rows, N // num_block_cols)
        return dequantize_fp8_per_block_impl(inputs, scale, block_size)
    else:
        raise ValueError(f"Unsupported QuantSchema: {qscheme} for quant_dtype: {quant_dtype}")  # pragma: no cover


def dequantize_with_dtype_convert(inputs: torch.Tensor, quant_dtype: str | None = None, **kwargs: Any) -> torch.Tensor:
    return _dequantize_with_dtype_convert(inputs, quant_dtype)


def dequantize_int_per_tensor_affine(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor
) -> torch.Tensor:
    scale_type = scale.dtype
    if scale_type != torch.float:
        scale = scale.to(torch.float)

    res = (inputs - zero_point).to(torch.float) * scale

    if scale.dtype != scale_type:
        scale = scale.to(scale_type)

    return res.contiguous()


def dequantize_int_per_channel_affine(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, axis: int
) -> torch.Tensor:
    scale_type = scale.dtype
    if scale_type != torch.float:
        scale = scale.to(torch.float)

    inputs_transpose = torch.transpose(inputs, axis, -1)
    res = (inputs_transpose.to(torch.float) - zero_point) * scale
    res = res.transpose(-1, axis)

    if scale.dtype != scale_type:
        scale = scale.to(scale_type)

    return res.contiguous()


def _prepare_scale_for_group_dequant(tensor: torch.Tensor, axis: int, num_groups: int) -> torch.Tensor:
    """
    Reshape scale/zero_point tensor for per-group broadcast.
    Output shape: [-1, num_groups, 1]
    """
    tensor_transpose = torch.transpose(tensor, axis, -1)
    tensor_flat = tensor_transpose.reshape(-1, num_groups)
    return tensor_flat.to(torch.float).unsqueeze(-1)


def dequantize_int_per_group_affine(
    inputs: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, axis: int, group_size: int
) -> torch.Tensor:
    """
    Dequantizes `inputs`, which is assumed to be quantized per-group.

    If axis = 1:
    - `scale` is assumed to be of shape (out_features, in_features // group_size).
    - `zero_point` is assumed to be of shape (out_features, in_features // group_size).

    Memory optimization (similar to dequantize_fp4_fp6_per_group):
    - Uses reshape + broadcast instead of fancy indexing
    - scale/zp reshaped to [batch, num_groups, 1] for broadcast, no memory expansion
    """
    # Save original shape for final reshape
    inputs_transpose = torch.transpose(inputs, axis, -1)
    inputs_shape = inputs_transpose.shape
    quant_dim = inputs_shape[-1]
    num_groups = scale.shape[axis]
    g_size = quant_dim // num_groups

    # Reshape inputs to [batch, num_groups, group_size] for broadcast
    inputs_grouped = inputs_transpose.reshape(-1, num_groups, g_size)
    del inputs_transpose

    # Reshape scale/zp to [batch, num_groups, 1] for broadcast (no memory expansion!)
    scale_grouped = _prepare_scale_for_group_dequant(scale, axis, num_groups)
    zp_grouped = _prepare_scale_for_group_dequant(zero_point, axis, num_groups)

    # Dequantize with broadcast (scale/zp automatically broadcast to [batch, num_groups, group_size])
    dequantized = (inputs_grouped.to(torch.float) - zp_grouped) * scale_grouped
    del inputs_grouped, scale_grouped, zp_grouped

    # Reshape back to original shape
    res = dequantized.reshape(inputs_shape).transpose(-1, axis)
    del dequantized

    return res.contiguous()


def dequantize_fp8_per_tensor_with_scale(inputs: torch.Tensor, scale: float) -> torch.Tensor:
    return (inputs.to(torch.float32) * scale).contiguous()


def dequantize_fp8_per_channel_with_scale(inputs: torch.Tensor, scale: torch.Tensor, axis: int) -> torch.Tensor:
    if axis >= 0:
        for k in range(inputs.dim() - axis - 1):
            scale = scale.unsqueeze(-1)
    else:
        for k in range(-1 - axis):
            scale = scale.unsqueeze(-1)
    res = inputs.to(torch.float32) * scale.to(torch.float32)
    return res.contiguous()


quant_scope_lib.define("dequantize_fp8_per_block(Tensor inputs, Tensor scale, int[] block_size) -> Tensor")


@impl(quant_scope_lib, "dequantize_fp8_per_block", "CompositeExplicitAutograd")
def dequantize_fp8_per_block(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    block_size: tuple[int, int],
) -> torch.Tensor:
    """
    Dequantizes FP8 tensor with per-block scaling.

    Args:
        inputs: FP8 quantized tensor of shape (M, N)
        scale: Scale tensor of shape (M // block_size[0], N // block_size[1])
        block_size: Tuple of two integers (block_row, block_col) defining the block dimensions

    Returns:
        Dequantized tensor of shape (M, N)
    """
    return dequantize_fp8_per_block_impl(inputs, scale, block_size)


@register_fake("quark::dequantize_fp8_per_block")
def _(inputs: torch.Tensor, scale: torch.Tensor, block_size: tuple[int, int]) -> torch.Tensor:
    return torch.empty_like(inputs, dtype=torch.float32)


@register_decomposition(torch.ops.quark.dequantize_fp8_per_block)
def dequantize_fp8_per_block_impl(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    block_size: tuple[int, int],
) -> torch.Tensor:
    """
    Implementation of per-block FP8 dequantization.

    Handles cases where input dimensions are not exact multiples of block_size
    by using the scale shape to determine the actual block structure.
    """
    M, N = inputs.shape
    BM, BN = block_size

    # Use scale shape to determine actual number of blocks
    # scale shape: (num_block_rows, num_block_cols)
    num_block_rows, num_block_cols = scale.shape

    # Calculate actual block sizes (may differ from nominal block_size if not divisible)
    actual_BM = M // num_block_rows
    actual_BN = N // num_block_cols

    # Check if dimensions are compatible
    if num_block_rows * actual_BM != M or num_block_cols * actual_BN != N:
        # Handle non-divisible case: process row by row with padding
        return _dequantize_fp8_per_block_with_padding(inputs, scale, BM, BN)

    # Reshape inputs to 4D: (num_block_rows, actual_block_row, num_block_cols, actual_block_col)
    inputs_reshaped = inputs.reshape(num_block_rows, actual_BM, num_block_cols, actual_BN)
    # Reshape scale to broadcast: (num_block_rows, 1, num_block_cols, 1)
    scale_reshaped = scale.reshape(num_block_rows, 1, num_block_cols, 1)

    # Dequantize: multiply each block by its corresponding scale
    outputs = inputs_reshaped.to(torch.float32) * scale_reshaped.to(torch.float32)

    # Reshape back to original 2D shape
    return outputs.reshape(M, N).contiguous()


def _dequantize_fp8_per_block_with_padding(
    inputs: torch.Tensor,
    scale: torch.Tensor,
    BM: int,
    BN: int,
) -> torch.Tensor:
    """
    Fallback dequantization for non-divisible dimensions.
    Processes each scale element individually.
    """
    M, N = inputs.shape
    num_block_rows, num_block_cols = scale.shape
    device = inputs.device

    outputs = torch.empty((M, N), dtype=torch.float32, device=device)

    for i in range(num_block_rows):
        row_start = i * BM
        row_end = min((i + 1) * BM, M)

        for j in range(num_block_cols):
            col_start = j * BN
            col_end = min((j + 1) * BN, N)

            block = inputs[row_start:row_end, col_start:col_end]
            outputs[row_start:row_end, col_start:col_end] = block.to(torch.float32) * scale[i, j].to(torch.float32)

    return outputs.contiguous()


def dequantize_fp4_fp6_per_group(
    inputs: torch.Tensor, scale: torch.Tensor, axis: int, group_size: int, **kwargs: Any
) -> torch.Tensor:
    input_shape = list(inputs.shape)
    input_shape[-1], input_shape[axis] = input_shape[axis], input_shape[-1]

    inputs_dtype = inputs.dtype

    inputs, scale = prepare_inputs_per_group(inputs, scale, axis, group_size)

    outputs = inputs * scale

    outputs = outputs.reshape(outputs.size(0), -1)
    outputs = outputs[:, : input_shape[-1]].reshape(input_shape).to(inputs_dtype)

    if scale.dim() > outputs.dim():
        scale = scale.squeeze(-1)

    return outputs.transpose(axis, -1).contiguous()


def _dequantize_with_dtype_convert(inputs: torch.Tensor, quant_dtype: str) -> torch.Tensor:
    return inputs


DTYPE_TO_DEQUANTIZE_FUNCS = {
    Dtype.int2.value: dequantize_int,
    Dtype.uint2.value: dequantize_int,
    Dtype.int3.value: dequantize_int,
    Dtype.int4.value: dequantize_int,
    Dtype.uint4.value: dequantize_int,
    Dtype.int8.value: dequantize_int,
    Dtype.uint8.value: dequantize_int,
    Dtype.fp8_e4m3.value: dequantize_fp8,
    Dtype.fp8_e5m2.value: dequantize_fp8,
    Dtype.fp8_e5m3.value: dequantize_float8_e5m3_func,
    Dtype.bfloat16.value: dequantize_with_dtype_convert,
    Dtype.float16.value: dequantize_with_dtype_convert,
    Dtype.fp4.value: dequantize_fp4_fp6_per_group,
    Dtype.fp6_e2m3.value: dequantize_fp4_fp6_per_group,
    Dtype.fp6_e3m2.value: dequantize_fp4_fp6_per_group,
}

DTYPE_TO_FAKE_QUANTIZE_FUNCS = {
    Dtype.int2.value: fake_quantize_int,
    Dtype.uint2.value: fake_quantize_int,
    Dtype.int3.value: fake_quantize_int,
    Dtype.int4.value: fake_quantize_int,
    Dtype.uint16.value: fake_quantize_int,
    Dtype.int16.value: fake_quantize_int,
    Dtype.int32.value: fake_quantize_int,
    Dtype.uint4.value: fake_quantize_int,
    Dtype.int8.value: fake_quantize_int,
    Dtype.uint8.value: fake_quantize_int,
    Dtype.fp8_e4m3.value: fake_quantize_fp8_e4m3,
    Dtype.fp8_e5m2.value: fake_quantize_fp8_e5m2,
    Dtype.fp8_e5m3.value: scaled_fake_quantize_fp8_e5m3,
    Dtype.bfloat16.value: fake_quantize_with_dtype_convert,
    Dtype.float16.value: fake_quantize_with_dtype_convert,
    Dtype.fp4.value: fake_quantize_fp4_fp6,
    Dtype.fp6_e3m2.value: fake_quantize_fp4_fp6,
    Dtype.fp6_e2m3.value: fake_quantize_fp4_fp6,
}

DTYPE_TO_NON_SCALED_FAKE_QUANTIZE_FUNCS = {
    Dtype.bfp16.value: fake_quantize_bfp16,
    Dtype.mx.value: fake_quantize_mx,
    Dtype.mx6.value: partial(fake_quantize_mx6_mx9, quant_bit=MX6.element_bits, sub_block_size=MX6.k2),
    Dtype.mx9.value: partial(fake_quantize_mx6_mx9, quant_bit=MX9.element_bits, sub_block_size=MX9.k2),
    Dtype.fp8_e5m3.value: fake_quantize_float8_e5m3,
}

# Consumed by `non_scaled_real_quantize_impl`. The scaled table below (`DTYPE_TO_REAL_QUANTIZE_FUNCS`)
# is a different dispatch: it feeds `scaled_real_quantize_impl`, which passes scale/zero_point.
DTYPE_TO_NON_SCALED_REAL_QUANTIZE_FUNCS = {
    Dtype.mx6.value: partial(real_quantize_mx6_mx9, quant_bit=MX6.element_bits, sub_block_size=MX6.k2),
    Dtype.mx9.value: partial(real_quantize_mx6_mx9, quant_bit=MX9.element_bits, sub_block_size=MX9.k2),
}

DTYPE_TO_REAL_QUANTIZE_FUNCS = {
    Dtype.int2.value: real_quantize_int,
    Dtype.uint2.value: real_quantize_int,
    Dtype.int3.value: real_quantize_int,
    Dtype.int4.value: real_quantize_int,
    Dtype.uint4.value: real_quantize_int,
    Dtype.int8.value: real_quantize_int,
    Dtype.uint8.value: real_quantize_int,
    Dtype.fp8_e4m3.value: real_quantize_fp8_e4m3,
    Dtype.fp8_e5m2.value: real_quantize_fp8_e5m2,
    Dtype.fp8_e5m3.value: real_quantize_float8_e5m3,
    Dtype.bfloat16.value: real_quantize_with_dtype_convert,
    Dtype.float16.value: real_quantize_with_dtype_convert,
    Dtype.fp4.value: real_quantize_fp4_fp6_per_group,
    Dtype.fp6_e2m3.value: real_quantize_fp4_fp6_per_group,
    Dtype.fp6_e3m2.value: real_quantize_fp4_fp6_per_group,
}
