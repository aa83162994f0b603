import torch

from .common import inference_context, dtype_dict, compile_func, conv_types, conv_transpose_types
from .kernel_wrappers import use_contiguous_int8_mm, use_contiguous_fp16_mm, use_contiguous_fp8_mm
from .utils import is_pow2, is_pow4, next_power_of_2, normalize_device


@inference_context()
def get_scale_asymmetric(weight: torch.FloatTensor, dim: int | list[int] | None, weights_dtype: str) -> tuple[torch.FloatTensor, torch.FloatTensor]:
    if dim is None or isinstance(dim, int):
        zero_point, scale = torch.aminmax(weight, dim=dim, keepdims=bool(dim is not None))
        if dim is None:
            one_dims = tuple(1 for _ in range(weight.ndim))
            zero_point = zero_point.view(one_dims)
            scale = scale.view(one_dims)
    else:
        zero_point = torch.amin(weight, dim=dim, keepdims=True)
        scale = torch.amax(weight, dim=dim, keepdims=True)
    scale = scale.sub_(zero_point).div_(dtype_dict[weights_dtype]["max"] - dtype_dict[weights_dtype]["min"])
    if dtype_dict[weights_dtype]["min"] != 0:
        zero_point.sub_(scale, alpha=dtype_dict[weights_dtype]["min"])
    return scale, zero_point


@inference_context()
def get_scale_symmetric(weight: torch.FloatTensor, dim: int | list[int] | None, weights_dtype: str) -> torch.FloatTensor:
    scale = torch.amax(weight.abs(), dim=dim, keepdims=bool(dim is not None)).div_(dtype_dict[weights_dtype]["max"])
    if dim is None:
        one_dims = tuple(1 for _ in range(weight.ndim))
        scale = scale.view(one_dims)
    return scale


@inference_context()
def quantize_weight(weight: torch.FloatTensor, dim: int | list[int] | None, weights_dtype: str, dtype: torch.dtype = None, use_stochastic_rounding: bool = False) -> tuple[torch.Tensor, torch.FloatTensor, torch.FloatTensor]:
    if weight.dtype != torch.float64:
        weight = weight.to(dtype=torch.float32, copy=False)

    if dtype_dict[weights_dtype]["is_unsigned"]:
        scale, zero_point = get_scale_asymmetric(weight, dim, weights_dtype)
        if dtype is not None:
            scale = scale.to(dtype=dtype)
            zero_point = zero_point.to(dtype=dtype)
        weight = torch.sub(weight, zero_point).div_(scale)
    else:
        scale = get_scale_symmetric(weight, dim, weights_dtype)
        zero_point = None
        if dtype is not None:
            scale = scale.to(dtype=dtype)
        weight = torch.div(weight, scale)

    if dtype_dict[weights_dtype]["is_integer"]:
        if use_stochastic_rounding:
            weight = weight.add_(torch.rand_like(weight)).floor_()
        else:
            weight = weight.round_()
    else:
        if use_stochastic_rounding:
            mantissa_difference = 1 << (23 - dtype_dict[weights_dtype]["mantissa"])
            weight = weight.to(dtype=torch.float32).view(dtype=torch.int32)
            weight = weight.add_(torch.randint_like(weight, low=0, high=mantissa_difference, dtype=torch.int32)).bitwise_and_(-mantissa_difference).view(dtype=torch.float32)
        weight = weight.nan_to_num_()
    weight = weight.clamp_(dtype_dict[weights_dtype]["min"], dtype_dict[weights_dtype]["max"]).to(dtype_dict[weights_dtype]["torch_dtype"])
    return weight, scale, zero_point


