import torch

from .....common import compile_func, inference_context
from .....kernel_wrappers import fp_scaled_mm_func, use_contiguous_fp16_mm, include_mm_kernel_in_compile
from .....quant_utils import rotate_hadamard, rotate_hadamard_compiled, get_hadamard
from ....tensor import SDNQTensor

from ..forward import check_mats, quantized_linear_with_backward
from ..linear_fp8.linear_fp8_dynamic import quantize_fp_mm_matmul


@inference_context()
def get_fp16_matmul_dynamic_inputs(
    input: torch.FloatTensor,
    weight: torch.Tensor,
    bias: torch.FloatTensor | None = None,
    svd_up: torch.FloatTensor | None = None,
    svd_down: torch.FloatTensor | None = None,
    hadamard: torch.FloatTensor | None = None,
    output_shape: torch.Size = None,
    do_input_reshape: bool = True,
    rotate_weight: bool = False,
    use_sr: bool = False,
) -> torch.FloatTensor:
    return_dtype = input.dtype
    bias_to_add_after = None
    if output_shape is None:
        output_shape = list(input.shape)
        output_shape[-1] = weight.shape[0] if do_input_reshape else weight.shape[-1]
    if hadamard is not None:
        if do_input_reshape:
            input = rotate_hadamard(input, hadamard=hadamard)
        else:
            bias_to_add_after = bias
            bias = None
    if svd_up is not None:
        input = input.flatten(0,-2)
        svd_up, svd_down = svd_up.to(dtype=return_dtype), svd_down.to(dtype=return_dtype)
        if do_input_reshape:
            if use_contiguous_fp16_mm:
                svd_up, svd_down = svd_up.t().contiguous(), svd_down.t().contiguous()
            else:
                svd_up, svd_down = svd_up.contiguous().t(), svd_down.contiguous().t()
            if bias is not None:
                bias = torch.addmm(bias, torch.mm(input, svd_down), svd_up)
            else:
                bias = torch.mm(torch.mm(input, svd_down), svd_up)
        else:
            _, svd_up = check_mats(None, svd_up, matmul_dtype="float16")
            _, svd_down = check_mats(None, svd_down, matmul_dtype="float16")
            if bias is not None:
                bias = torch.addmm(bias, torch.mm(input, svd_up), svd_down)
            else:
                bias = torch.mm(torch.mm(input, svd_up), svd_down)
    input, weight, input_scale, scale = quantize_fp_mm_matmul(
        input, weight,
        do_input_reshape=do_input_reshape,
        hadamard=hadamard if rotate_weight else None,
        use_sr=use_sr,
        matmul_dtype="float16",
    )
    input, weight = check_mats(input, weight, matmul_dtype="float16")
    return input, weight, input_scale, scale, bias, bias_to_add_after, return_dtype, output_shape


@inference_context()
def fp16_matmul_dynamic(
    input: torch.FloatTensor,
    weight: torch.Tensor,
    bias: torch.FloatTensor | None = None,
    svd_up: torch.FloatTensor | None = None,
    svd_down: torch.FloatTensor | None = None,
    hadamard: torch.FloatTensor | None = None,
    output_shape: torch.Size = None,
    do_input_reshape: bool = True,
    rotate_weight: bool = False,
    use_sr: bool = False,
) -> torch.FloatTensor:
    input, weight, input_scale, scale, bias, bias_to_add_after, return_dtype, output_shape = get_fp16_matmul_dynamic_inputs(
        input=input,
        weight=weight,
        bias=bias,
        svd_up=svd_up,
        svd_down=svd_down,
        hadamard=hadamard,
        output_shape=output_shape,
        do_input_reshape=do_input_reshape,
        rotate_weight=rotate_weight,
        use_sr=use_sr,
    )
    result = fp_scaled_mm_func(input, weight, input_scale, scale, bias=bias, out_dtype=return_dtype).view(output_shape)
    if hadamard is not None and not do_input_reshape:
        result = rotate_hadamard_compiled(result, hadamard=hadamard)
    if bias_to_add_after is not None:
        result.add_(bias_to_add_after)
    return result


