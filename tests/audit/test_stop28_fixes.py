"""Fixes after measurement rounds 384-399 (#22, stop 28), each with the real files and a twin.

- NetKet 3.23 (round 397): ``netket/models/tensor_networks/mps.py``, a Matrix Product State model, was read
  as an MPS backend file, so a JAX project with float64 on by default came out "already supported on Apple
  MPS" (*lower* for *higher*, two levels off; NetKet left the corpus). A Python file named ``mps`` is
  evidence of an Apple backend only where its code drives an Apple GPU (torch.mps, the 'mps' device, Metal,
  MLX). TensorKrowch's ``models/mps.py`` (in the corpus) is the same kind of file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scan import APPLE_GPU_CODE
from tests.audit.conftest import project

TENSOR_NETWORK = '''"""A periodic Matrix Product State (MPS) for a chain of spins."""
import jax.numpy as jnp
from flax import linen as nn


class MPSPeriodic(nn.Module):
    bond_dim: int

    def contract_mps(self, tensors):
        return jnp.trace(jnp.linalg.multi_dot(tensors))
'''


def _mps_ports(root: Path) -> list[str]:
    return [
        s.file or ""
        for s in scan_tree(str(root)).signals
        if s.kind == "port" and s.subject == "mps" and any("backend file" in d for d in s.detail)
    ]


def test_a_tensor_network_named_mps_is_not_an_apple_backend(tmp_path: Path) -> None:
    model = tmp_path / "spins" / "models" / "tensor_networks" / "mps.py"
    model.parent.mkdir(parents=True)
    model.write_text(TENSOR_NETWORK, encoding="utf-8")
    assert _mps_ports(tmp_path) == []


def test_a_module_named_mps_that_drives_the_apple_gpu_still_is(tmp_path: Path) -> None:
    """The twin: the same file name holding an accelerator member (Lightning's ``accelerators/mps.py``)."""
    for body in (
        "import torch\ndef available():\n    return torch.backends.mps.is_available()\n",
        "import torch\ndef place(x):\n    return x.to(device='mps')\n",
        "import mlx.core as mx\n",
    ):
        accelerator = tmp_path / "trainer" / "accelerators" / "mps.py"
        accelerator.parent.mkdir(parents=True, exist_ok=True)
        accelerator.write_text(body, encoding="utf-8")
        assert _mps_ports(tmp_path) == ["trainer/accelerators/mps.py"], body


def test_tensorkrowch_matrix_product_states_are_not_a_metal_port(tmp_path: Path) -> None:
    real = Path(project("real-tensorkrowch"))
    assert _mps_ports(real) == []
    # The real file with one line that binds the Apple device: the evidence comes back.
    tree = tmp_path / "tk"
    shutil.copytree(real, tree)
    mps = tree / "tensorkrowch" / "models" / "mps.py"
    mps.write_text(mps.read_text(encoding="utf-8") + "\nDEVICE = torch.device('mps')\n", encoding="utf-8")
    assert _mps_ports(tree) == ["tensorkrowch/models/mps.py"]


def test_the_apple_gpu_pattern_reads_real_backends_not_names() -> None:
    assert APPLE_GPU_CODE.search(b"if torch.backends.mps.is_available():")
    assert APPLE_GPU_CODE.search(b'if device.type == "mps":')
    assert APPLE_GPU_CODE.search(b'SOURCE = """#include <metal_stdlib>\nkernel void add(...)"""')
    assert not APPLE_GPU_CODE.search(b"super().__init__(name='mps')")  # TensorKrowch's network name
    assert not APPLE_GPU_CODE.search(TENSOR_NETWORK.encode())


def test_a_fifo_named_mps_is_never_opened(tmp_path: Path) -> None:
    """The new read goes through the guarded reader: a FIFO named ``mps.py`` would block an open()."""
    (tmp_path / "pkg").mkdir()
    os.mkfifo(tmp_path / "pkg" / "mps.py")
    (tmp_path / "pkg" / "model.py").write_text("import torch\n", encoding="utf-8")
    assert _mps_ports(tmp_path) == []


def test_a_hostile_file_named_mps_is_read_capped_and_linear(tmp_path: Path) -> None:
    """Two megabytes of near misses for every alternative of the pattern: read once, capped, no match."""
    body = (
        "metal  " * 40 + "devic device" + " " * 40 + "'mp type(  'mp " + "import  Metl " * 10 + "\n"
    ) * 4000
    (tmp_path / "mps.py").write_text(body[: 2 * 1024 * 1024], encoding="utf-8")
    assert _mps_ports(tmp_path) == []


WRAPPER = '''"""JIT-compiling the optional CUDA extensions (pyjuice 2.6.3's utils/cuda_ext.py, in short)."""


def jit_load(name, sources, extra_cuda_cflags=None, **kwargs):
    from torch.utils.cpp_extension import load

    return load(name=name, sources=sources, extra_cuda_cflags=extra_cuda_cflags, **kwargs)
'''

CALLER = """import os
import warnings

from fastpath.cuda_ext import jit_load

_HERE = os.path.dirname(__file__)


def get_module():
    {body}
"""
SWALLOWED_CALL = """try:
        return jit_load("fast_sum", sources=[os.path.join(_HERE, "fast_sum.cu")])
    except Exception as e:
        warnings.warn(f"falling back to the Triton kernels ({e})")
        return None"""
PLAIN_CALL = """return jit_load("fast_sum", sources=[os.path.join(_HERE, "fast_sum.cu")])"""

KERNEL = """#include <cute/tensor.hpp>
__global__ void fast_sum(float* x) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(0), "r"(1));
}
"""


def _kernel_tree(root: Path, body: str) -> Path:
    package = root / "fastpath"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import torch\n", encoding="utf-8")
    (package / "cuda_ext.py").write_text(WRAPPER, encoding="utf-8")
    (package / "kernels.py").write_text(CALLER.format(body=body), encoding="utf-8")
    (package / "fast_sum.cu").write_text(KERNEL, encoding="utf-8")
    return root


def test_a_jit_build_through_the_projects_wrapper_with_a_fallback_is_optional(tmp_path: Path) -> None:
    """pyjuice 2.6.3 (round 410, *higher* for *lower* on ROCm, two levels off): its sm_90 CuTe kernels are
    JIT-built through its own ``jit_load`` wrapper of torch's load(), each call in a ``try`` that falls back
    to Triton. The wrapper's call is the build; the kernel's CuTe include and PTX are as optional as it."""
    tree = _kernel_tree(tmp_path / "swallowed", SWALLOWED_CALL)
    builds = [s for s in scan_tree(str(tree)).signals if s.kind == "jit-build"]
    assert {s.file for s in builds} == {"fastpath/cuda_ext.py", "fastpath/kernels.py"}
    report = audit(scan_tree(str(tree)), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "lower", report.verdict.reasons
    # The twin: the same wrapper called with no fallback; the CuTe kernel is the op's only path.
    twin = _kernel_tree(tmp_path / "required", PLAIN_CALL)
    report = audit(scan_tree(str(twin)), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "higher", report.verdict.reasons


def test_sources_passed_to_a_record_are_no_build(tmp_path: Path) -> None:
    """birder's ``KernelSpec(sources=[...".cu"])`` describes a kernel; its loader's own load() builds it.
    Only calls of a function the project defines around load() (sources its parameter) count as builds."""
    tree = _kernel_tree(tmp_path / "spec", SWALLOWED_CALL)
    (tree / "fastpath" / "cuda_ext.py").write_text(
        WRAPPER.replace("sources=sources", 'sources=["other.cu"]'), encoding="utf-8"
    )
    builds = [s for s in scan_tree(str(tree)).signals if s.kind == "jit-build"]
    assert [s.file for s in builds] == ["fastpath/cuda_ext.py"]  # the wrapper's own load(), not the call
    report = audit(scan_tree(str(tree)), None, parse_target("rocm:gfx942"))
    assert report.verdict.risk == "higher"
