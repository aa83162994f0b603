"""
Code Generator — lowers fused IR to CUDA kernel source.

Takes a FusionGroup and generates a complete CUDA kernel:
- Thread/block dimensions based on tensor shapes
- Shared memory allocation for reductions
- Register-level computation for elementwise ops
- Scalar global memory access (one thread per element)

The generated kernels target compute capability 8.0+ (Ampere, Ada, Blackwell).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Optional

from molten.ir import DataflowGraph, Op, OpType, TensorShape
from molten.fusion import FusionGroup


class KernelKind(Enum):
    """What launch shape a generated kernel needs.

    The runtime generates its host-side wrapper from this plus ``params``,
    so the kernel signature and the launcher derive from one source of truth.
    """
    ELEMENTWISE = auto()
    REDUCTION = auto()
    MATMUL = auto()


class ParamRole(Enum):
    """Semantic role of a generated kernel parameter."""
    INPUT = auto()           # per-element input tensor, indexed like the output
    ROW_BROADCAST = auto()   # length-``cols`` vector broadcast across rows (e.g. RMSNorm weight)
    COL_BROADCAST = auto()   # length-``N`` vector broadcast across matmul rows (e.g. bias)
    MATRIX_A = auto()
    MATRIX_B = auto()
    OUTPUT = auto()
    SCALAR = auto()          # an int dimension (N, rows, cols, M/N/K)


@dataclass
class KernelParam:
    """One parameter in a generated kernel signature."""
    name: str
    role: ParamRole
    ctype: str = "float"
    op_id: Optional[int] = None   # graph INPUT op this came from, when applicable

    @property
    def is_scalar(self) -> bool:
        return self.role is ParamRole.SCALAR


@dataclass
class KernelConfig:
    block_size_x: int = 256
    block_size_y: int = 1
    shared_mem_bytes: int = 0
    registers_per_thread: int = 32
    dtype: str = "float"        # "float" or "half"


@dataclass
class GeneratedKernel:
    name: str
    source: str
    config: KernelConfig
    num_args: int
    kind: KernelKind = KernelKind.ELEMENTWISE
    params: list[KernelParam] = field(default_factory=list)
    estimated_flops: int = 0
    estimated_memory_bytes: int = 0

    @property
    def arithmetic_intensity(self) -> float:
        if self.estimated_memory_bytes == 0:
            return 0.0
        return self.estimated_flops / self.estimated_memory_bytes

    @property
    def tensor_params(self) -> list[KernelParam]:
        """Parameters the caller supplies as tensors, in signature order."""
        return [p for p in self.params
                if not p.is_scalar and p.role is not ParamRole.OUTPUT]


# Map OpType to CUDA expression templates
_ELEMENTWISE_TEMPLATES = {
    OpType.ADD: "{a} + {b}",
    OpType.SUB: "{a} - {b}",
    OpType.MUL: "{a} * {b}",
    OpType.DIV: "{a} / {b}",
    OpType.NEG: "-{a}",
    OpType.SQRT: "sqrtf({a})",
    OpType.RSQRT: "rsqrtf({a})",
    OpType.EXP: "expf({a})",
    OpType.LOG: "logf({a})",
    OpType.TANH: "tanhf({a})",
    OpType.SIGMOID: "1.0f / (1.0f + expf(-{a}))",
    OpType.GELU: "{a} * 0.5f * (1.0f + tanhf(0.7978845608f * ({a} + 0.044715f * {a} * {a} * {a})))",
    OpType.SILU: "{a} * (1.0f / (1.0f + expf(-{a})))",
    OpType.RELU: "fmaxf({a}, 0.0f)",
    OpType.ABS: "fabsf({a})",
}


class CodeGenerator:
    """
    Generates CUDA kernel source from fused operation groups.

    For each FusionGroup, emits:
    1. Kernel signature with typed arguments
    2. Thread index computation
    3. Scalar loads from global memory
    4. Fused computation in registers
    5. Scalar stores to global memory
    """

    def __init__(self, compute_capability: int = 80, fp16: bool = False):
        self.fp16 = fp16
        self.dtype = "half" if fp16 else "float"
        self.ptr_type = "__half" if fp16 else "float"

    def generate(self, graph: DataflowGraph,
                 group: FusionGroup) -> GeneratedKernel:
        """Generate a CUDA kernel for a fusion group."""
        ops = [graph.ops[op_id] for op_id in group.op_ids]
        name = self._make_name(ops)

        if group.has_matmul:
            return self._generate_matmul_kernel(graph, group, name)
        elif group.has_reduction:
            return self._generate_reduction_kernel(graph, group, name)
        else:
            return self._generate_elementwise_kernel(graph, group, name)

    def _generate_elementwise_kernel(self, graph: DataflowGraph,
                                     group: FusionGroup,
                                     name: str) -> GeneratedKernel:
        """Generate a fused elementwise kernel."""
        ops = [graph.ops[op_id] for op_id in group.op_ids]
        config = KernelConfig(block_size_x=256)

        # Collect input/output tensors
        inputs = set()
        for op in ops:
            for inp_id in op.inputs:
                if graph.ops[inp_id].op_type == OpType.INPUT:
                    inputs.add(inp_id)

        input_list = sorted(inputs)
        num_inputs = len(input_list)

        # Generate kernel source
        lines = []
        lines.append(f"// Molten auto-generated: {name}")
        lines.append(f"// Fused ops: {' -> '.join(op.op_type.name for op in ops)}")
        if self.fp16:
            lines.append(f"// Precision: fp16 I/O, fp32 compute")
            lines.append("#include <cuda_fp16.h>")
        lines.append("")

        # Signature — fp16 I/O with fp32 compute, or pure fp32
        ptr_t = self.ptr_type
        args = []
        for i, inp_id in enumerate(input_list):
            args.append(f"const {ptr_t}* __restrict__ in{i}")
        args.append(f"{ptr_t}* __restrict__ out")
        args.append("const int N")

        lines.append(f"__global__ void {name}({', '.join(args)}) {{")
        lines.append(f"    const int idx = blockIdx.x * blockDim.x + threadIdx.x;")
        lines.append(f"    if (idx >= N) return;")
        lines.append("")

        # Load inputs (cast to fp32 for compute if fp16 I/O)
        for i in range(num_inputs):
            if self.fp16:
                lines.append(f"    float v{i} = __half2float(in{i}[idx]);")
            else:
                lines.append(f"    float v{i} = in{i}[idx];")

        # Fused computation — track op_id -> variable name mapping
        result_var = f"v0"
        temp_counter = num_inputs
        op_id_to_var: dict[int, str] = {}
        for i, inp_id in enumerate(input_list):
            op_id_to_var[inp_id] = f"v{i}"

        def _var_for(operand_id: int) -> str:
            # Falling back to a default variable here would silently emit a
            # kernel that computes a different function than the graph says.
            if operand_id not in op_id_to_var:
                raise NotImplementedError(
                    f"{name}: operand {operand_id} "
                    f"({graph.ops[operand_id].op_type.name}) is not available in "
                    f"this fusion group; cannot generate a correct kernel."
                )
            return op_id_to_var[operand_id]

        for op in ops:
            template = _ELEMENTWISE_TEMPLATES.get(op.op_type)
            if template is None:
                raise NotImplementedError(
                    f"{name}: no CUDA template for {op.op_type.name}; refusing to "
                    f"emit a kernel that silently omits it."
                )

            if len(op.inputs) == 2:
                expr = template.format(a=_var_for(op.inputs[0]),
                                       b=_var_for(op.inputs[1]))
            elif len(op.inputs) == 1:
                expr = template.format(a=_var_for(op.inputs[0]))
            else:
                raise NotImplementedError(
                    f"{name}: {op.op_type.name} has {len(op.inputs)} inputs; "
                    f"only unary and binary elementwise ops are supported."
                )

            result_var = f"t{temp_counter}"
            temp_counter += 1
            op_id_to_var[op.id] = result_var
            lines.append(f"    float {result_var} = {expr};")

        if self.fp16:
            lines.append(f"    out[idx] = __float2half({result_var});")
        else:
            lines.append(f"    out[idx] = {result_var};")
        lines.append("}")

        params: list[KernelParam] = [
            KernelParam(f"in{i}", ParamRole.INPUT, ctype=ptr_t, op_id=inp_id)
            for i, inp_id in enumerate(input_list)
        ]
        params.append(KernelParam("out", ParamRole.OUTPUT, ctype=ptr_t))
        params.append(KernelParam("N", ParamRole.SCALAR, ctype="int"))

        source = "\n".join(lines)
        return GeneratedKernel(
            name=name, source=source, config=config,
            num_args=len(params),
            kind=KernelKind.ELEMENTWISE,
            params=params,
        )

    def _find_reduction_operands(self, graph: DataflowGraph,
                                 group: FusionGroup,
                                 anchor_id: Optional[int]) -> tuple[Optional[int], list[int]]:
        """Split the group's graph-level INPUT operands into (primary, broadcasts).

        The *primary* operand is the tensor feeding the reduction itself; every
        other INPUT consumed by the group is a length-``cols`` vector applied
        elementwise across each row (an RMSNorm weight, for example).
        """
        group_ids = set(group.op_ids)

        primary: Optional[int] = None
        if anchor_id is not None:
            for inp_id in graph.ops[anchor_id].inputs:
                if graph.ops[inp_id].op_type == OpType.INPUT:
                    primary = inp_id
                    break

        broadcasts: list[int] = []
        for op_id in group.op_ids:
            for inp_id in graph.ops[op_id].inputs:
                if inp_id in group_ids:
                    continue
                if graph.ops[inp_id].op_type != OpType.INPUT:
                    continue
                if primary is None:
                    primary = inp_id
                elif inp_id != primary and inp_id not in broadcasts:
                    broadcasts.append(inp_id)

        return primary, sorted(broadcasts)

    def _generate_reduction_kernel(self, graph: DataflowGraph,
                                   group: FusionGroup,
                                   name: str) -> GeneratedKernel:
        """Generate a kernel with reduction (softmax, norm, etc.).

        The signature is derived from the graph rather than hardcoded, so
        operands such as the RMSNorm weight appear as real kernel parameters
        and are actually applied.
        """
        config = KernelConfig(
            block_size_x=256,
            shared_mem_bytes=256 * 4,  # float per thread
        )

        # Which reduction is this?
        softmax_id = next((op_id for op_id in group.op_ids
                           if graph.ops[op_id].op_type == OpType.SOFTMAX), None)
        rms_id = next((op_id for op_id in group.op_ids
                       if graph.ops[op_id].op_type == OpType.RMS), None)
        anchor_id = softmax_id if softmax_id is not None else rms_id

        primary, broadcasts = self._find_reduction_operands(graph, group, anchor_id)

        # Only RMSNorm applies a trailing elementwise scale in this backend;
        # for other reductions a broadcast operand would be silently ignored,
        # so refuse to emit a kernel that quietly computes the wrong function.
        if broadcasts and rms_id is None:
            raise NotImplementedError(
                f"{name}: reduction kernel has {len(broadcasts)} broadcast operand(s) "
                f"but only RMSNorm supports a fused scale in this backend. "
                f"Refusing to emit a kernel that would ignore them."
            )

        params: list[KernelParam] = [
            KernelParam("input", ParamRole.INPUT, op_id=primary),
        ]
        for i, b_id in enumerate(broadcasts):
            pname = graph.ops[b_id].name or f"weight{i}"
            params.append(KernelParam(pname, ParamRole.ROW_BROADCAST, op_id=b_id))
        params.append(KernelParam("output", ParamRole.OUTPUT))
        params.append(KernelParam("rows", ParamRole.SCALAR, ctype="int"))
        params.append(KernelParam("cols", ParamRole.SCALAR, ctype="int"))

        sig_parts = []
        for p in params:
            if p.role is ParamRole.OUTPUT:
                sig_parts.append(f"    float* __restrict__ {p.name}")
            elif p.is_scalar:
                sig_parts.append(f"    const int {p.name}")
            else:
                sig_parts.append(f"    const float* __restrict__ {p.name}")

        lines = []
        lines.append(f"// Molten auto-generated: {name} (with reduction)")
        lines.append(f"// Operands: {', '.join(p.name for p in params)}")
        lines.append(f"__global__ void {name}(")
        lines.append(",\n".join(sig_parts) + ") {")
        lines.append(f"")
        lines.append(f"    extern __shared__ float sdata[];")
        lines.append(f"    const int tid = threadIdx.x;")
        lines.append(f"    const int row = blockIdx.x;")
        lines.append(f"    if (row >= rows) return;")
        lines.append(f"")
        lines.append(f"    const float* row_in = input + row * cols;")
        lines.append(f"    float* row_out = output + row * cols;")
        lines.append(f"")

        scale_names = [p.name for p in params if p.role is ParamRole.ROW_BROADCAST]

        if softmax_id is not None:
            lines.extend(self._softmax_body())
        elif rms_id is not None:
            lines.extend(self._rms_norm_body(scale_names))
        else:
            lines.extend(self._generic_reduction_body())

        lines.append("}")

        source = "\n".join(lines)
        return GeneratedKernel(
            name=name, source=source, config=config,
            num_args=len(params),
            kind=KernelKind.REDUCTION,
            params=params,
        )

    def _softmax_body(self) -> list[str]:
        return [
            "    // Pass 1: find max (for numerical stability)",
            "    float max_val = -INFINITY;",
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        max_val = fmaxf(max_val, row_in[i]);",
            "    }",
            "    sdata[tid] = max_val;",
            "    __syncthreads();",
            "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
            "        if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);",
            "        __syncthreads();",
            "    }",
            "    max_val = sdata[0];",
            "    __syncthreads();",
            "",
            "    // Pass 2: exp and sum",
            "    float sum_val = 0.0f;",
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        float e = expf(row_in[i] - max_val);",
            "        row_out[i] = e;",
            "        sum_val += e;",
            "    }",
            "    sdata[tid] = sum_val;",
            "    __syncthreads();",
            "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
            "        if (tid < s) sdata[tid] += sdata[tid + s];",
            "        __syncthreads();",
            "    }",
            "    float inv_sum = 1.0f / sdata[0];",
            "    __syncthreads();",
            "",
            "    // Pass 3: normalize",
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        row_out[i] *= inv_sum;",
            "    }",
        ]

    def _rms_norm_body(self, scale_names: Optional[list[str]] = None) -> list[str]:
        """RMSNorm body: x * rsqrt(mean(x^2) + eps), then any broadcast scales.

        ``scale_names`` are length-``cols`` vectors (the RMSNorm weight) applied
        elementwise after normalization. Omitting them would compute a different
        function than the graph specifies.
        """
        scale_names = scale_names or []
        body = [
            "    // Compute sum of squares",
            "    float ss = 0.0f;",
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        float v = row_in[i];",
            "        ss += v * v;",
            "    }",
            "    sdata[tid] = ss;",
            "    __syncthreads();",
            "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
            "        if (tid < s) sdata[tid] += sdata[tid + s];",
            "        __syncthreads();",
            "    }",
            "    float rms = rsqrtf(sdata[0] / (float)cols + 1e-6f);",
            "    __syncthreads();",
            "",
            "    // Normalize" + (" and apply broadcast scale" if scale_names else ""),
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        float v = row_in[i] * rms;",
        ]
        for sname in scale_names:
            body.append(f"        v *= {sname}[i];")
        body.extend([
            "        row_out[i] = v;",
            "    }",
        ])
        return body

    def _generic_reduction_body(self) -> list[str]:
        return [
            "    float acc = 0.0f;",
            "    for (int i = tid; i < cols; i += blockDim.x) {",
            "        acc += row_in[i];",
            "    }",
            "    sdata[tid] = acc;",
            "    __syncthreads();",
            "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
            "        if (tid < s) sdata[tid] += sdata[tid + s];",
            "        __syncthreads();",
            "    }",
            "    if (tid == 0) row_out[0] = sdata[0];",
        ]

    def _generate_matmul_kernel(self, graph: DataflowGraph,
                                group: FusionGroup,
                                name: str) -> GeneratedKernel:
        """Generate a tiled matmul kernel with fused epilogue."""
        config = KernelConfig(
            block_size_x=16,
            block_size_y=16,
            shared_mem_bytes=2 * 16 * 16 * 4,  # two tiles
        )

        # Collect epilogue ops (ops after matmul)
        group_ids = set(group.op_ids)
        matmul_id = None
        epilogue_ops = []
        for op_id in group.op_ids:
            if graph.ops[op_id].op_type == OpType.MATMUL:
                matmul_id = op_id
            elif matmul_id is not None:
                epilogue_ops.append(graph.ops[op_id])

        # A binary epilogue op (e.g. bias add) pulls in a length-N vector operand.
        # Previously the generated code referenced an undeclared `bias_val`, so
        # any such kernel failed to compile; now it becomes a real parameter.
        bias_id: Optional[int] = None
        for op in epilogue_ops:
            if len(op.inputs) != 2:
                continue
            for inp_id in op.inputs:
                if inp_id in group_ids:
                    continue
                if graph.ops[inp_id].op_type == OpType.INPUT:
                    if bias_id is None:
                        bias_id = inp_id
                    elif bias_id != inp_id:
                        raise NotImplementedError(
                            f"{name}: matmul epilogue needs more than one broadcast "
                            f"operand; only a single bias vector is supported."
                        )

        # The kernel indexes the bias with the output column (bias[col]), so
        # a non-vector or mismatched-length operand would be a silent
        # miscompile. Shapes are often symbolic, so reject only what is
        # provably wrong.
        if bias_id is not None:
            bias_op = graph.ops[bias_id]
            bias_shape = bias_op.shape
            if bias_shape is not None and bias_shape.ndim != 1:
                raise NotImplementedError(
                    f"{name}: bias operand '{bias_op.name}' has shape "
                    f"{bias_shape}; a matmul epilogue bias must be a "
                    f"length-N vector."
                )
            bias_n = bias_shape.dims[0] if bias_shape is not None else None
            b_shape = graph.ops[graph.ops[matmul_id].inputs[1]].shape
            if (isinstance(bias_n, int) and b_shape is not None
                    and b_shape.dims):
                b_n = b_shape.dims[-1]
                if isinstance(b_n, int) and b_n != bias_n:
                    raise NotImplementedError(
                        f"{name}: bias operand '{bias_op.name}' has length "
                        f"{bias_n} but the matmul output has {b_n} columns."
                    )

        params: list[KernelParam] = [
            KernelParam("A", ParamRole.MATRIX_A),
            KernelParam("B", ParamRole.MATRIX_B),
        ]
        if bias_id is not None:
            params.append(KernelParam("bias", ParamRole.COL_BROADCAST, op_id=bias_id))
        params.extend([
            KernelParam("C", ParamRole.OUTPUT),
            KernelParam("M", ParamRole.SCALAR, ctype="int"),
            KernelParam("N", ParamRole.SCALAR, ctype="int"),
            KernelParam("K", ParamRole.SCALAR, ctype="int"),
        ])

        # Emit the epilogue as a statement sequence rather than one nested
        # expression. Templates such as GELU repeat `{a}` several times, so
        # textual substitution of a compound expression silently reassociated
        # the arithmetic (e.g. `acc + bias_val * 0.5f * ...`).
        epilogue_lines: list[str] = []
        cur = "acc"
        tmp_n = 0
        for op in epilogue_ops:
            template = _ELEMENTWISE_TEMPLATES.get(op.op_type)
            if template is None:
                raise NotImplementedError(
                    f"{name}: epilogue op {op.op_type.name} has no CUDA template."
                )
            tmp = f"e{tmp_n}"
            tmp_n += 1
            if len(op.inputs) == 2:
                if bias_id is None:
                    raise NotImplementedError(
                        f"{name}: binary epilogue op {op.op_type.name} has no "
                        f"broadcast operand to bind."
                    )
                expr = template.format(a=cur, b="bias_val")
            else:
                expr = template.format(a=cur)
            epilogue_lines.append(f"        float {tmp} = {expr};")
            cur = tmp

        sig_parts = []
        for p in params:
            if p.role is ParamRole.OUTPUT:
                sig_parts.append(f"    float* __restrict__ {p.name}")
            elif p.is_scalar:
                sig_parts.append(f"    const int {p.name}")
            else:
                sig_parts.append(f"    const float* __restrict__ {p.name}")

        lines = [
            f"// Molten auto-generated: {name} (matmul + epilogue)",
            f"// Operands: {', '.join(p.name for p in params)}",
            f"#define TILE 16",
            f"__global__ void {name}(",
            ",\n".join(sig_parts) + ") {",
            f"",
            f"    __shared__ float As[TILE][TILE];",
            f"    __shared__ float Bs[TILE][TILE];",
            f"",
            f"    const int row = blockIdx.y * TILE + threadIdx.y;",
            f"    const int col = blockIdx.x * TILE + threadIdx.x;",
            f"    float acc = 0.0f;",
            f"",
            f"    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {{",
            f"        int ak = t * TILE + threadIdx.x;",
            f"        int bk = t * TILE + threadIdx.y;",
            f"        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;",
            f"        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;",
            f"        __syncthreads();",
            f"",
            f"        #pragma unroll",
            f"        for (int i = 0; i < TILE; i++) {{",
            f"            acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];",
            f"        }}",
            f"        __syncthreads();",
            f"    }}",
            f"",
            f"    if (row < M && col < N) {{",
        ]
        if bias_id is not None:
            lines.append(f"        const float bias_val = bias[col];")
        lines.extend(epilogue_lines)
        lines.extend([
            f"        C[row * N + col] = {cur};",
            f"    }}",
            f"}}",
        ])

        source = "\n".join(lines)
        return GeneratedKernel(
            name=name, source=source, config=config,
            num_args=len(params),
            kind=KernelKind.MATMUL,
            params=params,
        )

    @staticmethod
    def _make_name(ops: list[Op]) -> str:
        parts = []
        for op in ops:
            name = op.op_type.name.lower()
            if name not in parts:
                parts.append(name)
        return "molten_fused_" + "_".join(parts[:4])


def compile_graph(graph: DataflowGraph,
                  compute_capability: int = 80,
                  fp16: bool = False) -> list[GeneratedKernel]:
    """Full pipeline: fuse + codegen."""
    from molten.fusion import FusionEngine

    engine = FusionEngine()
    groups = engine.fuse(graph)
    codegen = CodeGenerator(compute_capability, fp16=fp16)

    kernels = []
    for group in groups:
        kernel = codegen.generate(graph, group)
        kernels.append(kernel)

    return kernels
