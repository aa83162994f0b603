import dataclasses
import functools
import json
import math
from typing import ClassVar

import jinja2
import torch

import humming.utils.jit as jit_utils
from humming import dtypes
from humming.config import (
    ComputeConfig,
    GemmType,
    LayerConfig,
    MmaOpClass,
    MmaType,
    TuningConfig,
)
from humming.config.config import _cuda_compiler_version
from humming.config.mma import (
    get_default_mma_type,
    get_mma_b_dtype,
    get_mxmma_compiler_error,
    get_mxmma_scale_config,
    get_register_budget_error,
    get_warp_spec_registers,
    supports_undocumented_fp_dtypes,
    uses_undocumented_fp_operand,
)
from humming.device import current_device, get_device_index
from humming.jit.runtime import KernelRuntime
from humming.tune import get_heuristics_config
from humming.utils.smem import estimate_smem_size_config

CODE_TEMPLATE = jinja2.Template("""

{{layer_config_macro}}

{{compute_config_macro}}

{{tuning_config_macro}}

#define HUMMING_USE_UMMA_PIPELINE {{use_umma_pipeline | int}}
#define HUMMING_USE_NATIVE_LDMATRIX_DEQUANT {{use_native_ldmatrix_dequant | int}}
#define HUMMING_BLOCK_SHAPE_M {{block_shape[0]}}
#define HUMMING_BLOCK_SHAPE_N {{block_shape[1]}}
#define HUMMING_BLOCK_SHAPE_K {{block_shape[2]}}

{% if use_umma_pipeline %}
#include <humming/kernel/humming_umma.cuh>
{% elif use_warp_spec %}
#include <humming/kernel/humming_ws.cuh>
{% else %}
#include <humming/kernel/humming.cuh>
{% endif %}

class MmaOpClass {
public:
using ElementB = {{mma_b_dtype}};
{{mma_op_class}}
};

class LayerConfig {
public:
{{layer_config}}
};

class ComputeConfig {
public:
{{compute_config}}
};

class TuningConfig {
public:
{{tuning_config}}
};

using SharedStorageType = SharedStorage<
    MmaOpClass,
    Shape<{{block_shape[0]}}, {{block_shape[1]}}, {{block_shape[2]}}>,
    Shape<{{warp_shape[0]}}, {{warp_shape[1]}}, {{warp_shape[2]}}>,
    {{a_dtype}},
    {{b_dtype}},
    {{bs_dtype}},
    LayerConfig,
    ComputeConfig,
    TuningConfig>;



extern "C" __constant__ uint32_t SMEM_SIZE = sizeof(SharedStorageType);
extern "C" __constant__ uint32_t OUTPUT_TILE_ROWS = SharedStorageType::kOutputTileRows;
extern "C" __constant__ uint32_t OUTPUT_TILE_COLUMNS = SharedStorageType::kOutputTileColumns;
extern "C" __constant__ uint32_t NUM_STREAM_K_LOCKS_PER_TILE = SharedStorageType::kNumStreamKLocksPerTile;
extern "C" __constant__ uint32_t SMEM_SIZE_A = 
    SharedStorageType::kNumStages * SharedStorageType::kStageSizeA * sizeof(int4);
extern "C" __constant__ uint32_t SMEM_SIZE_B = 
    SharedStorageType::kNumStages * SharedStorageType::kStageSizeB * sizeof(int4);
extern "C" __constant__ uint32_t SMEM_SIZE_REDUCE = sizeof(SharedStorageType::reduce);

extern "C" __constant__ uint32_t PROBLEM_SHAPE_N = {{problem_shape[1]}};
extern "C" __constant__ uint32_t PROBLEM_SHAPE_K = {{problem_shape[2]}};

extern "C" __constant__ uint32_t BLOCK_SHAPE_M = {{block_shape[0]}};
extern "C" __constant__ uint32_t BLOCK_SHAPE_N = {{block_shape[1]}};
extern "C" __constant__ uint32_t BLOCK_SHAPE_K = {{block_shape[2]}};

extern "C" __constant__ uint32_t WARP_SHAPE_M = {{warp_shape[0]}};
extern "C" __constant__ uint32_t WARP_SHAPE_N = {{warp_shape[1]}};
extern "C" __constant__ uint32_t WARP_SHAPE_K = {{warp_shape[2]}};

extern "C" __constant__ uint32_t A_DTYPE_ID = {{a_dtype}}::kId;
extern "C" __constant__ uint32_t B_DTYPE_ID = {{b_dtype}}::kId;
extern "C" __constant__ uint32_t C_DTYPE_ID = {{c_dtype}}::kId;
extern "C" __constant__ uint32_t BS_DTYPE_ID = {{bs_dtype}}::kId;

{{layer_config_extern}}

{{compute_config_extern}}

{{tuning_config_extern}}

""")