def quantize_weight_codebook(weight: torch.FloatTensor, dim: int | list[int] | None,  weights_dtype: str = "uint8",  steps: int = 24, dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.FloatTensor]:
    assert dtype_dict[weights_dtype]["is_integer"] and dtype_dict[weights_dtype]["is_unsigned"], "Codebook quantization only supports unsigned integer types."
    if weight.dtype != torch.float64:
        weight = weight.to(dtype=torch.float32, copy=False)

    scatter_add_dim = 1
    weight_shape = weight.shape
    weight_ndim = weight.ndim
    permuted_shape = None
    full_flat_weight = False
    if dim is None or isinstance(dim, (list, tuple)):
        assert dim is None or len(dim) == weight_ndim, "Codebook quantization only supports quantization along a single dimension."
        weight = weight.flatten()
        full_flat_weight = True
        scatter_add_dim = 0
    else:
        if dim < 0:
            dim = weight_ndim + dim
        if weight_ndim > 1 and dim not in {-1, weight_ndim - 1}:
            weight = weight.permute(*[i for i in range(weight_ndim) if i != dim], dim)
            permuted_shape = weight.shape
        if weight_ndim > 2:
            weight = weight.flatten(0,-2)

    zero_point, scale = torch.aminmax(weight, dim=-1, keepdim=True)
    scale = scale.sub_(zero_point).div_(dtype_dict[weights_dtype]["max"])
    levels = torch.addcmul(zero_point, torch.arange(dtype_dict[weights_dtype]["max"] + 1, dtype=weight.dtype, device=weight.device), scale)
    ones = None
    for _ in range(steps):
        levels = torch.sort(levels, dim=-1).values
        if full_flat_weight:
            midpoints = torch.add(levels[1:], levels[:-1]).mul_(0.5)
        else:
            midpoints = torch.add(levels[:, 1:], levels[:, :-1]).mul_(0.5)
        assignment = torch.searchsorted(midpoints, weight)
        if ones is None:
            ones = torch.ones_like(assignment, dtype=torch.int32)
        counts = torch.zeros_like(levels, dtype=torch.int32).scatter_add_(scatter_add_dim, assignment, ones)
        occupied = counts > 0
        counts = counts.clamp_(min=1)
        sums = torch.zeros_like(levels).scatter_add_(scatter_add_dim, assignment, weight).div_(counts)
        levels = torch.where(occupied, sums, levels)
    levels = torch.sort(levels, dim=-1).values
    if full_flat_weight:
        midpoints = torch.add(levels[1:], levels[:-1]).mul_(0.5)
    else:
        midpoints = torch.add(levels[:, 1:], levels[:, :-1]).mul_(0.5)
    weight = torch.searchsorted(midpoints, weight, out_int32=True)

    if permuted_shape is not None:
        permute_dims = list(range(weight_ndim-1))
        permute_dims.insert(dim, weight_ndim-1)
        weight = weight.view(permuted_shape).permute(permute_dims)
        levels = levels.view(*permuted_shape[:-1], levels.shape[-1]).permute(permute_dims)
    else:
        weight = weight.unflatten(0, weight_shape if full_flat_weight else weight_shape[:-1])
        if not full_flat_weight:
            levels = levels.unflatten(0, weight_shape[:-1])
    if dtype is not None:
        levels = levels.to(dtype=dtype)
    weight = weight.to(dtype_dict[weights_dtype]["torch_dtype"])
    return weight, levels


@inference_context()
def apply_svdquant(weight: torch.FloatTensor, rank: int = 32, steps: int = 8, dtype: torch.dtype = None) -> tuple[torch.FloatTensor, torch.FloatTensor, torch.FloatTensor]:
    reshape_weight = False
    if weight.ndim > 2: # convs
        reshape_weight = True
        weight_shape = weight.shape
        weight = weight.flatten(1,-1)
    if weight.dtype != torch.float64:
        weight = weight.to(dtype=torch.float32)
    U, S, svd_down = torch.svd_lowrank(weight, q=rank, niter=steps)
    svd_up = torch.mul(U, S.unsqueeze(0))
    svd_down = svd_down.t_()
    if dtype is not None:
        svd_up = svd_up.to(dtype=dtype)
        svd_down = svd_down.to(dtype=dtype)
    weight = weight.sub(torch.mm(svd_up, svd_down))
    if reshape_weight:
        weight = weight.unflatten(-1, (*weight_shape[1:],)) # pylint: disable=possibly-used-before-assignment
    return weight, svd_up, svd_down


@inference_context()
def build_hadamard_n2(n: int, dtype: torch.dtype = torch.float32, device: torch.device | None = None) -> torch.FloatTensor:
    current_size = 2
    H = H_N2 = torch.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=dtype, device=device)
    while current_size < n:
        H = torch.kron(H, H_N2)
        current_size *= 2
    H = H.div_(n**0.5).contiguous()
    return H


