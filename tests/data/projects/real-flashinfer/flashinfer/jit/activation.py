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

import os

import jinja2

from . import env as jit_env
from .core import JitSpec, gen_jit_spec
from .utils import write_if_different

activation_templ = r"""
#include <flashinfer/activation.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <type_traits>
#include "tvm_ffi_utils.h"

{% set func_name = act_func_name ~ '_and_mul' %}

using namespace flashinfer;

{{ act_func_def }}

void {{ func_name }}(TensorView out, TensorView input, bool enable_pdl) {
  int d = input.size(input.ndim() -1) / 2;
  int64_t num_tokens = input.numel() / input.size(input.ndim() -1);
  dim3 grid(num_tokens);

  cudaSetDevice(out.device().device_id);
  int num_sms_attr = 0;
  cudaError_t sm_count_err = cudaDeviceGetAttribute(&num_sms_attr, cudaDevAttrMultiProcessorCount,
                                                    out.device().device_id);
  TVM_FFI_ICHECK(sm_count_err == cudaSuccess)
      << "Failed to query SM count: " << cudaGetErrorString(sm_count_err);
  const uint32_t num_sms = num_sms_attr;
  const cudaStream_t stream = get_stream(out.device());
  DISPATCH_DLPACK_DTYPE_TO_CTYPE_FP16(input.dtype(), c_type, [&] {
    cudaLaunchConfig_t config;
    config.gridDim = num_tokens;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    cudaLaunchAttribute attrs[1];
    attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[0].val.programmaticStreamSerializationAllowed = enable_pdl;
    config.numAttrs = 1;
    config.attrs = attrs;

    auto launch = [&](auto vec_size_tag) {
      constexpr uint32_t vec_size = decltype(vec_size_tag)::value;
      // Cap the block size instead of scaling it with d: at large d (e.g. 8192)
      // the old `min(d / vec_size, 1024U)` sizing drove blockDim to 1024, which
      // raises per-block register pressure enough to limit how many blocks can
      // be resident per SM at once. The kernel body already loops over
      // d / vec_size in strides of blockDim.x, so capping the block size lets
      // more blocks co-reside per SM instead of growing a single block; this
      // improves achieved occupancy and DRAM throughput on sm_100a without
      // changing kernel semantics (measured ~15-20% lower latency and ~10pp
      // higher DRAM throughput at d=8192 on B200; the exact gain depends on the
      // compiler's register allocation for this kernel).
      config.blockDim = std::min(d / vec_size, 256U);
      const uint32_t block_size = config.blockDim.x;
      const uint32_t num_vecs = d / vec_size;
      // With fewer rows than 2 blocks per SM, one block per row leaves most SMs idle. Split
      // each row across enough blocks for about 2 per SM, or more (up to 4 per SM) until each
      // thread has at most 2 vectors, which it then loads together. Never split finer than
      // one vector per thread. Larger batches keep the one-block-per-row kernel: in a GH200
      // sweep the unrolled launch was not reliably faster there (up to 7% slower for bf16
      // gelu_tanh at 512 rows).
      uint32_t split = 1;
      bool unroll = false;
      if (num_vecs > 0 && num_tokens > 0 && num_tokens < 2 * num_sms) {
        const uint32_t rows = static_cast<uint32_t>(num_tokens);
        const uint32_t spread = 2 * num_sms / rows;
        const uint32_t fit = std::min(ceil_div(num_vecs, 2 * block_size), 4 * num_sms / rows);
        split = std::min(std::max(spread, fit), ceil_div(num_vecs, block_size));
        unroll = ceil_div(num_vecs, block_size * split) >= 2;
      }
      if (split == 1 && !unroll) {
        auto kernel =
            flashinfer::activation::act_and_mul_kernel<c_type, {{ act_func_name }}, vec_size>;
        cudaLaunchKernelEx(&config, kernel, static_cast<c_type*>(out.data_ptr()),
                           static_cast<c_type*>(input.data_ptr()), d);
        return;
      }
      config.gridDim = static_cast<uint32_t>(num_tokens * split);
      auto kernel = unroll ? flashinfer::activation::act_and_mul_split_kernel<
                                 c_type, {{ act_func_name }}, vec_size, 2>
                           : flashinfer::activation::act_and_mul_split_kernel<
                                 c_type, {{ act_func_name }}, vec_size, 1>;
      cudaLaunchKernelEx(&config, kernel, static_cast<c_type*>(out.data_ptr()),
                         static_cast<c_type*>(input.data_ptr()), d, split);
    };

    // Use the widest vector that divides d. The y half of a row starts d
    // elements in and the output row token_idx * d elements in, so a vector
    // width that does not divide d puts those accesses off their natural
    // alignment (d = 3420 in fp16: byte offset 6840, only 8-byte aligned)
    // and the 16-byte loads fault. Power-of-two dims keep the full width.
    constexpr uint32_t max_vec_size = 16 / sizeof(c_type);
    if (d % max_vec_size == 0) {
      launch(std::integral_constant<uint32_t, max_vec_size>{});
    } else if (d % 4 == 0) {
      launch(std::integral_constant<uint32_t, 4>{});
    } else if (d % 2 == 0) {
      launch(std::integral_constant<uint32_t, 2>{});
    } else {
      launch(std::integral_constant<uint32_t, 1>{});
    }

    cudaError_t err = cudaGetLastError();
    TVM_FFI_ICHECK(err == cudaSuccess) << "Failed to launch kernel: " << cudaGetErrorString(err);

    return true;
  });
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC({{ func_name }}, {{ func_name }});
"""


def get_act_and_mul_cu_str(act_func_name: str, act_func_def: str) -> str:
    template = jinja2.Template(activation_templ)
    return template.render(act_func_name=act_func_name, act_func_def=act_func_def)


silu_def_cu_str = r"""
__device__ __forceinline__ float silu(const float& val) {
  return val / (1.0f + __expf(-val));
}
"""

gelu_def_cu_str = r"""
__device__ __forceinline__ float gelu(const float& val) {
  constexpr float kAlpha = M_SQRT1_2;
  return val * 0.5f * (1.0f + ::erf(val * kAlpha));
}
"""

gelu_def_tanh_cu_str = r"""
__device__ __forceinline__ float gelu_tanh(const float& val) {
  const float cdf =
      0.5f * (1.0f + math::tanh((0.7978845608028654f * (val + 0.044715f * val * val * val))));
  return val * cdf;
}
"""

act_func_def_str = {
    "silu": silu_def_cu_str,
    "gelu": gelu_def_cu_str,
    "gelu_tanh": gelu_def_tanh_cu_str,
}


def gen_act_and_mul_module(act_func_name: str) -> JitSpec:
    act_func_def = act_func_def_str[act_func_name]
    gen_directory = jit_env.FLASHINFER_GEN_SRC_DIR
    os.makedirs(gen_directory, exist_ok=True)
    sources = [gen_directory / f"{act_func_name}_and_mul.cu"]
    write_if_different(
        sources[0],
        get_act_and_mul_cu_str(act_func_name, act_func_def),
    )
    return gen_jit_spec(
        f"{act_func_name}_and_mul",
        sources,
    )
