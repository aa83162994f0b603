"""
Runtime — JIT compiles and executes generated CUDA kernels.

Closes the loop: DataflowGraph → fused CUDA source → compiled kernel → callable.
Uses torch.utils.cpp_extension.load_inline for JIT compilation.

This is where Molten goes from "generates code" to "runs faster."
"""

from __future__ import annotations

import torch
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Optional, Callable
from dataclasses import dataclass

from molten.codegen import (
    GeneratedKernel, KernelConfig, KernelKind, KernelParam, ParamRole,
)


@dataclass
class CompiledKernel:
    """A compiled, callable CUDA kernel."""
    name: str
    source: str
    config: KernelConfig
    _module: object = None

    def __call__(self, *args, **kwargs):
        """Launch the kernel with given tensor arguments."""
        if self._module is None:
            raise RuntimeError(f"Kernel '{self.name}' not compiled. Call compile() first.")
        fn = getattr(self._module, self.name)
        return fn(*args, **kwargs)


class MoltenRuntime:
    """
    JIT compiler and executor for Molten-generated kernels.

    Compiles CUDA source to callable functions via torch's cpp_extension.
    Caches compiled modules by source hash to avoid recompilation.
    """

    def __init__(self, cache_dir: Optional[str] = None, verbose: bool = False):
        self.verbose = verbose
        self.cache_dir = cache_dir or os.path.join(
            tempfile.gettempdir(), "molten_cache"
        )
        os.makedirs(self.cache_dir, exist_ok=True)
        self._compiled: dict[str, CompiledKernel] = {}

    def compile(self, kernel: GeneratedKernel) -> CompiledKernel:
        """Compile a generated kernel into a callable."""
        source_hash = hashlib.md5(kernel.source.encode()).hexdigest()[:12]

        if source_hash in self._compiled:
            return self._compiled[source_hash]

        # Write source files to disk, then use torch.utils.cpp_extension.load
        cpp_source, cuda_source = self._make_extension(kernel)
        build_dir = os.path.join(self.cache_dir, source_hash)
        os.makedirs(build_dir, exist_ok=True)

        cu_path = os.path.join(build_dir, f"{kernel.name}.cu")
        with open(cu_path, "w") as f:
            f.write(cuda_source)

        try:
            from torch.utils.cpp_extension import load

            module = load(
                name=f"molten_{kernel.name}_{source_hash}",
                sources=[cu_path],
                build_directory=build_dir,
                verbose=self.verbose,
            )

            compiled = CompiledKernel(
                name=f"{kernel.name}_launch",
                source=kernel.source,
                config=kernel.config,
                _module=module,
            )
            self._compiled[source_hash] = compiled
            return compiled

        except Exception as e:
            if self.verbose:
                print(f"Compilation failed for {kernel.name}: {e}")
                print(f"Source file: {cu_path}")
            raise

    @staticmethod
    def _arg_expr(param: KernelParam, var: str) -> str:
        """Render the C++ expression passing ``var`` as ``param``."""
        if param.ctype == "__half":
            return f"reinterpret_cast<{'const ' if param.role is not ParamRole.OUTPUT else ''}__half*>({var}.data_ptr<at::Half>())"
        return f"{var}.data_ptr<float>()"

    def _make_extension(self, kernel: GeneratedKernel) -> tuple[str, str]:
        """Generate torch cpp_extension compatible source.

        The host wrapper is derived from ``kernel.kind`` and ``kernel.params``,
        which the codegen builds from the graph. Previously the signature and
        the launcher were hardcoded independently, so any kernel with an extra
        operand (an RMSNorm weight, a matmul bias) either dropped it or failed
        to compile.
        """
        name = kernel.name
        cfg = kernel.config

        tensor_params = kernel.tensor_params
        out_param = next(p for p in kernel.params if p.role is ParamRole.OUTPUT)

        # Host signature: one torch::Tensor per non-scalar, non-output param.
        host_args = ", ".join(f"torch::Tensor {p.name}" for p in tensor_params)

        # Kernel call arguments, in declared order.
        call_args = []
        for p in kernel.params:
            if p.role is ParamRole.OUTPUT:
                call_args.append(self._arg_expr(p, "output"))
            elif p.is_scalar:
                call_args.append(p.name)
            else:
                call_args.append(self._arg_expr(p, p.name))
        call_arg_str = ",\n        ".join(call_args)

        if kernel.kind is KernelKind.MATMUL:
            prologue = f"""
    const int M = A.size(0);
    const int K = A.size(1);
    const int N = B.size(1);

    auto output = torch::zeros({{M, N}}, A.options());

    dim3 block({cfg.block_size_x}, {cfg.block_size_y});
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
"""
            launch = f"{name}<<<grid, block>>>"
        elif kernel.kind is KernelKind.REDUCTION:
            primary = tensor_params[0].name
            prologue = f"""
    const int cols = {primary}.size(-1);
    const int rows = {primary}.numel() / cols;

    auto output = torch::zeros_like({primary});

    dim3 block({cfg.block_size_x});
    dim3 grid(rows);
    int smem = {cfg.shared_mem_bytes};
"""
            launch = f"{name}<<<grid, block, smem>>>"
        else:
            primary = tensor_params[0].name
            prologue = f"""
    const int N = {primary}.numel();
    auto output = torch::zeros_like({primary});

    dim3 block({cfg.block_size_x});
    dim3 grid((N + block.x - 1) / block.x);
"""
            launch = f"{name}<<<grid, block>>>"

        cuda_source = f"""
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <cmath>

{kernel.source}

torch::Tensor {name}_launch({host_args}) {{
{prologue}
    {launch}(
        {call_arg_str}
    );
    C10_CUDA_CHECK(cudaGetLastError());
    return output;
}}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{
    m.def("{name}_launch", &{name}_launch, "Molten generated kernel");
}}
"""

        cpp_source = ""  # not needed when everything is in the .cu file
        return cpp_source, cuda_source

    def clear_cache(self):
        """Clear the compilation cache."""
        import shutil
        if os.path.exists(self.cache_dir):
            shutil.rmtree(self.cache_dir)
            os.makedirs(self.cache_dir, exist_ok=True)
        self._compiled.clear()