@dataclasses.dataclass(kw_only=True)
class HummingKernel(KernelRuntime, LayerConfig, ComputeConfig, TuningConfig):
    name: ClassVar[str] = "humming"
    disable_fast_math: ClassVar[bool] = True
    _str2kernel_cache: ClassVar[dict[tuple, torch.Tensor]] = {}
    _id2kernel: ClassVar[dict[int, "HummingKernel"]] = {}

    def __post_init__(self):
        LayerConfig.__post_init__(self)
        ComputeConfig.__post_init__(self)
        self.mma_type = MmaType(self.mma_type) if self.mma_type is not None else get_default_mma_type(self)
        self.use_umma_pipeline = self.mma_type == MmaType.UMMA
        if self.use_umma_pipeline:
            self.use_warp_spec = True
        TuningConfig.__post_init__(self)
        if self.use_umma_pipeline:
            self.num_threads = 256 if self.use_umma_ss else 256 + 128 * self.umma_num_dequant_warpgroups
            self.num_math_threads = 128
            activation_bytes = self.block_shape[0] * self.block_shape[2] * self.a_dtype.num_bits // 8
            # Wider cp.async tiles benefit from a third loading warp. Keep the
            # readiness warp for small tiles and independently loaded TMA operands.
            use_wide_async_load = not self.use_tma_a and activation_bytes >= 12 * 1024
            use_wide_async_load &= not self.use_umma_ss
            self.num_load_threads = 96 if use_wide_async_load else 64
        elif self.use_warp_spec:
            self.producer_registers, self.consumer_registers = get_warp_spec_registers(self, self)
        KernelRuntime.__post_init__(self)

    def init_kernel(self) -> None:
        self.check_shape()
        self.select_mma_dtypes()
        self.check_dtype()
        self.check_scale()
        self.check_config()
        self.mma_op_class = self.select_mma_op_class()

        assert self.bs_dtype is not None
        template_args = self.to_template_args()
        template_args.update(
            use_umma_pipeline=self.use_umma_pipeline,
            use_native_ldmatrix_dequant=self.use_native_ldmatrix_dequant,
            mma_op_class=self.mma_op_class.to_cpp_str(),
            mma_b_dtype=self.mma_b_dtype.to_cpp_str(),
            problem_shape=self.problem_shape,
            pad_shape=self.pad_shape,
            block_shape=self.block_shape,
            warp_shape=self.warp_shape,
            layer_config=self.to_cpp_str(LayerConfig),
            compute_config=self.to_cpp_str(ComputeConfig),
            tuning_config=self.to_cpp_str(TuningConfig),
            layer_config_extern=self.to_extern_cpp_str(LayerConfig),
            compute_config_extern=self.to_extern_cpp_str(ComputeConfig),
            tuning_config_extern=self.to_extern_cpp_str(TuningConfig),
            layer_config_macro=self.to_macro_cpp_str(LayerConfig),
            compute_config_macro=self.to_macro_cpp_str(ComputeConfig),
            tuning_config_macro=self.to_macro_cpp_str(TuningConfig),
        )
        self.code = CODE_TEMPLATE.render(**template_args)
        self.kernel_expr = (
            f"humming<\n"
            f"    MmaOpClass,\n"
            f"    Shape<0, {self.problem_shape[1]}, {self.problem_shape[2]}>,\n"
            f"    Shape<{self.block_shape[0]}, {self.block_shape[1]}, {self.block_shape[2]}>,\n"
            f"    Shape<{self.warp_shape[0]}, {self.warp_shape[1]}, {self.warp_shape[2]}>,\n"
            f"    Shape<0, {self.pad_shape[1]}, {self.pad_shape[2]}>,\n"
            f"    {self.a_dtype.to_cpp_str()},\n"
            f"    {self.b_dtype.to_cpp_str()},\n"
            f"    {self.c_dtype.to_cpp_str()},\n"
            f"    {self.bs_dtype.to_cpp_str()},\n"
            f"    LayerConfig,\n"
            f"    ComputeConfig,\n"
            f"    TuningConfig>"
        )

        self.prepare()
        self.register_kernel()

    def register_kernel(self):
        from humming import ops

        kernel_filename = self.kernel_filename
        self.kernel_id, self.kernel_name = ops.register_kernel(kernel_filename)
        self._id2kernel[self.kernel_id] = self

    @property
    def estimated_smem_size(self) -> int:
        return estimate_smem_size_config(self, self, self)

    def assert_smem_size_matches_estimate(self) -> None:
        from humming import ops

        actual = ops.get_kernel_smem_size(self.kernel_id)
        estimated = self.estimated_smem_size
        assert actual == estimated, (
            f"shared-memory estimate mismatch for {self.kernel_name}: "
            f"estimated={estimated}, actual={actual}, "
            f"config={self.to_str()}"
        )

    @functools.cached_property
    def get_kernel_id(self):
        module = jit_utils.make_humming_module("get_kernel_id", self.kernel_id)
        return module.get_kernel_id

    @property
    def use_native_ldmatrix_dequant(self):
        has_native_conversion = self.use_ldmatrix_dequant and self.b_dtype.num_bits == 4
        has_native_target = self.sm_version >= 90 and _cuda_compiler_version(self._get_compiler()) >= (13, 4)
        return has_native_conversion and has_native_target

    def postprocess_cubin(self, cubin_path: str):
        if self.use_ldmatrix_dequant and not self.use_native_ldmatrix_dequant:
            from humming.utils.cubin import patch_cubin

            mode = "ldmatrix_s4_s8" if self.b_dtype.num_bits == 4 else "ldmatrix_s2_s4"
            if patch_cubin(cubin_path=cubin_path, mode=mode) == 0:
                raise RuntimeError("No ldmatrix dequantization placeholders found in cubin")
        if self.mma_type == MmaType.UMMA:
            return  # UMMA encodes operand formats directly in its descriptor.
        mode = ""
        if dtypes.float8e3m4 in (self.mma_a_dtype, self.mma_b_dtype):
            if self.mma_a_dtype != dtypes.float8e3m4:
                mode = "mma_e3m4_b"
            elif self.mma_b_dtype != dtypes.float8e3m4:
                mode = "mma_e3m4_a"
            else:
                mode = "mma_e3m4_ab"
        elif dtypes.float4e0m3 in (self.mma_a_dtype, self.mma_b_dtype):
            if self.mma_a_dtype != dtypes.float4e0m3:
                mode = "mma_e0m3_b"
            elif self.mma_b_dtype != dtypes.float4e0m3:
                mode = "mma_e0m3_a"
            else:
                mode = "mma_e0m3_ab"

        if mode:
            from humming.utils.cubin import patch_cubin

            patch_cubin(cubin_path=cubin_path, mode=mode)

    def select_mma_dtypes(self):
        self.mma_a_dtype = self.a_dtype
        mma_native_mixed = (
            self.mma_type == MmaType.MMA
            and not self.use_fused_e8m0_scale
            and self.sm_version // 10 == 12
            and self.warp_shape[0] % 16 == 0
            and self.a_dtype in (dtypes.float8e4m3, dtypes.float8e5m2, dtypes.float8e3m4)
            and self.b_dtype in (dtypes.float4e2m1, dtypes.float6e3m2, dtypes.float6e2m3)
        )
        use_native_weight = self.a_dtype.num_bits == self.b_dtype.num_bits or self.use_umma_ss
        use_native_weight |= mma_native_mixed
        use_native_weight |= self.mma_type == MmaType.MXMMA and self.mxmma_native_mixed
        if use_native_weight:
            self.mma_b_dtype = self.b_dtype
        else:
            self.mma_b_dtype = get_mma_b_dtype(
                self.a_dtype, self.b_dtype, self.has_zero_point, self.sm_version
            )

    def select_mma_op_class(self):
        if self.mma_type == MmaType.MXMMA:
            mma_shape_m, mma_shape_n = 16, 8
            mma_shape_k = 256 // self.a_dtype.num_bits
            assert self.warp_shape[0] % mma_shape_m == 0
            assert self.warp_shape[1] % mma_shape_n == 0
            assert self.warp_shape[2] % mma_shape_k == 0
            scale_vec, sf_dtype = get_mxmma_scale_config(self)
            return MmaOpClass.from_config(
                self.mma_type,
                mma_shape_m,
                mma_shape_n,
                mma_shape_k,
                self.mma_a_dtype,
                self.mma_b_dtype,
                dtypes.float32,
                sf_dtype=sf_dtype,
                scale_vec=scale_vec,
            )

        if self.a_dtype in [dtypes.int4, dtypes.int8]:
            mma_cd_dtype = dtypes.int32
        elif self.use_f16_accum:
            mma_cd_dtype = self.c_dtype
        else:
            mma_cd_dtype = dtypes.float32

        mma_shape_m = self.warp_shape[0] if self.mma_type == MmaType.WGMMA else 16
        if self.mma_type == MmaType.UMMA and self.warp_shape[0] % 16 == 8:
            mma_shape_m = 8
        mma_shape_n = 64 if self.mma_type == MmaType.WGMMA else 8
        if current_device.is_ppu:
            mma_shape_n = 16
        mma_shape_k = 256 // self.a_dtype.num_bits
        if self.sm_version == 75:
            if self.a_dtype == dtypes.float16:
                mma_shape_k = 8
            elif self.a_dtype in (dtypes.int8, dtypes.int4):
                mma_shape_m = 8

        if self.mma_type == MmaType.MMA and self.warp_shape[0] % 16 == 8:
            mma_shape_m = 8

        uses_half_m_float = not current_device.is_ppu and self.a_dtype in (dtypes.float16, dtypes.bfloat16)
        if self.mma_type == MmaType.MMA and mma_shape_m == 8:
            if uses_half_m_float:
                mma_shape_n = 16
            else:
                mma_shape_k = mma_shape_k // 2

        if self.mma_type == MmaType.WGMMA:
            assert self.warp_shape[0] % mma_shape_m == 0
            assert self.warp_shape[1] % (mma_shape_n // 4) == 0
        else:
            assert self.warp_shape[0] % mma_shape_m == 0
            assert self.warp_shape[1] % mma_shape_n == 0
        assert self.warp_shape[2] % mma_shape_k == 0

        scale_dtype = dtypes.float8e8m0
        if self.is_group_input_scale:
            scale_dtype = self.as_dtype
        elif self.is_group_weight_scale:
            scale_dtype = self.bs_dtype

        return MmaOpClass.from_config(
            self.mma_type,
            mma_shape_m,
            mma_shape_n,
            mma_shape_k,
            self.mma_a_dtype,
            self.mma_b_dtype,
            mma_cd_dtype,
            sf_dtype=scale_dtype,
        )

    def check_shape(self):
        assert self.problem_shape[1] % self.block_shape[1] == 0
        assert self.problem_shape[2] % self.block_shape[2] == 0
        assert self.block_shape[0] % self.warp_shape[0] == 0
        assert self.block_shape[1] % self.warp_shape[1] == 0
        assert self.block_shape[2] % self.warp_shape[2] == 0

        assert self.warp_shape[1] % 16 == 0
        assert jit_utils.is_power_of_two(self.block_shape[1])
        assert jit_utils.is_power_of_two(self.block_shape[2])
        assert jit_utils.is_power_of_two(self.warp_shape[1])
        assert jit_utils.is_power_of_two(self.warp_shape[2])
        assert jit_utils.is_power_of_two(self.block_shape[0] // self.warp_shape[0])
        assert jit_utils.is_power_of_two(self.block_shape[1] // self.warp_shape[1])
        assert jit_utils.is_power_of_two(self.block_shape[2] // self.warp_shape[2])
        if self.mma_type == MmaType.WGMMA:
            n_warps = self.block_shape[1] // self.warp_shape[1]
            assert (n_warps) % 4 == 0, "WGMMA requires complete four-warp groups along N"
        assert self.problem_shape[1] > self.pad_shape[1]
        assert self.problem_shape[2] > self.pad_shape[2]
        assert self.pad_shape[1] % 8 == 0
        assert self.pad_shape[2] % (128 // self.a_dtype.num_bits) == 0

        assert self.warp_shape[1] <= 64
        if self.a_dtype.num_bits == 16:
            assert self.warp_shape[1] >= 32
            assert self.warp_shape[2] >= 32
        elif self.a_dtype.num_bits == 8:
            assert self.warp_shape[1] >= 16
            assert self.warp_shape[2] >= 64
        elif self.a_dtype.num_bits == 4:
            assert self.warp_shape[1] >= 16
            assert self.warp_shape[2] >= 128

    def check_scale(self):
        if self.use_block_scaled_mma:
            mma_k = 256 // self.a_dtype.num_bits
            for gs in (self.input_scale_group_size, self.weight_scale_group_size):
                if gs > 0:
                    assert mma_k % gs == 0
                    assert mma_k // gs in (1, 2, 4)
            if self.input_scale_group_size > 0 and self.weight_scale_group_size > 0:
                assert self.input_scale_group_size == self.weight_scale_group_size
                if self.is_group_weight_scale:
                    err_msg = "MXMMA input and weight per-group scales must use the same dtype"
                    assert self.as_dtype == self.bs_dtype, err_msg
            return

        if self.input_scale_group_size > 0:
            assert self.input_scale_group_size >= 256 // self.a_dtype.num_bits
        if self.weight_scale_group_size > 0:
            assert self.weight_scale_group_size >= 256 // self.a_dtype.num_bits
        if self.weight_scale_group_size_n > 1:
            assert self.weight_scale_group_size_n >= 64

        if self.is_block_weight_scale:
            if self.input_scale_group_size > 0:
                assert self.input_scale_group_size == self.weight_scale_group_size
            assert self.weight_scale_group_size_n > 0
            assert not self.has_zero_point
        if self.is_tensor_weight_scale:
            self.bs_dtype = self.c_dtype
        if self.is_channel_weight_scale_2:
            assert self.is_group_weight_scale

    def check_dtype(self):
        dtype_map = {
            dtypes.int4: 75,
            dtypes.int8: 75,
            dtypes.float4e0m3: 100 if self.mma_type == MmaType.UMMA else 120,
            dtypes.float4e2m1: 100 if self.mma_type == MmaType.UMMA else 120,
            dtypes.float8e3m4: 100 if self.mma_type == MmaType.UMMA else 120,
            dtypes.float8e4m3: 89,
            dtypes.float8e5m2: 89,
            dtypes.bfloat16: 80,
            dtypes.float16: 75,
        }
        assert self.a_dtype in dtype_map
        assert self.sm_version >= dtype_map[self.a_dtype]
        operand_dtype_map = dtype_map | {
            dtypes.float6e3m2: 100 if self.mma_type == MmaType.UMMA else 120,
            dtypes.float6e2m3: 100 if self.mma_type == MmaType.UMMA else 120,
        }
        assert self.mma_b_dtype in operand_dtype_map
        assert self.sm_version >= operand_dtype_map[self.mma_b_dtype]
        if uses_undocumented_fp_operand(self.mma_a_dtype, self.mma_b_dtype):
            err_msg = f"E3M4/E0M3 unavailable on SM{self.sm_version} or CUBIN patching is disabled"
            assert supports_undocumented_fp_dtypes(self.sm_version), err_msg
        assert self.b_dtype.num_bits <= 8
        assert self.b_dtype.num_bits <= self.a_dtype.num_bits
        if self.b_dtype.is_integer_type and self.a_dtype.is_integer_type:
            if self.a_dtype.num_bits == self.b_dtype.num_bits:
                assert self.a_dtype == self.b_dtype
            else:
                assert not self.b_dtype.is_signed
        elif self.b_dtype.is_integer_type and self.a_dtype.is_floating_point_type:
            assert not self.b_dtype.is_signed
            assert self.b_dtype.num_bits < self.a_dtype.num_bits
            if self.has_zero_point:
                assert self.b_dtype.num_bits <= self.mma_b_dtype.mantissa_bits + 1
            else:
                assert self.b_dtype.num_bits <= self.mma_b_dtype.mantissa_bits + 2
        elif self.b_dtype.is_floating_point_type and self.a_dtype.is_floating_point_type:
            assert self.b_dtype.is_signed
            is_native_weight = self.b_dtype == self.mma_b_dtype
            if self.b_dtype.exponent_bits == 0 and not is_native_weight:
                assert self.b_dtype.mantissa_bits <= self.mma_b_dtype.mantissa_bits + 1
            elif not is_native_weight:
                assert self.b_dtype.exponent_bits <= self.mma_b_dtype.exponent_bits
                assert self.b_dtype.mantissa_bits <= self.mma_b_dtype.mantissa_bits
        elif self.b_dtype.is_floating_point_type and self.a_dtype.is_integer_type:
            if self.b_dtype.exponent_bits == 0:
                assert self.a_dtype == dtypes.int8
                assert self.b_dtype.num_bits < self.a_dtype.num_bits
                assert not self.has_zero_point
            else:
                assert self.use_fused_e8m0_scale

        if self.use_f16_accum:
            allowed_f16_dtypes = [dtypes.float16]
            if current_device.is_ppu:
                allowed_f16_dtypes.append(dtypes.bfloat16)

            if self.a_dtype == dtypes.float8e4m3:
                assert self.b_dtype.is_integer_type or self.b_dtype.exponent_bits <= 4
                assert self.c_dtype in allowed_f16_dtypes
            else:
                assert self.a_dtype in allowed_f16_dtypes

    def check_config(self):
        if self.umma_split_async_loads:
            assert self.use_umma_ss and self.gemm_type == GemmType.INDEXED, (
                "umma_split_async_loads requires indexed UMMA SS"
            )
            assert self.supports_umma_split_async_loads, (
                "umma_split_async_loads requires MXFP8 inputs and MXFP4 weights"
            )
            assert self.block_shape[2] % (4 * self.input_scale_group_size) == 0, (
                "umma_split_async_loads requires whole input-scale words"
            )
            assert self.use_tma_b and self.use_tma_bs and not self.use_tma_a, (
                "umma_split_async_loads requires TMA weight and scale loads and indexed input gathers"
            )
        if self.wgmma_use_late_as:
            assert self.mma_type == MmaType.WGMMA, "wgmma_use_late_as requires WGMMA"
            assert self.is_group_input_scale, "wgmma_use_late_as requires per-group input scales"
        if self.wgmma_split_issue_wait:
            assert self.mma_type == MmaType.WGMMA, "wgmma_split_issue_wait requires WGMMA"
        register_error = get_register_budget_error(
            self, self, self.use_f16_accum, current_device.max_registers_per_sm
        )
        if register_error is not None:
            raise ValueError(register_error)
        is_low_bit_mma = self.mma_type == MmaType.MMA and self.a_dtype.num_bits < 16
        has_canonical_group_scales = self.is_group_weight_scale and not self.use_fused_e8m0_scale
        if is_low_bit_mma and has_canonical_group_scales and not current_device.is_ppu:
            assert self.block_shape[1] >= 64, "MMA group scales require block_n >= 64"
        if self.use_block_scaled_mma:
            assert not self.use_f16_accum, "block-scaled layers require FP32 accumulation"
            expected_mma = MmaType.MXMMA if self.sm_version // 10 == 12 else MmaType.UMMA
            assert self.mma_type == expected_mma, "MMA type must support the layer's block-scaled layout"
        if self.mma_type == MmaType.UMMA:
            assert self.is_umma_supported, "UMMA does not support these layer parameters"
            assert _cuda_compiler_version(self._get_compiler()) >= (12, 9)
        if self.mma_type == MmaType.MXMMA:
            compiler_version = _cuda_compiler_version(self._get_compiler())
            compiler_error = get_mxmma_compiler_error(self, compiler_version)
            assert compiler_error is None, compiler_error
        if self.mma_type == MmaType.WGMMA:
            assert self.sm_version == 90, "WGMMA requires SM90"
        has_mixed_raw_weights = self.use_raw_weight and self.a_dtype.num_bits != self.b_dtype.num_bits
        if has_mixed_raw_weights:
            assert self.mma_type == MmaType.UMMA, "mixed raw weights require UMMA SS"
        assert self.num_threads <= 1024
        if self.gemm_type is None and self.num_experts == 0:
            self.gemm_type = GemmType.DENSE
        if self.mma_type != MmaType.UMMA:
            assert self.umma_cta_group_size == 1, "UMMA cooperative execution requires mma_type=umma"
        if self.use_umma_ss:
            assert self.use_tma_b, "SS weight operands require TMA loading"
        if self.mma_type == MmaType.UMMA:
            assert self.umma_num_dequant_warpgroups in (1, 2)
            assert self.a_dtype in (
                dtypes.int8,
                dtypes.bfloat16,
                dtypes.float16,
                dtypes.float8e4m3,
                dtypes.float8e5m2,
                dtypes.float8e3m4,
                dtypes.float4e2m1,
                dtypes.float4e0m3,
            )
            if self.a_dtype == dtypes.int8:
                assert self.sm_version in (100, 110), "INT8 UMMA requires SM100/110; use MMA on SM103/107"
                assert self.b_dtype.is_integer_type
                has_group_scales = self.is_group_input_scale or self.is_group_weight_scale
                has_group_scales |= self.is_block_weight_scale
                assert not has_group_scales, "INT8 UMMA requires scales applied after accumulation"
                block_m = self.block_shape[0]
                assert block_m <= 32 or block_m % 16 == 0, "INT8 UMMA requires M divisible by 16 above M=32"
            elif self.a_dtype.num_bits == 8:
                assert not self.is_block_weight_scale
                if self.use_block_scaled_mma:
                    for group_size, scale_dtype in (
                        (self.input_scale_group_size, self.as_dtype),
                        (self.weight_scale_group_size, self.bs_dtype),
                    ):
                        if group_size:
                            assert group_size == 32 and scale_dtype == dtypes.float8e8m0, (
                                "mxf8f6f4 requires E8M0 scales with group size 32"
                            )
            if self.a_dtype.num_bits == 4:
                assert not self.is_block_weight_scale
                assert self.b_dtype.is_integer_type or self.b_dtype in (dtypes.float4e2m1, dtypes.float4e0m3)
                assert self.use_block_scaled_mma
                for group_size, scale_dtype in (
                    (self.input_scale_group_size, self.as_dtype),
                    (self.weight_scale_group_size, self.bs_dtype),
                ):
                    if group_size:
                        assert (group_size, scale_dtype) in (
                            (32, dtypes.float8e8m0),
                            (16, dtypes.float8e8m0),
                            (16, dtypes.float8e4m3),
                        ), "FP4 UMMA requires group-32 E8M0 or group-16 E8M0/E4M3 scales"
            block_m, block_n, block_k = self.block_shape
            warp_m, warp_n, warp_k = self.warp_shape
            assert block_m == warp_m, "UMMA requires block M to equal warp M"
            assert block_k == warp_k, "UMMA requires block K to equal warp K"
            assert block_n in (128, 256, 512), "UMMA requires block N in (128, 256, 512)"
            assert warp_n == 32
            assert block_k * self.a_dtype.num_bits >= 512, (
                "UMMA requires at least 64 bytes per activation row"
            )
            assert self.num_stages >= 2
            assert self.multi_cast_size_a == self.multi_cast_size_b == 1
            assert self.umma_cta_group_size in (1, 2)
            if self.umma_cta_group_size == 2:
                assert block_m % 16 == 0, "two-CTA UMMA requires block M divisible by 16"
                assert self.problem_shape[1] % (2 * block_n) == 0
                assert self.num_ctas_per_sm == 1

        assert not (self.mma_type == MmaType.MXMMA and self.use_f16_accum)
        if self.mma_type == MmaType.MXMMA and self.has_zero_point:
            self.use_stream_k = False
        if self.mma_type == MmaType.WGMMA:
            assert self.num_stages >= 3, "WGMMA requires at least three pipeline stages"
        if self.use_batch_invariant:
            assert not self.use_stream_k, "batch-invariant kernels require use_stream_k=False"
            assert self.warp_shape[2] == self.block_shape[2], (
                "batch-invariant kernels require warp_shape_k == block_shape_k"
            )
        if self.use_warp_spec:
            assert self.num_math_threads % 128 == 0
        is_channel_weight_scale = self.is_channel_weight_scale
        is_group_weight_scale = self.is_group_weight_scale
        if not (is_channel_weight_scale or is_group_weight_scale):
            self.use_tma_bs = False
        if not self.is_channel_weight_scale_2:
            self.use_tma_bs2 = False
        if not self.has_zero_point:
            self.use_tma_bzp = False
        if not self.has_bias:
            self.use_tma_bias = False
        if self.gemm_type is None and self.num_experts == 0:
            self.gemm_type = GemmType.DENSE
        assert self.gemm_type is not None, "gemm_type must be specify for MoE GEMM"

        if self.is_tensor_input_scale:
            self.use_tma_as = False
            self.use_m_major_input_scale = False

        if self.mma_type == MmaType.MXMMA and self.input_scale_group_size == 0:
            self.use_tma_as = False
            self.use_m_major_input_scale = False

        if self.is_indexed_gemm:
            self.use_tma_as = False
            self.use_tma_as2 = False
        if self.is_grouped_gemm and self.block_shape[0] + 4 > 256:
            # UMMA group scales address the padded M-major rows as 64-bit pairs,
            # and row-major boxes hold no padding rows.
            if self.mma_type != MmaType.UMMA or not self.is_group_input_scale:
                self.use_tma_as = False
            self.use_tma_as2 = False
        # UMMA preloads secondary scales directly into epilogue registers.
        if self.mma_type == MmaType.UMMA or not self.has_input_scale_2 or self.is_tensor_input_scale_2:
            self.use_tma_as2 = False

        if self.is_indexed_gemm:
            assert not self.use_tma_a, "indexed GEMM does not support TMA input loads"
            assert not self.use_tma_c, "indexed GEMM does not support TMA output stores"
            assert not self.use_tma_as, "indexed GEMM does not support TMA input scale loads"
            assert not self.use_tma_as2, "indexed GEMM does not support TMA secondary input scale loads"

        # The scheduler maps multicast CTAs along one axis. Across M, MoE
        # clusters can cross expert boundaries and therefore cannot share B.
        assert self.multi_cast_size_a == 1 or self.multi_cast_size_b == 1, (
            "simultaneous A and B multicast is unsupported"
        )
        if self.multi_cast_size_b > 1:
            assert self.gemm_type == GemmType.DENSE, "B multicast requires dense GEMM"
        if self.multi_cast_size_a * self.multi_cast_size_b > 1:
            assert self.use_warp_spec, "multicast requires warp specialization"
            assert self.sm_version == 90 or self.sm_version // 10 in (10, 11)

        if self.use_tma_as and not self.use_m_major_input_scale:
            # Row-major group scales load as a 2D box into the row-major UMMA stage layout.
            scale_words = self.input_scale_group_size * 4
            row_words = math.ceil((self.shape_k - self.pad_shape_k) / max(1, scale_words))
            has_row_major_stage = self.mma_type == MmaType.UMMA and self.is_group_input_scale
            has_row_major_stage = has_row_major_stage and self.block_shape[2] % max(1, scale_words) == 0
            assert has_row_major_stage and row_words % 4 == 0, (
                "use_tma_as requires m-major input scales or 16-byte aligned row-major UMMA group scales"
            )

        if self.use_packed_k_layout:
            assert self.mma_type == MmaType.WGMMA, "packed-K weights require WGMMA"
            warp_k = self.warp_shape[2]
            assert warp_k == 128, "use_packed_k_layout requires warp_k=128"
            # Fused weight scales are applied to each B slab before WGMMA.
            weight_group_size = 0 if self.use_fused_e8m0_scale else self.weight_scale_group_size
            for gs in (self.input_scale_group_size, weight_group_size):
                assert gs == 0 or gs >= warp_k

    def __call__(self):
        msg = (
            "don't call HummingKernel object directly, "
            "please use humming.ops.launch_kernel([kernel.kernel_id], ...) instead."
        )
        raise NotImplementedError(msg)

    @staticmethod
    def _prepare_config_str(config: str | dict | list | None) -> str:
        if config is None:
            return "{}"
        return config if isinstance(config, str) else str(config)

    @staticmethod
    def _prepare_config_obj(config: str | dict | list | None):
        if config is None:
            return {}
        return json.loads(config) if isinstance(config, str) else config

    @classmethod
    def _resolve_configs(cls, layer_config, compute_config, tuning_config, device=None):
        device_index = get_device_index(device)
        layer_obj = dict(cls._prepare_config_obj(layer_config))
        compute_obj = dict(cls._prepare_config_obj(compute_config))
        tuning_obj = cls._prepare_config_obj(tuning_config)
        layer_obj.pop("sublayer_name", None)
        with torch.cuda.device(device_index):
            layer_config_obj = LayerConfig(**layer_obj)
            layer_config_obj.check_device(device_index)
            layer_obj["sm_version"] = layer_config_obj.sm_version
            if not tuning_obj:
                tuning_obj = get_heuristics_config(layer_config_obj, **compute_obj, device=device_index)
        return layer_obj, compute_obj, tuning_obj

    @classmethod
    def prepare_kernels(
        cls,
        layer_config: str | dict,
        compute_config: str | dict | None = None,
        tuning_config: str | dict | list | None = None,
        device: int | torch.device | None = None,
    ) -> "torch.Tensor":
        device_index = get_device_index(device)
        layer_config_str = cls._prepare_config_str(layer_config)
        compute_config_str = cls._prepare_config_str(compute_config)
        tuning_config_str = cls._prepare_config_str(tuning_config)
        cache_key = (layer_config_str, compute_config_str, tuning_config_str, device_index)
        if cache_key in cls._str2kernel_cache:
            return cls._str2kernel_cache[cache_key]

        config_objs = cls._resolve_configs(layer_config, compute_config, tuning_config, device_index)
        layer_config_obj, compute_config_obj, tuning_config_obj = config_objs

        if isinstance(tuning_config_obj, dict):
            config = layer_config_obj | compute_config_obj | tuning_config_obj
            num_sms = config.pop("num_sms", 0)
            with torch.cuda.device(device_index):
                kernel = HummingKernel(**config)
            res = torch.tensor(
                [0, 1 << 30, kernel.kernel_id, num_sms],
                dtype=torch.int64,
                device="cpu",
            )
            cls._str2kernel_cache[cache_key] = res
            return res

        kernel_specs = []
        interval_configs = []
        for interval_config in tuning_config_obj:
            _, _, tuning_config_obj_single = interval_config
            kernel_config = layer_config_obj | compute_config_obj | tuning_config_obj_single
            num_sms = kernel_config.pop("num_sms", 0)
            kernel_specs.append((cls, kernel_config))
            interval_configs.append((interval_config, num_sms))

        res = []
        kernels = cls.compile_many(kernel_specs, device_index)
        for (config, num_sms), kernel in zip(interval_configs, kernels, strict=True):
            res += [config[0], config[1], kernel.kernel_id, num_sms]

        res = torch.tensor(res, dtype=torch.int64, device="cpu")
        cls._str2kernel_cache[cache_key] = res
        return res
