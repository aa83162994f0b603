"""
Copyright (c) 2024 by FlashInfer team.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

  http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
"""

import functools
from types import SimpleNamespace
from typing import Optional

import torch

from .api_logging import flashinfer_api
from .jit import gen_act_and_mul_module
from .trace.templates.activation import (
    gelu_and_mul_trace,
    gelu_tanh_and_mul_trace,
    silu_and_mul_scaled_nvfp4_experts_quantize_trace,
    silu_and_mul_trace,
)
from .utils import (
    device_support_pdl,
    register_custom_op,
    register_fake_op,
    get_compute_capability,
)
from .quantization.fp4_quantization import get_fp4_quantization_module
from .quantization.nvfp4_quantization_utils import (
    NVFP44Over6Config,
    _UNSET,
    nvfp4_4over6_code,
    resolve_nvfp4_4over6,
)


@functools.cache
def get_act_and_mul_module(act_func_name: str):
    module = gen_act_and_mul_module(act_func_name).build_and_load()

    # torch library for act_and_mul
    fname = f"{act_func_name}_and_mul"
    fn = getattr(module, fname)

    @register_custom_op(f"flashinfer::{fname}", mutates_args=("out",))
    def _act_and_mul(
        out: torch.Tensor, input: torch.Tensor, enable_pdl: Optional[bool] = None
    ) -> None:
        if enable_pdl is None:
            enable_pdl = device_support_pdl(input.device)
        fn(out, input, enable_pdl)

    @register_fake_op(f"flashinfer::{fname}")
    def _fake_act_and_mul(
        out: torch.Tensor, input: torch.Tensor, enable_pdl: Optional[bool] = None
    ) -> None:
        pass

    # Register the module
    return SimpleNamespace(**{fname: _act_and_mul})


def _check_act_and_mul_input(input: torch.Tensor) -> None:
    # The kernel picks a vector width that divides hidden_size, so any even
    # last dimension (2 * hidden_size) is supported; it no longer has to be a
    # multiple of 16 bytes.
    if input.shape[-1] % 2 != 0:
        raise ValueError("The last dimension must be even (2 * hidden_size).")


def _check_shape(input: torch.Tensor, output: torch.Tensor) -> None:
    assert input.ndim == output.ndim, f"{input.ndim} != {output.ndim}"
    assert input.shape[:-1] == output.shape[:-1], (
        f"{input.shape[:-1]} != {output.shape[:-1]}"
    )
    assert input.shape[-1] == 2 * output.shape[-1], (
        f"{input.shape[-1]} != {2 * output.shape[-1]}"
    )


