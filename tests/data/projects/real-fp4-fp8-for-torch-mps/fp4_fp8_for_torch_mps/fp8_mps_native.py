import importlib.resources
import os

import torch

_lib = None
_SHADER_SOURCE = None
_FP8_LUTS = {}
_FP8_E4M3FN = getattr(torch, "float8_e4m3fn", None)
_FP8_E5M2 = getattr(torch, "float8_e5m2", None)
_FP8_E4M3FNUZ = getattr(torch, "float8_e4m3fnuz", None)
_FP8_E5M2FNUZ = getattr(torch, "float8_e5m2fnuz", None)
_FP8_E8M0FNU = getattr(torch, "float8_e8m0fnu", None)
_DECODE_BACKENDS = {"lut", "arithmetic", "auto"}
_decode_backend = os.environ.get("FP4_FP8_MPS_DECODE_BACKEND", "lut").lower()
if _decode_backend not in _DECODE_BACKENDS:
    _decode_backend = "lut"


def _load_shader_source():
    global _SHADER_SOURCE
    if _SHADER_SOURCE is not None:
        return _SHADER_SOURCE
    ref = importlib.resources.files("fp4_fp8_for_torch_mps.shaders").joinpath("fp8_matmul.metal")
    _SHADER_SOURCE = ref.read_text(encoding="utf-8")
    return _SHADER_SOURCE


def _get_lib():
    global _lib
    if _lib is not None:
        return _lib
    _lib = torch.mps.compile_shader(_load_shader_source())
    return _lib


def _fp8_luts(dtype):
    if dtype is None:
        raise RuntimeError("requested FP8 dtype is not available in this torch build")
    cached = _FP8_LUTS.get(dtype)
    if cached is not None:
        return cached

    raw = torch.arange(256, dtype=torch.uint8)
    values = raw.view(dtype).to(torch.float32)
    values_mps = values.to("mps").contiguous()
    value_bits_mps = values.view(torch.int32).to("mps").contiguous()
    half_mps = values.to(torch.float16).to("mps").contiguous()
    cached = (values_mps, value_bits_mps, half_mps)
    _FP8_LUTS[dtype] = cached
    return cached


def set_decode_backend(backend: str) -> None:
    """Select the FP8/FP4 decode backend: 'lut', 'arithmetic', or 'auto'."""
    normalized = backend.lower()
    if normalized not in _DECODE_BACKENDS:
        raise ValueError(f"decode backend must be one of {sorted(_DECODE_BACKENDS)}, got {backend!r}")
    global _decode_backend
    _decode_backend = normalized


def get_decode_backend() -> str:
    return _decode_backend


def _resolve_decode_backend(input) -> str:
    if _decode_backend != "auto":
        return _decode_backend
    # Keep auto cheap and deterministic for hot dequantize calls. Unrolled
    # variants are selectable, but do not consistently win on Apple Silicon.
    return "lut"


def fp8_scaled_mm(A, B, scale_a, scale_b):
    lib = _get_lib()

    assert A.dtype == torch.uint8 and B.dtype == torch.uint8
    assert A.is_contiguous() and B.is_contiguous()

    M, K = A.shape
    N = B.shape[0]
    assert B.shape[1] == K

    if A.device.type != "mps":
        A = A.to("mps")
    if B.device.type != "mps":
        B = B.to("mps")

    scale_a = scale_a.to(device="mps", dtype=torch.float32).contiguous()
    scale_b = scale_b.to(device="mps", dtype=torch.float32).contiguous()

    scale_mode = 0 if (scale_a.numel() == 1 and scale_b.numel() == 1) else 1

    C = torch.empty(M, N, dtype=torch.float32, device="mps")

    if M == 1:
        total_threads = N * 32
        lib.fp8_scaled_vecmat_kernel(
            A, B, C, scale_a, scale_b,
            N, K, scale_mode,
            threads=(total_threads,), group_size=(256,),
        )
    else:
        lib.fp8_scaled_matmul_kernel(
            A, B, C, scale_a, scale_b,
            M, N, K, scale_mode,
            threads=(N, M), group_size=(16, 16),
        )

    return C