@inference_context()
def fp16_matmul_dynamic_backward(
    grad_output: torch.FloatTensor,
    input: torch.FloatTensor | None,
    weight: torch.FloatTensor | None,
    svd_up: torch.FloatTensor | None = None,
    svd_down: torch.FloatTensor | None = None,
    hadamard: torch.FloatTensor | None = None,
    input_shape: torch.Size | None = None,
    do_grad_input: bool = True,
    do_grad_weight: bool = True,
    do_grad_bias: bool = True,
) -> tuple[torch.FloatTensor | None, torch.FloatTensor | None, torch.FloatTensor | None]:
    grad_input = grad_weight = grad_bias = None
    grad_output = grad_output.flatten(0,-2)
    if do_grad_input:
        grad_input = fp16_matmul_dynamic(
            grad_output,
            weight,
            svd_up=svd_up,
            svd_down=svd_down,
            hadamard=hadamard,
            output_shape=input_shape if input_shape is not None else input.shape,
            do_input_reshape=False,
        )
    if do_grad_weight:
        grad_weight = fp16_matmul_dynamic(
            grad_output.t(),
            input.flatten(0,-2),
            hadamard=hadamard,
            rotate_weight=bool(hadamard is not None),
            output_shape=None,
            do_input_reshape=False,
        )
    if do_grad_bias:
        grad_bias = grad_output.sum(dim=0)
    return grad_input, grad_weight, grad_bias


class FP16MatmulDynamicBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input: torch.FloatTensor, weight: torch.FloatTensor | SDNQTensor, bias: torch.FloatTensor | None = None) -> torch.FloatTensor:
        if isinstance(weight, SDNQTensor):
            svd_up, svd_down = weight.svd_up, weight.svd_down
            ctx.use_hadamard = weight.sdnq_dequantizer.use_hadamard
            ctx.hadamard_group_size = weight.sdnq_dequantizer.hadamard_group_size
            weight = weight.dequantize(non_svd=True, non_hadamard=True)
        else:
            svd_up, svd_down = None, None
            ctx.use_hadamard = False
            ctx.hadamard_group_size = 256
        if ctx.use_hadamard:
            hadamard = get_hadamard(ctx.hadamard_group_size, dtype=input.dtype, device=input.device)
        else:
            hadamard = None

        result = fp16_matmul_dynamic(
            input, weight,
            bias=bias,
            svd_up=svd_up,
            svd_down=svd_down,
            hadamard=hadamard,
        )

        ctx.input_shape = input.shape
        if not ctx.needs_input_grad[0]:
            weight = svd_up = svd_down = None
        ctx.save_for_backward(input if ctx.needs_input_grad[1] else None, weight, svd_up, svd_down)
        return result

    @staticmethod
    def backward(ctx, grad_output: torch.FloatTensor) -> tuple[torch.FloatTensor | None, torch.FloatTensor | None, torch.FloatTensor | None]:
        input, weight, svd_up, svd_down = ctx.saved_tensors
        if ctx.use_hadamard and (weight is not None or input is not None):
            hadamard = get_hadamard(ctx.hadamard_group_size, dtype=grad_output.dtype, device=grad_output.device)
        else:
            hadamard = None

        return fp16_matmul_dynamic_backward(
            grad_output,
            input, weight,
            svd_up=svd_up,
            svd_down=svd_down,
            hadamard=hadamard,
            input_shape=ctx.input_shape,
            do_grad_input=ctx.needs_input_grad[0],
            do_grad_weight=ctx.needs_input_grad[1],
            do_grad_bias=ctx.needs_input_grad[2],
        )


def quantized_linear_forward_fp16_matmul_dynamic(self, input: torch.FloatTensor) -> torch.FloatTensor:
    if torch.numel(input) / input.shape[-1] < 32:
        if isinstance(self.weight, SDNQTensor):
            return quantized_linear_with_backward(input, self.weight, self.bias)
        else:
            return torch.nn.functional.linear(input, self.weight, self.bias)
    return fp16_matmul_dynamic_with_backward(input, self.weight, self.bias)


fp16_matmul_dynamic_with_backward = FP16MatmulDynamicBackward.apply
if not include_mm_kernel_in_compile:
    get_fp16_matmul_dynamic_inputs = compile_func(get_fp16_matmul_dynamic_inputs)
else:
    fp16_matmul_dynamic = compile_func(fp16_matmul_dynamic)