@flashinfer_api(trace=silu_and_mul_trace)
def silu_and_mul(
    input: torch.Tensor, out: torch.Tensor = None, enable_pdl: Optional[bool] = None
) -> torch.Tensor:
    r"""Fused SiLU and Mul operation.

    ``silu(input[..., :hidden_size]) * input[..., hidden_size:]``

    Parameters
    ----------
    input: torch.Tensor
        Input tensor, shape (..., 2 * hidden_size).

    out: Optional[torch.Tensor]
        The output tensor, if specified, the kernel will update this tensor in place.

    enable_pdl: Optional[bool]
        Whether to enable `programmatic dependent launch
        <https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/programmatic-dependent-launch.html>`_

    Returns
    -------
    output: torch.Tensor
        Output tensor, shape (..., hidden_size).
    """
    if enable_pdl is None:
        enable_pdl = device_support_pdl(input.device)
    _check_act_and_mul_input(input)
    if out is not None:
        _check_shape(input, out)
    else:
        out = torch.empty(
            input.shape[:-1] + (input.shape[-1] // 2,),
            device=input.device,
            dtype=input.dtype,
        )
    get_act_and_mul_module("silu").silu_and_mul(
        out,
        input,
        enable_pdl,
    )
    return out


@flashinfer_api(trace=gelu_tanh_and_mul_trace)
def gelu_tanh_and_mul(
    input: torch.Tensor, out: torch.Tensor = None, enable_pdl: Optional[bool] = None
) -> torch.Tensor:
    r"""Fused GeLU Tanh and Mul operation.

    ``gelu(tanh(input[..., :hidden_size])) * input[..., hidden_size:]``

    Parameters
    ----------
    input: torch.Tensor
        Input tensor, shape (..., 2 * hidden_size).

    out: Optional[torch.Tensor]
        The output tensor, if specified, the kernel will update this tensor in place.

    enable_pdl: Optional[bool]
        Whether to enable `programmatic dependent launch
        <https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/programmatic-dependent-launch.html>`_

    Returns
    -------
    output: torch.Tensor
        Output tensor, shape (..., hidden_size).
    """
    if enable_pdl is None:
        enable_pdl = device_support_pdl(input.device)
    _check_act_and_mul_input(input)
    if out is not None:
        _check_shape(input, out)
    else:
        out = torch.empty(
            input.shape[:-1] + (input.shape[-1] // 2,),
            device=input.device,
            dtype=input.dtype,
        )
    get_act_and_mul_module("gelu_tanh").gelu_tanh_and_mul(out, input, enable_pdl)
    return out


@flashinfer_api(trace=gelu_and_mul_trace)
def gelu_and_mul(
    input: torch.Tensor, out: torch.Tensor = None, enable_pdl: Optional[bool] = None
) -> torch.Tensor:
    r"""Fused GeLU and Mul operation.

    ``gelu(input[..., :hidden_size]) * input[..., hidden_size:]``

    Parameters
    ----------
    input: torch.Tensor
        Input tensor, shape (..., 2 * hidden_size).

    out: Optional[torch.Tensor]
        The output tensor, if specified, the kernel will update this tensor in place.

    enable_pdl: Optional[bool]
        Whether to enable `programmatic dependent launch
        <https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/programmatic-dependent-launch.html>`_

    Returns
    -------
    output: torch.Tensor
        Output tensor, shape (..., hidden_size).
    """
    if enable_pdl is None:
        enable_pdl = device_support_pdl(input.device)
    _check_act_and_mul_input(input)
    if out is not None:
        _check_shape(input, out)
    else:
        out = torch.empty(
            input.shape[:-1] + (input.shape[-1] // 2,),
            device=input.device,
            dtype=input.dtype,
        )
    get_act_and_mul_module("gelu").gelu_and_mul(out, input, enable_pdl)
    return out


@flashinfer_api(trace=silu_and_mul_scaled_nvfp4_experts_quantize_trace)
def silu_and_mul_scaled_nvfp4_experts_quantize(
    a,
    mask,
    a_global_sf,
    # Appended last so existing positional construction keeps working.
    nvfp4_4over6: Optional[NVFP44Over6Config] = _UNSET,
):
    r"""Fused SiLU + mul + per-expert NVFP4 quantization with a per-row mask.

    Used by mixture-of-experts pipelines to fuse the SiLU-gated activation
    of each expert with NVFP4 quantization, applying ``mask`` to skip rows
    that do not belong to the current expert.

    Parameters
    ----------
    a : torch.Tensor
        Input tensor of shape ``[B, M, 2 * K]`` with dtype fp16/bf16: the
        gate half followed by the up half along the last dimension. The
        output covers ``K`` columns, ``silu(gate) * up``.
    mask : torch.Tensor
        Valid row count per expert, shape ``[B]``, dtype ``int32``. Only the
        first ``mask[b]`` rows of expert ``b`` are quantized; the entries of
        ``x_q`` and ``sf`` for the remaining rows are unspecified.
    a_global_sf : torch.Tensor
        Global scale factor, one per expert: shape ``[B]``, dtype ``float32``.
    nvfp4_4over6 : NVFP44Over6Config or None
        NVFP4 "4over6" scale-candidate search. Requires fp16 / bf16 input.

        - omitted (the default): read the legacy ``FLASHINFER_NVFP4_4OVER6*``
          environment variables.
        - ``None``: 4over6 off. The environment is ignored.
        - :class:`NVFP44Over6Config`: on with exactly that recipe. The
          environment is ignored.

    Returns
    -------
    Tuple[torch.Tensor, torch.Tensor]
        ``(x_q, sf)`` where ``x_q`` has logical shape ``[M, K/2, B]``
        with dtype ``FLOAT4_E2M1X2`` (the implementation permutes the
        ``[B, M, K/2]`` physical layout so that the batch dim is last,
        matching the grouped-GEMM expectation) and ``sf`` is the 6D
        swizzled scale-factor tensor of logical shape
        ``[32, 4, padded_M // 128, 4, padded_K // 64, B]`` viewed as
        ``float8_e4m3fn``.  ``padded_M`` rounds ``M`` up to a multiple
        of 128 and ``padded_K`` rounds ``K // sf_vec_size`` up to a
        multiple of 4.  Here ``sf_vec_size`` is fixed at ``16`` (NVFP4),
        matching :func:`flashinfer.quantization.nvfp4_quantize`.
    """
    nvfp4_4over6_config = resolve_nvfp4_4over6(nvfp4_4over6)
    major, minor = get_compute_capability(a.device)
    device_arch = f"{major * 10 + minor}"
    a_fp4, a_sf = get_fp4_quantization_module(
        device_arch
    ).silu_and_mul_scaled_nvfp4_experts_quantize_sm100(
        a,
        mask,
        a_global_sf,
        nvfp4_4over6_code(nvfp4_4over6_config),
    )
    return a_fp4, a_sf