def fp8_dequantize(input, scale):
    if _resolve_decode_backend(input) == "arithmetic":
        return fp8_dequantize_arithmetic(input, scale)
    return fp8_dequantize_lut(input, scale)


def fp8_dequantize_lut(input, scale):
    lib = _get_lib()

    if input.device.type != "mps":
        input = input.to("mps")

    count = input.numel()
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")

    lib.fp8_to_half_kernel(
        input.contiguous().view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    scale_val = scale.to(device="mps", dtype=torch.float16)
    output = output * scale_val
    return output


def fp8_dequantize_arithmetic(input, scale):
    lib = _get_lib()

    if input.device.type != "mps":
        input = input.to("mps")

    count = input.numel()
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")

    lib.fp8_to_half_arithmetic_kernel(
        input.contiguous().view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    scale_val = scale.to(device="mps", dtype=torch.float16)
    output = output * scale_val
    return output


def fp8_encode(input):
    lib = _get_lib()

    inp = input.to(device="mps", dtype=torch.float32).contiguous()
    count = inp.numel()
    output = torch.empty(inp.shape, dtype=torch.uint8, device="mps")

    lib.float_to_fp8_kernel(
        inp.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def _prepare_float_input(input):
    inp = input.to(device="mps", dtype=torch.float32).contiguous()
    output = torch.empty(inp.shape, dtype=torch.uint8, device="mps")
    return inp, output, inp.numel()


def fp8_encode_lut_e4m3fn(input):
    lib = _get_lib()
    values, _, _ = _fp8_luts(_FP8_E4M3FN)
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e4m3fn_lut_kernel(
        inp.view(-1), values, output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_lut_e5m2(input):
    lib = _get_lib()
    values, _, _ = _fp8_luts(_FP8_E5M2)
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e5m2_lut_kernel(
        inp.view(-1), values, output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_lut_e4m3fnuz(input):
    lib = _get_lib()
    values, _, _ = _fp8_luts(_FP8_E4M3FNUZ)
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e4m3fnuz_lut_kernel(
        inp.view(-1), values, output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_lut_e5m2fnuz(input):
    lib = _get_lib()
    values, _, _ = _fp8_luts(_FP8_E5M2FNUZ)
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e5m2fnuz_lut_kernel(
        inp.view(-1), values, output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_lut_e8m0fnu(input):
    lib = _get_lib()
    values, _, _ = _fp8_luts(_FP8_E8M0FNU)
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e8m0fnu_lut_kernel(
        inp.view(-1), values, output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_lut_dtype(input, dtype):
    return {
        _FP8_E4M3FN: fp8_encode_lut_e4m3fn,
        _FP8_E5M2: fp8_encode_lut_e5m2,
        _FP8_E4M3FNUZ: fp8_encode_lut_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_encode_lut_e5m2fnuz,
        _FP8_E8M0FNU: fp8_encode_lut_e8m0fnu,
    }[dtype](input)


def fp8_encode_arithmetic_e4m3fn(input):
    return fp8_encode(input)


def fp8_encode_arithmetic_e5m2(input):
    lib = _get_lib()
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e5m2_arithmetic_kernel(
        inp.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_arithmetic_e4m3fnuz(input):
    lib = _get_lib()
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e4m3fnuz_arithmetic_kernel(
        inp.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_arithmetic_e5m2fnuz(input):
    lib = _get_lib()
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e5m2fnuz_arithmetic_kernel(
        inp.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_arithmetic_e8m0fnu(input):
    lib = _get_lib()
    inp, output, count = _prepare_float_input(input)

    lib.float_to_fp8_e8m0fnu_arithmetic_kernel(
        inp.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    return output


def fp8_encode_arithmetic_dtype(input, dtype):
    return {
        _FP8_E4M3FN: fp8_encode_arithmetic_e4m3fn,
        _FP8_E5M2: fp8_encode_arithmetic_e5m2,
        _FP8_E4M3FNUZ: fp8_encode_arithmetic_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_encode_arithmetic_e5m2fnuz,
        _FP8_E8M0FNU: fp8_encode_arithmetic_e8m0fnu,
    }[dtype](input)


def fp8_encode_fastest_dtype(input, dtype):
    return {
        _FP8_E4M3FN: fp8_encode_arithmetic_e4m3fn,
        _FP8_E5M2: fp8_encode_arithmetic_e5m2,
        _FP8_E4M3FNUZ: fp8_encode_arithmetic_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_encode_lut_e5m2fnuz,
        _FP8_E8M0FNU: fp8_encode_arithmetic_e8m0fnu,
    }[dtype](input)


def _run_fp8_dequantize_lut(input, scale, dtype, out_dtype):
    lib = _get_lib()
    values, value_bits, half_values = _fp8_luts(dtype)

    if input.device.type != "mps":
        input = input.to("mps")

    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        if dtype == _FP8_E8M0FNU:
            lib.fp8_lut_bits_to_float_kernel(
                input.contiguous().view(-1), value_bits, output.view(-1),
                count,
                threads=(count,), group_size=(256,),
            )
        else:
            lib.fp8_lut_to_float_kernel(
                input.contiguous().view(-1), values, output.view(-1),
                count,
                threads=(count,), group_size=(256,),
            )
        scale_val = scale.to(device="mps", dtype=torch.float32)
    else:
        output = torch.empty(input.shape, dtype=torch.float16, device="mps")
        lib.fp8_lut_to_half_kernel(
            input.contiguous().view(-1), half_values, output.view(-1),
            count,
            threads=(count,), group_size=(256,),
        )
        scale_val = scale.to(device="mps", dtype=torch.float16)
    return output * scale_val


def fp8_dequantize_lut_e4m3fn(input, scale, out_dtype=torch.float16):
    return _run_fp8_dequantize_lut(input, scale, _FP8_E4M3FN, out_dtype)


def fp8_dequantize_lut_e5m2(input, scale, out_dtype=torch.float16):
    return _run_fp8_dequantize_lut(input, scale, _FP8_E5M2, out_dtype)


def fp8_dequantize_lut_e4m3fnuz(input, scale, out_dtype=torch.float16):
    return _run_fp8_dequantize_lut(input, scale, _FP8_E4M3FNUZ, out_dtype)


def fp8_dequantize_lut_e5m2fnuz(input, scale, out_dtype=torch.float16):
    return _run_fp8_dequantize_lut(input, scale, _FP8_E5M2FNUZ, out_dtype)


def fp8_dequantize_lut_e8m0fnu(input, scale, out_dtype=torch.float16):
    return _run_fp8_dequantize_lut(input, scale, _FP8_E8M0FNU, out_dtype)


def fp8_dequantize_lut_dtype(input, scale, dtype, out_dtype=torch.float16):
    return {
        _FP8_E4M3FN: fp8_dequantize_lut_e4m3fn,
        _FP8_E5M2: fp8_dequantize_lut_e5m2,
        _FP8_E4M3FNUZ: fp8_dequantize_lut_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_dequantize_lut_e5m2fnuz,
        _FP8_E8M0FNU: fp8_dequantize_lut_e8m0fnu,
    }[dtype](input, scale, out_dtype=out_dtype)


def fp8_dequantize_arithmetic_e4m3fn(input, scale, out_dtype=torch.float16):
    lib = _get_lib()
    if input.device.type != "mps":
        input = input.to("mps")
    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        lib.fp8_e4m3fn_to_float_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
        return output * scale.to(device="mps", dtype=torch.float32)
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")
    lib.fp8_to_half_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
    return output * scale.to(device="mps", dtype=torch.float16)


def fp8_dequantize_arithmetic_e5m2(input, scale, out_dtype=torch.float16):
    lib = _get_lib()
    if input.device.type != "mps":
        input = input.to("mps")
    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        lib.fp8_e5m2_to_float_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
        return output * scale.to(device="mps", dtype=torch.float32)
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")
    lib.fp8_e5m2_to_half_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
    return output * scale.to(device="mps", dtype=torch.float16)


def fp8_dequantize_arithmetic_e4m3fnuz(input, scale, out_dtype=torch.float16):
    lib = _get_lib()
    if input.device.type != "mps":
        input = input.to("mps")
    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        lib.fp8_e4m3fnuz_to_float_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
        return output * scale.to(device="mps", dtype=torch.float32)
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")
    lib.fp8_e4m3fnuz_to_half_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
    return output * scale.to(device="mps", dtype=torch.float16)


def fp8_dequantize_arithmetic_e5m2fnuz(input, scale, out_dtype=torch.float16):
    lib = _get_lib()
    if input.device.type != "mps":
        input = input.to("mps")
    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        lib.fp8_e5m2fnuz_to_float_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
        return output * scale.to(device="mps", dtype=torch.float32)
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")
    lib.fp8_e5m2fnuz_to_half_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
    return output * scale.to(device="mps", dtype=torch.float16)


def fp8_dequantize_arithmetic_e8m0fnu(input, scale, out_dtype=torch.float16):
    lib = _get_lib()
    if input.device.type != "mps":
        input = input.to("mps")
    count = input.numel()
    if out_dtype == torch.float32:
        output = torch.empty(input.shape, dtype=torch.float32, device="mps")
        lib.fp8_e8m0fnu_to_float_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
        return output * scale.to(device="mps", dtype=torch.float32)
    output = torch.empty(input.shape, dtype=torch.float16, device="mps")
    lib.fp8_e8m0fnu_to_half_arithmetic_kernel(input.contiguous().view(-1), output.view(-1), count, threads=(count,), group_size=(256,))
    return output * scale.to(device="mps", dtype=torch.float16)


def fp8_dequantize_arithmetic_dtype(input, scale, dtype, out_dtype=torch.float16):
    return {
        _FP8_E4M3FN: fp8_dequantize_arithmetic_e4m3fn,
        _FP8_E5M2: fp8_dequantize_arithmetic_e5m2,
        _FP8_E4M3FNUZ: fp8_dequantize_arithmetic_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_dequantize_arithmetic_e5m2fnuz,
        _FP8_E8M0FNU: fp8_dequantize_arithmetic_e8m0fnu,
    }[dtype](input, scale, out_dtype=out_dtype)


def fp8_dequantize_fastest_dtype(input, scale, dtype, out_dtype=torch.float16):
    return {
        _FP8_E4M3FN: fp8_dequantize_lut_e4m3fn,
        _FP8_E5M2: fp8_dequantize_lut_e5m2,
        _FP8_E4M3FNUZ: fp8_dequantize_lut_e4m3fnuz,
        _FP8_E5M2FNUZ: fp8_dequantize_lut_e5m2fnuz,
        _FP8_E8M0FNU: fp8_dequantize_arithmetic_e8m0fnu,
    }[dtype](input, scale, out_dtype=out_dtype)


def fp8_quantize(input):
    lib = _get_lib()

    inp = input.to(device="mps", dtype=torch.float32).contiguous()
    count = inp.numel()

    amax = inp.abs().max().item()
    scale = 448.0 / amax if amax > 0 else 1.0

    scaled = (inp * scale).contiguous()
    output = torch.empty(inp.shape, dtype=torch.uint8, device="mps")

    lib.float_to_fp8_kernel(
        scaled.view(-1), output.view(-1),
        count,
        threads=(count,), group_size=(256,),
    )

    inv_scale = torch.tensor([1.0 / scale], dtype=torch.float32, device="mps")
    return output, inv_scale


def fp8_scaled_mm_auto(A, B, scale_a, scale_b):
    if A.shape[0] <= 16:
        return fp8_scaled_mm(A, B, scale_a, scale_b)
    return fp8_scaled_mm_fast(A, B, scale_a, scale_b)


def fp8_scaled_mm_fast(A, B, scale_a, scale_b):
    lib = _get_lib()

    if A.device.type != "mps":
        A = A.to("mps")
    if B.device.type != "mps":
        B = B.to("mps")

    M, K = A.shape
    N = B.shape[0]

    A_f16 = torch.empty(M, K, dtype=torch.float16, device="mps")
    lib.fp8_to_half_kernel(
        A.contiguous().view(-1), A_f16.view(-1),
        A.numel(),
        threads=(A.numel(),), group_size=(256,),
    )

    B_f16 = torch.empty(N, K, dtype=torch.float16, device="mps")
    lib.fp8_to_half_kernel(
        B.contiguous().view(-1), B_f16.view(-1),
        B.numel(),
        threads=(B.numel(),), group_size=(256,),
    )

    sa = scale_a.to(device="mps", dtype=torch.float16)
    sb = scale_b.to(device="mps", dtype=torch.float16)
    A_f16 = A_f16 * sa
    B_f16 = B_f16 * sb

    return (A_f16 @ B_f16.T).float()


def fp4_dequantize(input, scale):
    if _resolve_decode_backend(input) == "arithmetic":
        return fp4_dequantize_arithmetic(input, scale)
    return fp4_dequantize_lut(input, scale)


def fp4_dequantize_lut(input, scale):
    lib = _get_lib()

    if input.device.type != "mps":
        input = input.to("mps")

    num_bytes = input.numel()
    output = torch.empty(num_bytes * 2, dtype=torch.float16, device="mps")

    lib.fp4x2_to_half_kernel(
        input.contiguous().view(-1), output,
        num_bytes,
        threads=(num_bytes,), group_size=(256,),
    )

    scale_val = scale.to(device="mps", dtype=torch.float16)
    output = output * scale_val
    return output


def fp4_dequantize_arithmetic(input, scale):
    lib = _get_lib()

    if input.device.type != "mps":
        input = input.to("mps")

    num_bytes = input.numel()
    output = torch.empty(num_bytes * 2, dtype=torch.float16, device="mps")

    lib.fp4x2_to_half_arithmetic_kernel(
        input.contiguous().view(-1), output,
        num_bytes,
        threads=(num_bytes,), group_size=(256,),
    )

    scale_val = scale.to(device="mps", dtype=torch.float16)
    output = output * scale_val
    return output


def fp4_encode(input):
    lib = _get_lib()

    inp = input.to(device="mps", dtype=torch.float32).contiguous()
    num_elements = inp.numel()
    assert num_elements % 2 == 0, "FP4 x2 requires even number of elements"
    num_bytes = num_elements // 2
    output = torch.empty(num_bytes, dtype=torch.uint8, device="mps")

    lib.float_to_fp4x2_kernel(
        inp.view(-1), output,
        num_bytes,
        threads=(num_bytes,), group_size=(256,),
    )

    return output


def fp4_quantize(input):
    lib = _get_lib()

    inp = input.to(device="mps", dtype=torch.float32).contiguous()
    num_elements = inp.numel()
    assert num_elements % 2 == 0, "FP4 x2 requires even number of elements"

    amax = inp.abs().max().item()
    scale = 6.0 / amax if amax > 0 else 1.0

    scaled = (inp * scale).contiguous()
    num_bytes = num_elements // 2
    output = torch.empty(num_bytes, dtype=torch.uint8, device="mps")

    lib.float_to_fp4x2_kernel(
        scaled.view(-1), output,
        num_bytes,
        threads=(num_bytes,), group_size=(256,),
    )

    inv_scale = torch.tensor([1.0 / scale], dtype=torch.float32, device="mps")
    return output, inv_scale
