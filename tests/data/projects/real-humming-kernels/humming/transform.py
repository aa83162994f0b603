import dataclasses
import warnings

import torch

from humming import dtypes, ops
from humming.config import LayerConfig, WeightScale2Type, WeightScaleType
from humming.device import DeviceInfo, current_device
from humming.schema import HummingInputSchema, HummingWeightSchema
from humming.utils.math import round_up
from humming.utils.weight import decode_e5m3_scale


def get_kernel_weight_scale_group_size(
    weight_schema: HummingWeightSchema,
    input_schema: HummingInputSchema,
    a_dtype: dtypes.DataType,
) -> int:
    group_size = weight_schema.weight_scale_group_size
    if weight_schema.weight_scale_type != WeightScaleType.GROUP or group_size & (group_size - 1) == 0:
        return group_size
    # Kernel K tiles are powers of two, so split each group into equal
    # power-of-two subgroups whose boundaries line up with every tile.
    split_size = group_size & -group_size
    unsupported = f"weight scale group size {group_size} is not a power of two"
    if input_schema.input_scale_group_size > 0:
        raise ValueError(f"{unsupported}, which group input scales do not support")
    min_group_size = 256 // a_dtype.num_bits
    if split_size < min_group_size:
        raise ValueError(
            f"{unsupported} and only splits into groups of {split_size}, "
            f"below the minimum of {min_group_size} for {a_dtype} activations"
        )
    warnings.warn(
        f"{unsupported}; splitting into groups of {split_size}, "
        f"which uses {group_size // split_size}x more scale memory",
        stacklevel=2,
    )
    return split_size