@inference_context()
def build_hadamard_n4(n: int, dtype: torch.dtype = torch.float32, device: torch.device | None = None) -> torch.FloatTensor:
    current_size = 4
    H = H_N4 = torch.tensor([[1.0, 1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0], [1.0, -1.0, 1.0, 1.0], [-1.0, 1.0, 1.0, 1.0]], dtype=dtype, device=device)
    while current_size < n:
        H = torch.kron(H, H_N4)
        current_size *= 4
    H = H.div_(n**0.5).contiguous()
    return H


@inference_context()
def build_hadamard(n: int, dtype: torch.dtype = torch.float32, device: torch.device | None = None) -> torch.FloatTensor:
    if is_pow4(n):
        return build_hadamard_n4(n, device=device, dtype=dtype)
    elif is_pow2(n):
        return build_hadamard_n2(n, device=device, dtype=dtype)
    else:
        raise RuntimeError(f"Hadamard Group Size must be a power of 2 but got {n}.")


# 256x256 Hadamard matrix is just 256 KB at FP32
# And is the exact same matrix on all model layers
# So we can safely cache a single one
# using custom_op to avoid tracing in torch.compile
HADAMARD_MATRIX_CACHE: dict[tuple[int, torch.device, torch.dtype], torch.FloatTensor] = {}

@torch.library.custom_op("sdnq::get_hadamard", mutates_args=())
@inference_context()
def get_hadamard(n: int, dtype: torch.dtype = torch.float32, device: torch.device | None = None) -> torch.Tensor:
    device = normalize_device(device)
    H_key = (n, device, dtype)
    H = HADAMARD_MATRIX_CACHE.get(H_key, None)
    if H is None:
        H = build_hadamard(n, dtype=dtype, device=device)
        HADAMARD_MATRIX_CACHE[H_key] = H
    return H.clone()

@get_hadamard.register_fake
def get_hadamard_fake(n: int, dtype: torch.dtype = torch.float32, device: torch.device | None = None) -> torch.Tensor:
    return torch.empty((n,n), dtype=dtype, device=device)


@inference_context()
def rotate_hadamard(weight: torch.Tensor, group_size: int = 256, hadamard: torch.FloatTensor | None = None, is_conv: bool = False) -> torch.Tensor:
    if hadamard is None:
        hadamard = get_hadamard(group_size, dtype=weight.dtype, device=weight.device)
    else:
        group_size = hadamard.shape[-1]
        if hadamard.dtype != weight.dtype:
            hadamard = hadamard.to(dtype=weight.dtype)
    if is_conv:
        weight_shape = list(weight.shape)[1:]
        weight = weight.flatten(1,-1)
    weight = weight.contiguous().unflatten(-1, (-1,group_size))
    if use_contiguous_fp16_mm:
        # Hadamard matrix is symmetric
        hadamard = torch.as_strided(hadamard, (group_size, group_size), (group_size, 1))
    else:
        hadamard = torch.as_strided(hadamard, (group_size, group_size), (1, group_size))
    result = torch.matmul(weight, hadamard).flatten(-2,-1)
    if is_conv:
        result = result.unflatten(-1, weight_shape)
    return result


def get_hadamard_group_size(channel_size: int, group_size: int) -> tuple[bool, int]:
    group_size = next_power_of_2(min(channel_size, group_size))
    if channel_size % group_size != 0:
        while channel_size % group_size != 0:
            group_size = group_size // 2
    use_hadamard = group_size >= 4
    return use_hadamard, group_size


@inference_context()
def apply_hadamard(weight: torch.Tensor, group_size: int = 256, hadamard: torch.FloatTensor | None = None, layer_class_name: str | None = None) -> tuple[torch.Tensor, bool, int]:
    is_conv = False
    if hadamard is not None:
        group_size = hadamard.shape[-1]
    if layer_class_name in conv_types or layer_class_name in conv_transpose_types:
        is_conv = True
        channel_size = weight.shape[1]
    else:
        channel_size = weight.shape[-1]
    use_hadamard, group_size = get_hadamard_group_size(channel_size, group_size)
    if use_hadamard:
        if hadamard is not None and group_size != hadamard.shape[-1]:
            hadamard = None
        weight = rotate_hadamard(weight, group_size=group_size, hadamard=hadamard, is_conv=is_conv)
    return weight, use_hadamard, group_size


