"""Fixes after measurement rounds 208-211 and on (#22, stop 24), each with the real excerpt and a twin.

- fvdb-core 0.6.0 (round 210): one ``#if defined(USE_ROCM)`` branch in a header copied from ATen, in a
  tree whose only build is ``project(fvdb LANGUAGES CXX CUDA)``, read as a ROCm port (two levels off).
- optimized_transducer 1.4 (round 211; fast_rnnt 1.3 has the same CMake): CUDA is one of the project's
  languages only where nvcc is found, and the CPU loss is built otherwise; its kernels were read as ports,
  and on ROCm its 32-lane masks as a compile error the build never meets.
- matgl 4.1.2 (round 212): ``import warp`` at the top of ``matgl/ops/__init__.py``, a package every module
  of which loads only through a ``try: ... except ImportError`` in the models, read as a required NVIDIA
  runtime (two levels off on ROCm and XPU).
- torch-sparse 0.6.18 (round 212): the test devices of ``torch_sparse/testing.py`` (``mps`` when available)
  read as the library's own MPS path, where its CPU kernels refuse anything but CPU tensors.
- replay-rec 0.22.0 (round 214): torch, Lightning and pytorch-optimizer all in the ``torch`` extra, the whole
  neural side; Lightning read as an option of it, so its missing XPU accelerator counted for nothing.
- nequip-allegro 0.8.3 (round 217): the optional Triton module, loaded by the model only in a function,
  read as loaded with the package because a benchmark script nothing imports imports it at its top.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.audit.roles import role_of
from envsnap.audit.scanners.torch_pin import torch_pins
from tests.audit.conftest import audit_files, raised

# fvdb-core 0.6.0: src/CMakeLists.txt:1-6.
FVDB_CMAKE = (
    "# Copyright Contributors to the OpenVDB Project\n"
    "# SPDX-License-Identifier: Apache-2.0\n"
    "\n"
    "cmake_minimum_required(VERSION 3.25 FATAL_ERROR)\n"
    "\n"
    "project(fvdb LANGUAGES CXX CUDA)\n"
)
# src/fvdb/detail/utils/cuda/Atomics.cuh:171-181, the half atomicAdd fallback copied from ATen.
FVDB_ATOMICS = (
    "#include <c10/cuda/CUDAException.h>\n"
    "#if defined(USE_ROCM) || (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700 || CUDA_VERSION < 10000))\n"
    "static inline __device__ void\n"
    "atomAdd(at::Half *address, at::Half val) {\n"
    "    AtomicAddDecimalImpl<at::Half, sizeof(at::Half)>()(address, val);\n"
    "}\n"
    "#else\n"
    "static inline __device__ void\n"
    "atomAdd(at::Half *address, at::Half val) {\n"
    "    atomicAdd(reinterpret_cast<__half *>(address), val);\n"
    "}\n"
    "#endif\n"
)
# src/fvdb/detail/ops/IjkToIndex.cu: a kernel source of the same build.
FVDB_KERNEL = (
    "#include <fvdb/detail/utils/cuda/Atomics.cuh>\n"
    "#include <c10/cuda/CUDAException.h>\n"
    "__global__ void ijkToIndex(const int *ijk, long *out, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = ijk[i];\n"
    "}\n"
)
FVDB = {
    "src/CMakeLists.txt": FVDB_CMAKE,
    "src/fvdb/detail/utils/cuda/Atomics.cuh": FVDB_ATOMICS,
    "src/fvdb/detail/ops/IjkToIndex.cu": FVDB_KERNEL,
}


def test_a_rocm_branch_that_no_build_compiles_for_amd_is_no_port(tmp_path: Path) -> None:
    report = audit_files(tmp_path, FVDB, "rocm:gfx942")
    # A plain kernel is hipify's work (moderate); fVDB's CUTLASS/CuTe sources make it higher.
    assert report.verdict.risk == "moderate"
    assert not report.verdict.supported
    assert "cuda-source" in raised(report)


def test_the_same_branch_counts_where_the_build_knows_hip(tmp_path: Path) -> None:
    # The twin: a CMake project that also enables HIP builds the branch for AMD GPUs.
    hip = {**FVDB, "src/CMakeLists.txt": FVDB_CMAKE + "if(USE_ROCM)\n  enable_language(HIP)\nendif()\n"}
    assert audit_files(tmp_path / "hip", hip, "rocm:gfx942").verdict.risk == "lower"
    # So does a torch CUDAExtension in setup.py, which hipifies its sources under ROCm PyTorch.
    setup = (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(name='fvdb', ext_modules=[CUDAExtension('fvdb._C', ['src/fvdb/detail/ops/IjkToIndex.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    )
    extension = {**FVDB, "setup.py": setup}
    assert audit_files(tmp_path / "extension", extension, "rocm:gfx942").verdict.risk == "lower"


# optimized_transducer 1.4: CMakeLists.txt:14-43 (comments and the build-type lines left out).
OT_CMAKE = (
    "set(languages CXX)\n"
    "set(_OT_WITH_CUDA ON)\n"
    "\n"
    "find_program(OT_HAS_NVCC nvcc)\n"
    'if(NOT OT_HAS_NVCC AND "$ENV{CUDACXX}" STREQUAL "")\n'
    '  message(STATUS "No NVCC detected. Disable CUDA support")\n'
    "  set(_OT_WITH_CUDA OFF)\n"
    "endif()\n"
    "\n"
    "if(APPLE OR (DEFINED OT_WITH_CUDA AND NOT OT_WITH_CUDA))\n"
    "  if(_OT_WITH_CUDA)\n"
    '    message(STATUS "Disable CUDA support")\n'
    "    set(_OT_WITH_CUDA OFF)\n"
    "  endif()\n"
    "endif()\n"
    "\n"
    "if(_OT_WITH_CUDA)\n"
    "  set(languages ${languages} CUDA)\n"
    "  if(NOT DEFINED OT_WITH_CUDA)\n"
    "    set(OT_WITH_CUDA ON)\n"
    "  endif()\n"
    "endif()\n"
    "\n"
    "project(optimized_transducer ${languages})\n"
)
# optimized_transducer/csrc/kernels.cu:150-158, a warp scan with a 32-lane mask.
OT_KERNELS = (
    "__global__ void ComputeSkip(const float *in, float *out) {\n"
    "    float skip_prob = in[threadIdx.x];\n"
    "    float val;\n"
    "#pragma unroll\n"
    "    for (int32_t i = 1; i < warpSize; i <<= 1) {\n"
    "      val = __shfl_up_sync(0xffffffff, skip_prob, i);\n"
    "      if (i <= threadIdx.x) {\n"
    "        skip_prob = skip_prob + val;\n"
    "      }\n"
    "    }\n"
    "    out[threadIdx.x] = skip_prob;\n"
    "}\n"
)
# optimized_transducer/csrc/cpu.cc: the CPU loss the build falls back to (its first lines).
OT_CPU = '#include "torch/script.h"\n\nnamespace ot {\ntorch::Tensor ComputeTransducerLossCpu();\n}\n'
OT = {
    "CMakeLists.txt": OT_CMAKE,
    "optimized_transducer/csrc/kernels.cu": OT_KERNELS,
    "optimized_transducer/csrc/cpu.cc": OT_CPU,
}


def test_kernels_of_a_build_that_goes_on_without_nvcc_are_a_cpu_move(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target, OT, target)
        assert report.verdict.risk == "moderate", target
        assert "cuda-kernel-cpu-build" in raised(report)
        # On ROCm the 32-lane mask is never compiled: the build has no nvcc and builds the CPU loss.
        assert "warp-mask-32bit" not in raised(report)


def test_a_cuda_language_outside_any_cuda_test_stays_a_port(tmp_path: Path) -> None:
    # The twin: the same sources with CUDA always among the languages (fVDB's shape).
    always = {**OT, "CMakeLists.txt": "project(optimized_transducer LANGUAGES CXX CUDA)\n"}
    assert audit_files(tmp_path / "xpu", always, "xpu").verdict.risk == "higher"
    rocm = audit_files(tmp_path / "rocm", always, "rocm:gfx942")
    assert rocm.verdict.risk == "higher"
    assert "warp-mask-32bit" in raised(rocm)
    # An if() that tests something else (the CMake version) leaves CUDA required.
    versioned = {
        **OT,
        "CMakeLists.txt": "if(CMAKE_VERSION VERSION_GREATER 3.18)\n  enable_language(CUDA)\nendif()\n",
    }
    assert audit_files(tmp_path / "versioned", versioned, "xpu").verdict.risk == "higher"
    # So does a torch CUDAExtension beside the CMake build: it compiles the sources itself.
    setup = (
        "from torch.utils.cpp_extension import CUDAExtension\n"
        "ext = CUDAExtension('ot._C', ['optimized_transducer/csrc/kernels.cu'])\n"
    )
    extension = {**OT, "setup.py": setup}
    assert audit_files(tmp_path / "extension", extension, "xpu").verdict.risk == "higher"


# matgl 4.1.2: METADATA's requirements (warp comes only with the `ops` extra's nvalchemi-toolkit-ops).
MATGL_METADATA = (
    "Metadata-Version: 2.4\n"
    "Name: matgl\n"
    "Version: 4.1.2\n"
    "Requires-Dist: torch\n"
    "Requires-Dist: torch-geometric\n"
    "Provides-Extra: ops\n"
    'Requires-Dist: nvalchemi-toolkit-ops; extra == "ops"\n'
    "\n"
)
# matgl/ops/__init__.py:30-43 (the exports shortened).
MATGL_OPS = (
    '"""Custom tensor operations with Warp kernel implementations."""\n'
    "\n"
    "from __future__ import annotations\n"
    "\n"
    "import warp as wp\n"
    "\n"
    "from .compose_tensor import fn_compose_tensor\n"
    "\n"
    "wp.init()\n"
)
MATGL_COMPOSE = "def fn_compose_tensor(x):\n    return x\n"
# matgl/layers/_embedding_warp.py:19, at its top.
MATGL_EMBEDDING_WARP = (
    "from matgl.ops import fn_compose_tensor\n\n\nclass TensorEmbedding:\n    op = fn_compose_tensor\n"
)
# matgl/models/_tensornet.py:37-44: the Warp path, taken when it imports.
MATGL_TENSORNET = (
    "import torch\n"
    "\n"
    "try:\n"
    "    from matgl.layers._embedding_warp import TensorEmbedding as TensorEmbeddingWarp\n"
    "    from matgl.ops import fn_compose_tensor\n"
    "\n"
    "    _warp_available = True\n"
    "except ImportError:\n"
    "    _warp_available = False\n"
    "\n"
    "\n"
    "def run(model: torch.nn.Module, x: torch.Tensor, device: str) -> torch.Tensor:\n"
    "    return model.to(device)(x.to(device))\n"
)
MATGL = {
    "matgl-4.1.2.dist-info/METADATA": MATGL_METADATA,
    "matgl/__init__.py": "",
    "matgl/ops/__init__.py": MATGL_OPS,
    "matgl/ops/compose_tensor.py": MATGL_COMPOSE,
    "matgl/layers/__init__.py": "",
    "matgl/layers/_embedding_warp.py": MATGL_EMBEDDING_WARP,
    "matgl/models/__init__.py": "from matgl.models._tensornet import run\n",
    "matgl/models/_tensornet.py": MATGL_TENSORNET,
}


def test_a_package_loaded_only_through_guarded_imports_is_an_optional_path(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu"):
        report = audit_files(tmp_path / target, MATGL, target)
        assert report.verdict.risk == "lower", target
        assert "cuda-only-import" not in raised(report)


def test_the_same_package_imported_at_a_module_top_stays_required(tmp_path: Path) -> None:
    # The twin: the models import the Warp path unguarded, so the package loads with them.
    eager = {
        **MATGL,
        "matgl/models/_tensornet.py": "from matgl.ops import fn_compose_tensor\n" + MATGL_TENSORNET,
    }
    report = audit_files(tmp_path, eager, "xpu")
    assert report.verdict.risk == "higher"
    assert "cuda-only-import" in raised(report)


# torch-sparse 0.6.18: torch_sparse/testing.py:17-21, the devices its tests run on.
SPARSE_TESTING = (
    "import torch\n"
    "\n"
    "devices = [torch.device('cpu')]\n"
    "if torch.cuda.is_available():\n"
    "    devices += [torch.device('cuda:0')]\n"
    "if torch.backends.mps.is_available():\n"
    "    devices += [torch.device('mps')]\n"
)


def test_a_packages_testing_module_is_test_code() -> None:
    assert role_of("torch_sparse/testing.py") == "tests"
    assert role_of("torchani/_testing.py") == "tests"
    # The twin: a module about something else keeps its role.
    assert role_of("torch_sparse/tensor.py") == "core"


def test_its_device_list_is_no_path_for_the_target(tmp_path: Path) -> None:
    kernel = "__global__ void spmm(float *out) { out[threadIdx.x] = 0.f; }\n"
    files = {"torch_sparse/testing.py": SPARSE_TESTING, "csrc/cuda/spmm_cuda.cu": kernel}
    report = audit_files(tmp_path / "testing", files, "mps")
    assert not report.verdict.supported
    # The twin: the same device list in a core module is the project's own MPS path.
    core = {"torch_sparse/devices.py": SPARSE_TESTING, "csrc/cuda/spmm_cuda.cu": kernel}
    assert audit_files(tmp_path / "core", core, "mps").verdict.supported


# replay-rec 0.22.0: replay_rec-0.22.0.dist-info/METADATA:17-35 (the spark extra and the core shortened).
REPLAY_METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: replay-rec\n"
    "Version: 0.22.0\n"
    "Provides-Extra: spark\n"
    "Provides-Extra: torch\n"
    'Requires-Dist: lightning (<3.0.0) ; extra == "torch"\n'
    "Requires-Dist: numpy (>=1.20.0,<2.5.0)\n"
    'Requires-Dist: pyspark (>=3.0,<5) ; extra == "spark"\n'
    'Requires-Dist: pytorch-optimizer (>=3.8.0,<4) ; extra == "torch"\n'
    'Requires-Dist: torch (>=1.8,<3.0.0) ; extra == "torch"\n'
    "\n"
)
# replay/data/nn/parquet/parquet_module.py:5-7.
REPLAY_MODULE = (
    "import lightning as L  # noqa: N812\n"
    "import torch\n"
    "\n"
    "\n"
    "class ParquetModule(L.LightningDataModule):\n"
    "    pass\n"
)
REPLAY = {
    "replay_rec-0.22.0.dist-info/METADATA": REPLAY_METADATA,
    "replay/__init__.py": "",
    "replay/data/nn/parquet/parquet_module.py": REPLAY_MODULE,
}


def test_what_the_torch_extra_installs_beside_torch_is_the_torch_path(tmp_path: Path) -> None:
    report = audit_files(tmp_path, REPLAY, "xpu")
    assert report.verdict.risk == "moderate"
    assert "framework-import" in raised(report)


def test_an_extra_without_torch_or_a_catch_all_stays_optional(tmp_path: Path) -> None:
    # The twin: Lightning in an extra of its own, torch in another: an option of the torch path.
    own = {
        **REPLAY,
        "replay_rec-0.22.0.dist-info/METADATA": REPLAY_METADATA.replace(
            'lightning (<3.0.0) ; extra == "torch"', 'lightning (<3.0.0) ; extra == "lightning"'
        ),
    }
    assert audit_files(tmp_path / "own", own, "xpu").verdict.risk == "lower"
    # A catch-all extra that also lists torch does not make its other packages the torch path.
    catch_all = {
        **REPLAY,
        "replay_rec-0.22.0.dist-info/METADATA": REPLAY_METADATA.replace('extra == "torch"', 'extra == "all"'),
    }
    assert audit_files(tmp_path / "all", catch_all, "xpu").verdict.risk == "lower"


# nequip-allegro 0.8.3: allegro/nn/_strided/_flashallegro.py:1-6.
ALLEGRO_FLASH = (
    "import torch\n"
    "\n"
    "from torch.library import triton_op, wrap_triton\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "class TritonContracter(torch.nn.Module):\n"
    "    pass\n"
)
# allegro/nn/_strided/_contract.py:245, inside the accelerator modifier.
ALLEGRO_CONTRACT = (
    "import torch\n"
    "\n"
    "\n"
    "def enable_TritonContracter(model):\n"
    "    from ._flashallegro import TritonContracter\n"
    "\n"
    "    return TritonContracter()\n"
)
# allegro/utils/autotune_triton.py:17 and :361-364, a benchmark run as a script.
ALLEGRO_AUTOTUNE = (
    "import torch\n"
    "from allegro.nn._strided._flashallegro import TritonContracter\n"
    "\n"
    "\n"
    "def bench(contracter):\n"
    "    return contracter\n"
    "\n"
    "\n"
    'if __name__ == "__main__":\n'
    "    import argparse\n"
    "\n"
    '    parser = argparse.ArgumentParser(description="Autotune TritonContracter")\n'
)
ALLEGRO = {
    # nequip_allegro-0.8.3.dist-info/METADATA:2-3 and :33: triton is not required.
    "nequip_allegro-0.8.3.dist-info/METADATA": (
        "Metadata-Version: 2.4\nName: nequip-allegro\nVersion: 0.8.3\nRequires-Dist: nequip>=0.18.0\n\n"
    ),
    "allegro/__init__.py": "",
    "allegro/nn/__init__.py": "",
    "allegro/nn/_strided/__init__.py": "from ._contract import enable_TritonContracter\n",
    "allegro/nn/_strided/_contract.py": ALLEGRO_CONTRACT,
    "allegro/nn/_strided/_flashallegro.py": ALLEGRO_FLASH,
    "allegro/utils/__init__.py": "",
    "allegro/utils/autotune_triton.py": ALLEGRO_AUTOTUNE,
}


def test_a_script_nothing_imports_does_not_load_what_it_imports(tmp_path: Path) -> None:
    report = audit_files(tmp_path, ALLEGRO, "mps")
    assert report.verdict.risk != "higher"
    assert "cuda-only-import" not in raised(report)


def test_the_same_import_in_a_module_the_package_loads_stays_required(tmp_path: Path) -> None:
    # The twin: without the __main__ block the benchmark is a module like any other, never known unloaded.
    library = {**ALLEGRO, "allegro/utils/autotune_triton.py": ALLEGRO_AUTOTUNE.split("if __name__")[0]}
    library["allegro/utils/__init__.py"] = "from .autotune_triton import bench\n"
    report = audit_files(tmp_path, library, "mps")
    assert report.verdict.risk == "higher"
    assert "cuda-only-import" in raised(report)


# gliclass 0.1.21: gliclass/pipeline.py:209-215.
GLICLASS = (
    "import torch\n"
    "\n"
    "\n"
    "class ZeroShotClassificationPipeline:\n"
    "    def __init__(self, model, device='cuda:0'):\n"
    "        if not isinstance(device, torch.device):\n"
    '            if torch.cuda.is_available() and "cuda" in device:\n'
    "                self.device = torch.device(device)\n"
    "            else:\n"
    '                self.device = torch.device("cpu")\n'
    "        else:\n"
    "            self.device = device\n"
    "        self.model = model.to(self.device)\n"
)
# neuraloperator 2.0.0: neuralop/training/trainer.py:83-91, the autocast device type beside the device.
NEURALOP = (
    "import torch\n"
    "\n"
    "\n"
    "class Trainer:\n"
    "    def __init__(self, model, device='cuda'):\n"
    "        self.device = device\n"
    "        if isinstance(self.device, torch.device):\n"
    "            self.autocast_device_type = self.device.type\n"
    "        else:\n"
    '            if "cuda" in self.device:\n'
    '                self.autocast_device_type = "cuda"\n'
    "            else:\n"
    '                self.autocast_device_type = "cpu"\n'
    "        self.model = model.to(self.device)\n"
)


def test_a_device_kept_only_when_it_names_cuda_is_a_discard(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        report = audit_files(tmp_path / target, {"gliclass/pipeline.py": GLICLASS}, target)
        assert report.verdict.risk == "moderate", target
        assert "device-choices" in raised(report)


def test_a_device_type_mapped_from_a_cuda_string_is_no_discard(tmp_path: Path) -> None:
    # The twin: the Trainer keeps the caller's device; only autocast's device type is derived.
    report = audit_files(tmp_path, {"neuralop/training/trainer.py": NEURALOP}, "xpu")
    assert "device-choices" not in raised(report)


# revlib 1.7.2: revlib/core.py:244-246, and :307-308 where the flag guards the CUDA RNG states.
REVLIB = (
    "import torch\n"
    "\n"
    "\n"
    "class _ReversibleHalfResidualSwapFn:\n"
    "    def __init__(self):\n"
    "        self.cuda_devices = []\n"
    "        self.cuda: bool = torch.cuda._initialized\n"
    "        self.autocast: bool = torch.is_autocast_enabled()\n"
    "\n"
    "    def forward(self, *inp):\n"
    "        if self.cuda:\n"
    "            self.cuda_devices, self.cuda_states = torch.utils.checkpoint.get_device_states(*inp)\n"
    "        return inp\n"
)


def test_the_cuda_initialized_flag_is_no_call(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        report = audit_files(tmp_path / target, {"revlib/core.py": REVLIB}, target)
        assert report.verdict.risk == "lower", target
        assert "torch-cuda-api" not in raised(report)


def test_a_cuda_call_beside_it_still_raises(tmp_path: Path) -> None:
    # The twin: asking for the current CUDA device raises off CUDA.
    called = REVLIB.replace("torch.cuda._initialized", "torch.cuda.current_device() >= 0")
    report = audit_files(tmp_path, {"revlib/core.py": called}, "xpu")
    assert "torch-cuda-api" in raised(report)


# dualcodec 0.4.2: dualcodec/infer/dualcodec/inference_with_semantic.py:92-105 (the docstring shortened).
DUALCODEC_INFERENCE = (
    "import warnings\n"
    "\n"
    "import torch\n"
    "\n"
    "\n"
    "class Inference:\n"
    "    def __init__(self, dualcodec_path, device='cuda', autocast=True):\n"
    '        """- device: str, device to run the model"""\n'
    "        if not torch.cuda.is_available():\n"
    '            warnings.warn("CUDA is not available, running on CPU.")\n'
    '            device = "cpu"\n'
    "        self.model = torch.load(dualcodec_path).to(device)\n"
)
# dualcodec/utils/utils_infer.py:45-52: the TTS helpers' own pick, which names xpu and mps.
DUALCODEC_UTILS = (
    "import torch\n"
    "\n"
    "device = (\n"
    '    "cuda"\n'
    "    if torch.cuda.is_available()\n"
    "    else (\n"
    '        "xpu"\n'
    "        if torch.xpu.is_available()\n"
    '        else "mps" if torch.backends.mps.is_available() else "cpu"\n'
    "    )\n"
    ")\n"
)
DUALCODEC = {
    "dualcodec/infer/dualcodec/inference_with_semantic.py": DUALCODEC_INFERENCE,
    "dualcodec/utils/utils_infer.py": DUALCODEC_UTILS,
}


def test_a_callers_device_reset_without_cuda_outweighs_a_device_name_elsewhere(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        report = audit_files(tmp_path / target, DUALCODEC, target)
        assert report.verdict.risk == "moderate", target
        assert "device-choices" in raised(report)
        assert report.verdict.reasons[0].startswith("a code path, but a device setting replaces it")


def test_a_local_device_reset_without_cuda_is_a_selection(tmp_path: Path) -> None:
    # The twin: `device` is no parameter but set to "cuda" just before: a cuda-or-cpu pick, not a discard.
    local = DUALCODEC_INFERENCE.replace(
        "dualcodec_path, device='cuda', autocast=True", "dualcodec_path, autocast=True"
    ).replace("        if not torch.cuda", "        device = 'cuda'\n        if not torch.cuda")
    report = audit_files(tmp_path, {"dualcodec/infer/dualcodec/inference_with_semantic.py": local}, "xpu")
    assert "device-choices" not in raised(report)


# clip-server 0.8.3: setup.py:43-48.
CLIP_SERVER_SETUP = (
    "install_requires=[\n"
    "    'ftfy',\n"
    "    'torch',\n"
    "    'regex',\n"
    "    'torchvision<=0.13.0' if sys.version_info <= (3, 7, 2) else 'torchvision',\n"
    "    'jina>=3.12.0',\n"
)


def test_a_cap_for_old_pythons_only_is_no_pin() -> None:
    assert list(torch_pins("setup.py", CLIP_SERVER_SETUP)) == []
    # The twin: the same cap for every Python.
    always = CLIP_SERVER_SETUP.replace(" if sys.version_info <= (3, 7, 2) else 'torchvision'", "")
    assert [s.subject for s in torch_pins("setup.py", always)] == ["torchvision<=0.13.0"]


# flash-sparse-attn 2.0.6: flash_sparse_attn/ops/triton/activations.py:1-29 (the docstring left out).
FSA_ACTIVATIONS = (
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def exp2(x):\n"
    "    if tl.target_info.is_cuda():\n"
    "        return tl.inline_asm_elementwise(\n"
    '            "ex2.approx.ftz.f32 $0, $1;",\n'
    '            "=r, r",\n'
    "            [x],\n"
    "            dtype=tl.float32,\n"
    "            is_pure=True,\n"
    "            pack=1,\n"
    "        )\n"
    "    else:\n"
    "        return tl.exp2(x)\n"
)


def test_triton_ptx_under_a_cuda_target_test_is_not_in_the_rocm_kernel(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"fsa/ops/triton/activations.py": FSA_ACTIVATIONS}, "rocm:gfx942")
    assert "inline-ptx" not in raised(report)
    assert report.verdict.risk == "lower"


def test_the_same_ptx_without_the_test_is_in_it(tmp_path: Path) -> None:
    # The twin: the PTX on every backend.
    bare = FSA_ACTIVATIONS.replace("    if tl.target_info.is_cuda():\n", "    if True:\n")
    report = audit_files(tmp_path, {"fsa/ops/triton/activations.py": bare}, "rocm:gfx942")
    assert "inline-ptx" in raised(report)