def regroup_weight_scale_tensors(config: LayerConfig, tensors: dict[str, torch.Tensor]) -> None:
    if config.weight_scale_type != WeightScaleType.GROUP or config.use_fused_e8m0_scale:
        return
    num_groups = (config.shape_k - config.pad_shape_k) // config.weight_scale_group_size
    for key in ("weight_scale", "zero_point"):
        tensor = tensors.get(key)
        if tensor is None or tensor.size(-1) in (0, num_groups) or num_groups % tensor.size(-1) != 0:
            continue
        tensors[key] = tensor.repeat_interleave(num_groups // tensor.size(-1), dim=-1)


def prepare_layer_config(
    shape_n: int,
    shape_k: int,
    weight_schema: HummingWeightSchema,
    input_schema: HummingInputSchema | None = None,
    num_experts: int | None = None,
    pad_n_to_multiple: int = 1,
    pad_k_to_multiple: int = 1,
    has_bias: bool = False,
    torch_dtype: torch.dtype | None = None,
    device: int | torch.device | None = None,
    tensors: dict[str, torch.Tensor] | None = None,
    allow_inplace: bool = False,
) -> LayerConfig:
    info = DeviceInfo(device)
    sm_version = info.sm_version
    if torch_dtype is None:
        torch_dtype = torch.get_default_dtype()
        if torch_dtype not in [torch.float16, torch.bfloat16]:
            torch_dtype = torch.bfloat16 if info.sm_major >= 8 else torch.float16

    f16_dtype = dtypes.DataType.from_torch_dtype(torch_dtype)
    pad_shape_n = round_up(shape_n, pad_n_to_multiple) - shape_n
    pad_shape_k = round_up(shape_k, pad_k_to_multiple) - shape_k

    if input_schema is None:
        input_schema = HummingInputSchema(a_dtype=f16_dtype)

    assert isinstance(input_schema, HummingInputSchema)
    assert isinstance(weight_schema, HummingWeightSchema)

    b_dtype = weight_schema.b_dtype
    a_dtype = input_schema.a_dtype or f16_dtype
    is_e0m_weight = b_dtype.is_floating_point_type and b_dtype.exponent_bits == 0
    if a_dtype.is_integer_type and is_e0m_weight:
        if tensors is None:
            raise ValueError("tensors are required to prepare E0M weights for integer activations")
        midpoint = 1 << (b_dtype.num_bits - 1)
        tensors["weight"] = ops.convert_weight(
            tensors["weight"],
            str(b_dtype),
            f"uint{b_dtype.num_bits}",
            inplace=allow_inplace,
        )
        if weight_schema.has_zero_point:
            tensors["zero_point"] = tensors["zero_point"] + midpoint
        b_dtype = dtypes.IntegerType(num_bits=b_dtype.num_bits)

    use_channel_scale_2 = (
        input_schema.a_dtype == dtypes.int8
        and weight_schema.b_dtype == dtypes.float4e2m1
        and weight_schema.bs_dtype == dtypes.float8e8m0
        and weight_schema.weight_scale_type == WeightScaleType.GROUP
    )
    weight_scale_2_type = weight_schema.weight_scale_2_type
    if use_channel_scale_2:
        weight_scale_2_type = WeightScale2Type.CHANNEL

    config_kwargs = dict(
        sm_version=sm_version,
        a_dtype=input_schema.a_dtype or f16_dtype,
        b_dtype=b_dtype,
        bs_dtype=weight_schema.bs_dtype or f16_dtype,
        as_dtype=input_schema.input_scale_dtype,
        input_quant_mode=input_schema.input_quant_mode,
        c_dtype=f16_dtype,
        shape_n=shape_n + pad_shape_n,
        shape_k=shape_k + pad_shape_k,
        pad_shape_n=pad_shape_n,
        pad_shape_k=pad_shape_k,
        num_experts=num_experts or 0,
        has_bias=has_bias,
        input_scale_group_size=input_schema.input_scale_group_size,
        weight_scale_group_size=get_kernel_weight_scale_group_size(weight_schema, input_schema, a_dtype),
        weight_scale_group_size_n=weight_schema.weight_scale_group_size_n,
        weight_scale_type=weight_schema.weight_scale_type,
        weight_scale_2_type=weight_scale_2_type,
        has_zero_point=weight_schema.has_zero_point,
        is_fp_zero_point=weight_schema.is_fp_zero_point,
    )
    config = LayerConfig(**config_kwargs)
    if config.use_fused_e8m0_scale and tensors is not None:
        config = fit_fused_e8m0_scale_range(config, config_kwargs, tensors)
    return config


def fit_fused_e8m0_scale_range(
    config: LayerConfig,
    config_kwargs: dict,
    tensors: dict[str, torch.Tensor],
) -> LayerConfig:
    """Use per-row E8M0 ranges when a per-tensor range would round blocks.

    The fused E8M0 path only represents scales within 11 (FP8) or 3 (INT8)
    binades of the largest scale of the tensor, or of each row with a channel
    weight_scale_2. Shards of a fused projection (e.g. q, k and v) can differ
    by more than that; a per-row range gives each shard its own range at the
    cost of a per-channel scale in the epilogue.
    """
    weight_scale = tensors["weight_scale"]
    is_channel_scale_2 = config.weight_scale_2_type == WeightScale2Type.CHANNEL
    has_e8m0_codes = weight_scale.dtype in (torch.uint8, torch.float8_e8m0fnu)
    if is_channel_scale_2 or not has_e8m0_codes or config.weight_scale_group_size_n > 1:
        return config

    max_range = 11 if config.a_dtype == dtypes.float8e4m3 else 3
    num_groups = weight_scale.size(-1)
    codes = weight_scale.view(torch.uint8).view(config.num_experts or 1, -1, num_groups).short()
    weight_bytes = tensors["weight"].view(torch.uint8).view(*codes.shape, -1)
    # 0x77 masks the sign bit of both packed E2M1 values.
    has_value = ((weight_bytes & 0x77) != 0).any(-1)
    scale_max = codes.amax(dim=(-2, -1), keepdim=True)
    if not (has_value & (codes < scale_max - max_range)).any():
        return config
    return LayerConfig(**{**config_kwargs, "weight_scale_2_type": WeightScale2Type.CHANNEL})


def prepare_and_transform_humming_tensors(
    tensors: dict[str, torch.Tensor],
    shape_n: int,
    shape_k: int,
    weight_schema: HummingWeightSchema,
    input_schema: HummingInputSchema | None = None,
    num_experts: int | None = None,
    pad_n_to_multiple: int = 1,
    pad_k_to_multiple: int = 1,
    has_bias: bool = False,
    torch_dtype: torch.dtype | None = None,
    device: int | torch.device | None = None,
    allow_inplace: bool = False,
) -> tuple[LayerConfig, dict[str, torch.Tensor]]:
    tensors = tensors.copy()
    config = prepare_layer_config(
        shape_n=shape_n,
        shape_k=shape_k,
        weight_schema=weight_schema,
        input_schema=input_schema,
        num_experts=num_experts,
        pad_n_to_multiple=pad_n_to_multiple,
        pad_k_to_multiple=pad_k_to_multiple,
        has_bias=has_bias,
        torch_dtype=torch_dtype,
        device=device,
        tensors=tensors,
        allow_inplace=allow_inplace,
    )
    return config, transform_humming_tensors(config, tensors, allow_inplace=allow_inplace)


def check_and_pad_tensors(config: LayerConfig, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    tensors = tensors.copy()
    regroup_weight_scale_tensors(config, tensors)
    schema = HummingWeightSchema(
        b_dtype=config.b_dtype,
        bs_dtype=config.bs_dtype,
        weight_scale_group_size=config.weight_scale_group_size,
        weight_scale_group_size_n=config.weight_scale_group_size_n,
        weight_scale_type=config.weight_scale_type,
        weight_scale_2_type=config.weight_scale_2_type,
        has_zero_point=config.has_zero_point,
        is_fp_zero_point=config.is_fp_zero_point,
    )

    if config.use_int_weight_scale:
        dtype = dtypes.torch_dtype_map[config.bs_dtype]
        scale = tensors["weight_scale"]
        if scale.dtype == torch.uint8:
            scale = decode_e5m3_scale(scale)
        tensors["weight_scale"] = scale.to(dtype)

    if config.use_int_weight_scale or config.use_fused_e8m0_scale:
        if (
            config.weight_scale_2_type == WeightScale2Type.CHANNEL
            and "weight_scale_2" in tensors
            and tensors["weight_scale_2"].ndim == 1
        ):
            weight_scale_2 = tensors["weight_scale_2"]
            shape_n = config.shape_n - config.pad_shape_n
            if config.num_experts:
                weight_scale_2 = weight_scale_2.unsqueeze(-1)
                tensors["weight_scale_2"] = weight_scale_2.expand(-1, shape_n)
            elif weight_scale_2.numel() == 1:
                tensors["weight_scale_2"] = weight_scale_2.expand(shape_n)
        if "weight_scale_2" not in tensors:
            if config.weight_scale_2_type == WeightScale2Type.CHANNEL:
                shape: tuple[int, ...] = (config.shape_n - config.pad_shape_n,)
                if config.num_experts:
                    shape = (config.num_experts,) + shape
                tensors["weight_scale_2"] = torch.ones(
                    shape,
                    device=tensors["weight_scale"].device,
                    dtype=config.param_dtype,
                )
            else:
                tensors["weight_scale_2"] = torch.ones(
                    (config.num_experts or 1),
                    device=tensors["weight_scale"].device,
                    dtype=torch.float32,
                )

    schema.validate_tensors(
        tensors,
        shape_n=config.shape_n - config.pad_shape_n,
        shape_k=config.shape_k - config.pad_shape_k,
        num_experts=config.num_experts,
        param_dtype=config.param_dtype,
        has_bias=config.has_bias,
    )

    tensors_attrs = schema.get_tensors_attrs(
        shape_n=config.shape_n,
        shape_k=config.shape_k,
        num_experts=config.num_experts,
        param_dtype=config.param_dtype,
        has_bias=config.has_bias,
    )

    for key, attrs in tensors_attrs.items():
        shape = attrs["shape"]
        tensor = tensors[key]
        if (
            key == "weight_scale"
            and config.use_fused_e8m0_scale
            and tensor.dtype == torch.float8_e8m0fnu
            and tensor.shape[-1] < shape[-1]
        ):
            pad_size = shape[-1] - tensor.shape[-1]
            scale_max = tensor.view(torch.uint8).amax(-1, keepdim=True)
            scale_pad = scale_max.expand(*tensor.shape[:-1], pad_size)
            tensor = torch.cat((tensor.view(torch.uint8), scale_pad), dim=-1)
            tensor = tensor.view(torch.float8_e8m0fnu)
        if (
            key == "weight_scale"
            and config.use_fused_e8m0_scale
            and tensor.dtype == torch.float8_e8m0fnu
            and tensor.shape[-2] < shape[-2]
        ):
            # Padding rows with 2^0 would raise the range that
            # process_fused_e8m0_scale keeps above every real scale.
            pad_size = shape[-2] - tensor.shape[-2]
            scale_max = tensor.view(torch.uint8).amax((-2, -1), keepdim=True)
            scale_pad = scale_max.expand(*tensor.shape[:-2], pad_size, tensor.shape[-1])
            tensor = torch.cat((tensor.view(torch.uint8), scale_pad), dim=-2)
            tensor = tensor.view(torch.float8_e8m0fnu)
        padding: list[int] = []
        value = 0 if tensor.dtype != torch.float8_e8m0fnu else 1
        for i in range(1, len(shape) + 1):
            padding += (0, shape[-i] - tensor.shape[-i])

        tensors[key] = torch.nn.functional.pad(tensor, pad=padding, value=value)

    return tensors


def process_int_weight_scale(
    config: LayerConfig,
    weight_scale: torch.Tensor,
    weight_scale_2: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    if config.bs_dtype is not None and config.bs_dtype.num_bits == 8:
        assert weight_scale is not None
        torch_dtype = dtypes.torch_dtype_map[config.c_dtype]
        weight_scale = weight_scale.to(torch_dtype)

    assert weight_scale is not None
    dtype = weight_scale.dtype
    assert dtype in [torch.float16, torch.bfloat16]
    scale_factor = weight_scale.float().abs().max() / 1024
    weight_scale = (weight_scale.float() / scale_factor).round().to(torch.int16)
    weight_scale = weight_scale.view(dtype)

    if weight_scale_2 is not None:
        out_weight_scale_2 = weight_scale_2 * scale_factor
    else:
        out_weight_scale_2 = torch.full(
            (config.num_experts or 1,),
            fill_value=scale_factor.item(),
            device=weight_scale.device,
        )

    return weight_scale, out_weight_scale_2


def process_fused_e8m0_scale(
    config: LayerConfig,
    weight: torch.Tensor,
    weight_scale: torch.Tensor,
    weight_scale_2: torch.Tensor | None = None,
    allow_inplace: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    origin_dtype = weight_scale.dtype
    origin_shape = weight_scale.shape
    assert origin_dtype in [torch.uint8, torch.float8_e8m0fnu]
    num_experts = config.num_experts or 1
    is_channel = config.weight_scale_2_type == WeightScale2Type.CHANNEL
    num_rows = config.shape_n if is_channel else 1
    weight_scale = weight_scale.view(torch.uint8).view(num_experts, num_rows, -1)

    scale_max = weight_scale.amax(-1, keepdim=True)
    scale_min = weight_scale.amin(-1, keepdim=True)
    scale_range = scale_max - scale_min
    if config.a_dtype == dtypes.int8:
        max_range_val = 3
    elif config.a_dtype == dtypes.float8e4m3:
        max_range_val = 11
    else:
        raise ValueError(f"unsupported a_dtype: {config.a_dtype}")

    max_range = torch.tensor(max_range_val, dtype=torch.uint8, device=scale_range.device)
    scale_range = scale_range.minimum(max_range)
    scale_min_new = scale_max - scale_range
    delta_scale_offsets = weight_scale.maximum(scale_min_new) - weight_scale
    delta_scale_offsets = delta_scale_offsets.view(num_experts, -1)
    weight_scale = weight_scale.maximum(scale_min_new) - scale_min_new
    if config.a_dtype == dtypes.float8e4m3:
        weight_scale = weight_scale + 1
    weight_scale = weight_scale.view(origin_dtype).view(origin_shape)
    weight = ops.process_mxfp4_w4a8_weight(weight, delta_scale_offsets, inplace=allow_inplace)

    scale_factor = 2 ** (scale_min_new.view(num_experts, num_rows).float() - 127)
    scale_factor = scale_factor / 2
    if is_channel:
        if not config.num_experts:
            scale_factor = scale_factor.squeeze(0)
    else:
        scale_factor = scale_factor.view(-1)
    if weight_scale_2 is not None:
        out_weight_scale_2 = weight_scale_2.float() * scale_factor
    else:
        out_weight_scale_2 = scale_factor

    return weight, weight_scale, out_weight_scale_2


def transform_humming_weight(
    weight: torch.Tensor,
    b_dtype: dtypes.DataType,
    a_dtype: dtypes.DataType,
    zero_point: torch.Tensor | None = None,
    use_fused_e8m0_scale: bool = False,
    packed: bool = False,
    padded_shape_n: int | None = None,
    padded_shape_k: int | None = None,
    interleave_mode: int = 3,
    use_packed_k_layout: bool = False,
    use_native_dequant: bool = False,
    use_raw_weight: bool = False,
    use_flat_weight: bool = False,
    use_ldmatrix_dequant: bool = False,
    allow_inplace: bool = False,
) -> torch.Tensor:
    is_moe = weight.ndim == 3
    weight = weight.unsqueeze(0) if not is_moe else weight
    if zero_point is not None:
        zero_point = zero_point.unsqueeze(0) if zero_point.ndim == 2 else zero_point
    shape_n = weight.size(-2)
    if packed:
        assert weight.size(-1) * 32 % b_dtype.num_bits == 0
        shape_k = weight.size(-1) * 32 // b_dtype.num_bits
    else:
        shape_k = weight.size(-1)

    padded_shape_n = shape_n if padded_shape_n is None else padded_shape_n
    padded_shape_k = shape_k if padded_shape_k is None else padded_shape_k
    packed_block_size_k = 256 // a_dtype.num_bits

    assert padded_shape_n % 64 == 0
    assert padded_shape_k % (2 * packed_block_size_k) == 0

    has_matching_integer_operands = a_dtype in (dtypes.int4, dtypes.int8) and b_dtype in (
        a_dtype,
        dtypes.IntegerType(num_bits=a_dtype.num_bits, is_signed=False),
    )
    if has_matching_integer_operands or use_ldmatrix_dequant:
        # Humming stores integer weights as offset-binary codes.
        if not packed:
            weight = ops.pack_weight(weight, b_dtype.num_bits)
        weight = ops.convert_weight(
            weight,
            f"uint{b_dtype.num_bits}",
            f"int{b_dtype.num_bits}",
            inplace=allow_inplace,
        )
        packed = True

    if use_raw_weight or use_flat_weight or a_dtype.num_bits == b_dtype.num_bits:
        if not use_ldmatrix_dequant and a_dtype.num_bits == 8 and b_dtype.num_bits < 8:
            padded_shape_k = round_up(padded_shape_k, 128)
        if not packed:
            weight = ops.pack_weight(weight, b_dtype.num_bits)
        weight = torch.nn.functional.pad(
            weight, (0, (padded_shape_k - shape_k) * b_dtype.num_bits // 32, 0, padded_shape_n - shape_n)
        )
        if use_flat_weight:
            original_shape = weight.shape
            num_k_chunks = padded_shape_k * b_dtype.num_bits // 128
            weight = weight.reshape(-1, padded_shape_n // 64, 64, num_k_chunks, 4)
            weight = weight.permute(0, 3, 1, 2, 4).contiguous().reshape(original_shape)
        if current_device.is_ppu:
            # Match the even-then-odd channel order of PPU MMA's B operand.
            weight = weight.view(-1, padded_shape_n // 8, 8, weight.size(-1))
            weight = weight[:, :, [0, 2, 4, 6, 1, 3, 5, 7], :]
            weight = weight.reshape(-1, padded_shape_n, weight.size(-1))
        return weight if is_moe else weight.squeeze(0)

    should_preprocess_for_int2fp = False
    has_zero_point = zero_point is not None and zero_point.nelement() > 0
    if b_dtype.is_integer_type and a_dtype.is_floating_point_type:
        if a_dtype.num_bits < 16:
            should_preprocess_for_int2fp = True
        elif a_dtype == dtypes.bfloat16 and has_zero_point:
            should_preprocess_for_int2fp = b_dtype.num_bits > 6
        elif a_dtype == dtypes.bfloat16 and not has_zero_point:
            should_preprocess_for_int2fp = b_dtype.num_bits > 7

    if not should_preprocess_for_int2fp and has_zero_point:
        has_zero_point = False

    should_preprocess_with_zp = has_zero_point
    if zero_point is not None and zero_point.dtype.is_floating_point:
        should_preprocess_with_zp = False
        should_preprocess_for_int2fp = False

    if not has_zero_point:
        group_size_zp = 0
    else:
        assert zero_point is not None
        group_size_zp = shape_k // zero_point.size(-1)

    if use_packed_k_layout:
        assert a_dtype.num_bits == 8, "use_packed_k_layout requires 8-bit (fp8/int8) activation"
        assert b_dtype.num_bits % 2 == 0, "use_packed_k_layout requires even-bit weight"

    if current_device.is_ppu:
        ppu_perm = [0, 2, 4, 6, 1, 3, 5, 7]
        weight = weight.view(-1, shape_n // 8, 8, weight.size(-1))
        weight = weight[:, :, ppu_perm, :]
        weight = weight.view(-1, shape_n, weight.size(-1))
        if should_preprocess_with_zp:
            # Repacking subtracts the zero point before converting int weights.
            # Match the permuted weight rows while keeping the caller's ZP intact.
            unpack_dtype = torch.uint8 if b_dtype.num_bits <= 8 else torch.int32
            unpacked_zp = ops.unpack_weight(
                zero_point.transpose(-1, -2).contiguous(),
                b_dtype.num_bits,
                dtype=unpack_dtype,
            )
            unpacked_zp = unpacked_zp.view(*unpacked_zp.shape[:-1], shape_n // 8, 8)
            unpacked_zp = unpacked_zp[..., ppu_perm].flatten(-2).contiguous()
            zero_point = ops.pack_weight(unpacked_zp, b_dtype.num_bits).transpose(-1, -2).contiguous()

    repacked_weight = ops.repack_weight(
        inputs=weight,
        zero_point=zero_point,
        weight_bits=b_dtype.num_bits,
        activation_bits=a_dtype.num_bits,
        is_weight_packed=packed,
        should_preprocess_for_int2fp=should_preprocess_for_int2fp,
        should_preprocess_with_zp=should_preprocess_with_zp,
        interleave_mode=interleave_mode,
        use_fused_e8m0_scale=use_fused_e8m0_scale,
        group_size_zp=group_size_zp,
        use_packed_k_layout=use_packed_k_layout,
        use_native_dequant=use_native_dequant,
        inplace=allow_inplace and packed,
    )
    return repacked_weight if is_moe else repacked_weight.squeeze(0)


def prepare_fp16_e8m0_scale(
    config: LayerConfig, tensors: dict[str, torch.Tensor]
) -> tuple[LayerConfig, dict[str, torch.Tensor]]:
    """Extract a tensor scale only when E8M0 exceeds the padded E5M0 range."""
    use_e5m0 = config.bs_dtype == dtypes.float8e8m0 and config.c_dtype == dtypes.float16
    use_e5m0 &= not config.use_fused_e8m0_scale and not config.use_block_scaled_mma
    if not use_e5m0 or config.is_tensor_weight_scale:
        return config, tensors

    scales = tensors["weight_scale"]
    exponents = scales.view(torch.uint8).to(torch.int16).reshape(config.num_experts or 1, -1) - 127
    valid_exponents = exponents
    if config.pad_shape_n or config.pad_shape_k:
        shape_n = config.shape_n - config.pad_shape_n
        shape_k = config.shape_k - config.pad_shape_k
        group_size = config.weight_scale_group_size or shape_k
        num_groups = (shape_k + group_size - 1) // group_size
        shaped_exponents = exponents.reshape(config.num_experts or 1, *scales.shape[-2:])
        valid_exponents = shaped_exponents[:, :shape_n, :num_groups].flatten(1)
    minimum = valid_exponents.amin(-1)
    maximum = valid_exponents.amax(-1)
    if bool(((minimum >= -14) & (maximum <= 15)).all()):
        return config, tensors

    # If both ends cannot fit, anchor the largest scale and underflow the low end.
    lower_shift = maximum - 15
    upper_shift = minimum + 14
    shift = torch.where(maximum > 15, lower_shift, torch.maximum(upper_shift, lower_shift).clamp_max(0))
    factor = torch.exp2(shift.float())
    adjusted = (exponents - shift[:, None] + 127).clamp(112, 142).to(torch.uint8)
    tensors = tensors.copy()
    tensors["weight_scale"] = adjusted.reshape(scales.shape).view(scales.dtype)
    secondary = tensors.get("weight_scale_2")
    if config.is_channel_weight_scale_2:
        assert secondary is not None
        factor = factor.reshape(-1, 1) if config.num_experts else factor.reshape(())
        tensors["weight_scale_2"] = (secondary.float() * factor).to(config.param_dtype)
    else:
        tensors["weight_scale_2"] = factor if secondary is None else secondary.float() * factor
        config = dataclasses.replace(config, weight_scale_2_type=WeightScale2Type.TENSOR)
    return config, tensors


def pack_e8m0_scale_for_fp16(weight_scale: torch.Tensor) -> torch.Tensor:
    """Rebias E8M0 to padded E5M0; saturate to 2^15 and flush values below 2^-14."""
    exponent = weight_scale.view(torch.uint8).to(torch.int16) - (127 - 15)
    return (exponent.clamp(0, 30) << 3).to(torch.uint8).view(weight_scale.dtype)


def transform_humming_weight_scale(
    weight_scale: torch.Tensor,
    to_apply_on_c: bool = False,
    is_blockwise: bool = False,
    is_mxmma: bool = False,
    mxmma_scale_vec: int = 4,
    is_umma: bool = False,
) -> torch.Tensor:
    if is_blockwise:
        return weight_scale.transpose(-1, -2).contiguous()

    if is_umma:
        # One copy tile holds 128 channels and four consecutive K scales.
        scales = weight_scale.view(torch.uint8)
        lead = scales.shape[:-2]
        n, groups = scales.shape[-2:]
        scales = torch.nn.functional.pad(scales, (0, -groups % 4, 0, -n % 128), value=127)
        padded_n, padded_groups = scales.shape[-2:]
        scales = scales.reshape(*lead, padded_n // 128, 4, 32, padded_groups // 4, 4)
        ndim = len(lead)
        order = (*range(ndim), ndim + 3, ndim, ndim + 2, ndim + 1, ndim + 4)
        scales = scales.permute(*order).contiguous()
        return scales.view(torch.int32).reshape(*lead, padded_groups // 4, padded_n)

    if is_mxmma:
        if mxmma_scale_vec == 1:
            ws = weight_scale.view(torch.uint8)
            lead = ws.shape[:-2]
            n, g = ws.shape[-2:]
            ws = ws.reshape(*lead, n // 16, 2, 8, g // 2, 2)
            ndim = len(lead)
            perm = (*range(ndim), ndim + 3, ndim, ndim + 2, ndim + 1, ndim + 4)
            ws = ws.permute(*perm).contiguous()
            ws = ws.reshape(*lead, g // 2, n // 2, 4)
            return ws.view(torch.int32).squeeze(-1).contiguous()
        return weight_scale.view(torch.int32).transpose(-1, -2).contiguous()

    perm = [0, 1, 8, 9, 16, 17, 24, 25] if to_apply_on_c else [0, 8, 16, 24, 32, 40, 48, 56]
    count = sum(x < 8 for x in perm)
    perm_new = []
    for i in range(8 // count):
        perm_new += [x + count * i for x in perm]

    perm_tensor = torch.tensor(perm_new, dtype=torch.int32, device=weight_scale.device)
    weight_scale = weight_scale.transpose(-1, -2).contiguous()
    orig_shape = weight_scale.shape
    if current_device.is_ppu and not to_apply_on_c:
        ppu_perm = [0, 2, 4, 6, 1, 3, 5, 7]
        weight_scale = weight_scale.view(-1, len(ppu_perm))[:, ppu_perm].contiguous()
    weight_scale = weight_scale.view(-1, len(perm_tensor))[:, perm_tensor]
    return weight_scale.contiguous().view(orig_shape)


def transform_humming_zero_point(
    zero_point: torch.Tensor,
    dtype: dtypes.DataType,
    packed: bool = False,
    num_groups_per_mma: int = 1,
) -> torch.Tensor | None:
    if zero_point.dtype.is_floating_point:
        return transform_humming_weight_scale(zero_point, False)

    if packed:
        zero_point = zero_point.transpose(-1, -2).contiguous()
        zero_point = zero_point.squeeze().view(*zero_point.shape)
        unpack_dtype = torch.uint8 if dtype.num_bits <= 8 else torch.int32
        zero_point = ops.unpack_weight(zero_point, dtype.num_bits, dtype=unpack_dtype)
        zero_point = zero_point.transpose(-1, -2).contiguous()

    num_zp_bits = 4 if dtype.num_bits <= 4 else 8
    shape_n = zero_point.size(-2)
    zero_point = transform_humming_weight_scale(zero_point).to(torch.uint8)
    leading_shape = zero_point.shape[:-2]
    num_groups = zero_point.size(-2)
    if num_zp_bits == 4:
        zero_point = zero_point[..., 1::2] * 16 + zero_point[..., ::2]

    if num_groups_per_mma > 1:
        assert num_zp_bits == 4
        assert num_groups % num_groups_per_mma == 0
        num_k_tiles = num_groups // num_groups_per_mma
        zero_point = zero_point.view(
            *leading_shape,
            num_k_tiles,
            num_groups_per_mma,
            zero_point.size(-1),
        )
        zero_point = zero_point.transpose(-1, -2).contiguous()
        zero_point = zero_point.view(*leading_shape, num_k_tiles, -1).view(torch.int32)
        return zero_point

    zero_point = zero_point.contiguous().view(*leading_shape, -1).view(torch.int32)
    return zero_point.view(*leading_shape, num_groups, shape_n * num_zp_bits // 32)


def transform_humming_bias(bias: torch.Tensor) -> torch.Tensor:
    return transform_humming_weight_scale(bias.unsqueeze(-1), True).squeeze(-2)


def transform_humming_tensors(
    config: LayerConfig,
    tensors: dict[str, torch.Tensor],
    already_padded: bool = False,
    allow_inplace: bool = False,
) -> dict[str, torch.Tensor]:
    if not already_padded:
        tensors = check_and_pad_tensors(config, tensors)
    else:
        tensors = tensors.copy()

    weight = tensors["weight"]
    zero_point = tensors["zero_point"] if config.has_zero_point else None
    bias = tensors["bias"] if config.has_bias else None
    weight_scale = None
    tensor_scale = None
    if config.weight_scale_type == WeightScaleType.TENSOR:
        tensor_scale = tensors["weight_scale"]
    else:
        weight_scale = tensors["weight_scale"]
    weight_scale_2 = None
    if config.weight_scale_2_type != WeightScale2Type.NONE:
        weight_scale_2 = tensors.get("weight_scale_2", None)

    if config.use_fused_e8m0_scale:
        assert weight_scale is not None
        weight, weight_scale, weight_scale_2 = process_fused_e8m0_scale(
            config,
            weight=weight,
            weight_scale=weight_scale,
            weight_scale_2=weight_scale_2,
            allow_inplace=allow_inplace,
        )

    interleave_mode = 3
    if config.use_fused_e8m0_scale and config.a_dtype == dtypes.float8e4m3:
        interleave_mode = 2

    weight = transform_humming_weight(
        weight=weight,
        b_dtype=config.b_dtype,
        a_dtype=config.a_dtype,
        zero_point=zero_point,
        use_fused_e8m0_scale=config.use_fused_e8m0_scale,
        packed=True,
        interleave_mode=interleave_mode,
        use_packed_k_layout=config.use_packed_k_layout,
        use_native_dequant=config.use_native_dequant,
        use_raw_weight=config.use_raw_weight,
        use_flat_weight=config.use_flat_weight,
        use_ldmatrix_dequant=config.use_ldmatrix_dequant,
        allow_inplace=allow_inplace,
    )

    if weight_scale is not None and config.bs_dtype == dtypes.float8e8m0:
        uses_software_scale = not config.use_fused_e8m0_scale and not config.use_block_scaled_mma
        if config.c_dtype == dtypes.float16 and uses_software_scale:
            weight_scale = pack_e8m0_scale_for_fp16(weight_scale)

    if weight_scale is not None:
        is_mxmma = config.use_block_scaled_mma and (
            config.is_group_weight_scale or config.is_block_weight_scale
        )
        mxmma_scale_vec = None
        if is_mxmma:
            mxmma_scale_vec = 256 // config.a_dtype.num_bits // config.weight_scale_group_size

        weight_scale = transform_humming_weight_scale(
            weight_scale,
            to_apply_on_c=config.should_apply_bs_on_c,
            is_blockwise=config.weight_scale_type == WeightScaleType.BLOCK,
            is_mxmma=is_mxmma,
            mxmma_scale_vec=mxmma_scale_vec,
            is_umma=is_mxmma and config.sm_version // 10 in (10, 11),
        )

    if zero_point is not None:
        use_grouped_fp4_zp_layout = (
            config.use_block_scaled_mma
            and config.a_dtype.num_bits == 4
            and config.weight_scale_group_size > 0
        )
        num_groups_per_mma = 1
        if use_grouped_fp4_zp_layout:
            num_groups_per_mma = 256 // config.a_dtype.num_bits // config.weight_scale_group_size
        zero_point = transform_humming_zero_point(
            zero_point,
            config.b_dtype,
            packed=True,
            num_groups_per_mma=num_groups_per_mma,
        )

    if bias is not None:
        bias = transform_humming_bias(bias)

    if config.weight_scale_2_type == WeightScale2Type.CHANNEL:
        assert weight_scale_2 is not None
        weight_scale_2 = transform_humming_bias(weight_scale_2.to(config.param_dtype))

    if config.use_int_weight_scale:
        assert weight_scale is not None
        weight_scale, weight_scale_2 = process_int_weight_scale(
            config,
            weight_scale=weight_scale,
            weight_scale_2=weight_scale_2,
        )

    if weight_scale is None:
        weight_scale = tensor_scale

    outputs = {"weight": weight}
    for name, tensor in [
        ("weight_scale", weight_scale),
        ("zero_point", zero_point),
        ("weight_scale_2", weight_scale_2),
        ("bias", bias),
    ]:
        if tensor is not None:
            outputs[name] = tensor
    return outputs