@inference_context()
def prepare_weight_for_matmul(weight: torch.Tensor, matmul_dtype: str | None = "int8") -> torch.Tensor:
    if (
        (use_contiguous_int8_mm and matmul_dtype in {"int8", "uint8"})
        or (use_contiguous_fp16_mm and matmul_dtype in {"fp16", "float16"})
        or (use_contiguous_fp8_mm and matmul_dtype in {"fp8", "float8_e4m3fn"})
    ):
        weight = weight.contiguous()
    elif weight.is_contiguous():
        weight = weight.t_().contiguous().t_()
    return weight


@inference_context()
def prepare_svd_for_matmul(svd_up: torch.FloatTensor, svd_down: torch.FloatTensor, use_quantized_matmul: bool) -> tuple[torch.FloatTensor, torch.FloatTensor]:
    if svd_up is not None:
        if use_quantized_matmul:
            svd_up = prepare_weight_for_matmul(svd_up, matmul_dtype="float16")
        else:
            svd_up = svd_up.contiguous()
    if svd_down is not None:
        svd_down = prepare_weight_for_matmul(svd_down, matmul_dtype="float16")
    return svd_up, svd_down


@inference_context()
def quantize_int_mm(weight: torch.FloatTensor, dim: int = -1, hadamard: torch.FloatTensor | None = None, matmul_dtype: str = "int8", use_sr: bool = False) -> tuple[torch.Tensor, torch.FloatTensor]:
    if hadamard is not None:
        weight = rotate_hadamard(weight, hadamard=hadamard)
    scale = get_scale_symmetric(weight, dim, matmul_dtype)
    weight = torch.div(weight, scale)
    if use_sr:
        weight = weight.add_(torch.rand_like(weight)).floor_()
    else:
        weight = weight.round_()
    weight = weight.clamp_(dtype_dict[matmul_dtype]["min"], dtype_dict[matmul_dtype]["max"]).to(dtype=dtype_dict[matmul_dtype]["torch_dtype"])
    return weight, scale


@inference_context()
def quantize_uint_mm(weight: torch.FloatTensor, dim: int = -1, hadamard: torch.FloatTensor | None = None, matmul_dtype: str = "uint8", use_sr: bool = False) -> tuple[torch.FloatTensor, torch.FloatTensor]:
    if hadamard is not None:
        weight = rotate_hadamard(weight, hadamard=hadamard)
    matmul_dtype = matmul_dtype.removeprefix("u")
    scale, zero_point = get_scale_asymmetric(weight, dim, matmul_dtype)
    weight = torch.sub(weight, zero_point).div_(scale)
    if use_sr:
        weight = weight.add_(torch.rand_like(weight)).floor_()
    else:
        weight = weight.round_()
    weight = weight.clamp_(dtype_dict[matmul_dtype]["min"], dtype_dict[matmul_dtype]["max"]).to(dtype=dtype_dict[matmul_dtype]["torch_dtype"])
    return weight, scale, zero_point


@inference_context()
def quantize_fp_mm(weight: torch.FloatTensor, dim: int = -1, hadamard: torch.FloatTensor | None = None, matmul_dtype: str = "float8_e4m3fn", use_sr: bool = False) -> tuple[torch.Tensor, torch.FloatTensor]:
    if hadamard is not None:
        weight = rotate_hadamard(weight, hadamard=hadamard)
    scale = get_scale_symmetric(weight, dim, matmul_dtype)
    if use_sr:
        mantissa_difference = 1 << (23 - dtype_dict[matmul_dtype]["mantissa"])
        weight = weight.to(dtype=torch.float32).view(dtype=torch.int32)
        weight = weight.add_(torch.randint_like(weight, low=0, high=mantissa_difference, dtype=torch.int32)).bitwise_and_(-mantissa_difference).view(dtype=torch.float32)
    weight = torch.div(weight, scale).nan_to_num_().clamp_(dtype_dict[matmul_dtype]["min"], dtype_dict[matmul_dtype]["max"]).to(dtype=dtype_dict[matmul_dtype]["torch_dtype"])
    return weight, scale


rotate_hadamard_compiled = compile_func(rotate_hadamard)
