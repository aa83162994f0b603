"""Readers and checks fixed after blind batch 19 (error-first reports): each test is a real excerpt from the
thread it names, with its limits (what must still not be read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

COMPANION = ("companion-version-mismatch", "error")
DRIVER_OLD = ("driver-too-old-for-cuda-build", "error")
ARCH = ("arch-not-in-build", "error")


# ------------------------------------------------------- torch's "CUDA out of memory. Tried to allocate"

OOM_OLD = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.69 GiB (GPU 0; 14.56 GiB total "
    "capacity; 649.97 MiB already allocated; 1.31 GiB free; 1.01 GiB reserved in total by PyTorch) "
    "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
    "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n"
    "Mesh saved to: /home/joni/joni/test/One-2-3-45/exp/00_zero123_lysol/mesh.ply\n"
)
"""One-2-3-45/One-2-3-45#25: the wording before torch 2.1."""

OOM_CAPACTY = (
    "    return torch.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a total capacty "
    "of 12.00 GiB of which 9.02 GiB is free. Of the allocated memory 984.52 MiB is allocated by PyTorch, and "
    "463.48 MiB is reserved by PyTorch but unallocated.\n"
)
"""wxian3/NeuroLens#2: torch 2.1's wording, with its own typo ("capacty")."""

OOM_PLAIN = (
    "RuntimeError: CUDA out of memory. Tried to allocate 1006.00 MiB (GPU 0; 10.91 GiB total capacity; "
    "9.18 GiB already allocated; 569.81 MiB free; 9.49 GiB reserved in total by PyTorch)\n"
)
"""open-mmlab/mmsegmentation#944: the whole issue is this line."""


@pytest.mark.parametrize("text", [OOM_OLD, OOM_CAPACTY, OOM_PLAIN], ids=["old", "capacty", "plain"])
def test_an_out_of_memory_line_is_read_and_is_no_fault(text: str) -> None:
    assert "cuda-out-of-memory" in kinds_of(text)
    snapshot_of(text)  # read, not refused (it was before)
    assert findings_of(text) == set()


def test_the_hip_wording_of_the_same_allocator_is_read() -> None:
    text = (
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.98 GiB of which 1.02 GiB is free.\n"
    )
    assert "cuda-out-of-memory" in kinds_of(text)
    assert findings_of(text) == set()


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: CUDA error: out of memory\n",
        "the job ran out of memory. Tried to allocate more, same thing\n",
        "CUDA out of memory. Tried to allocate some memory\n",
    ],
    ids=["cuda-error", "prose", "no-size"],
)
def test_other_out_of_memory_words_are_not_the_allocators_line(text: str) -> None:
    assert "cuda-out-of-memory" not in kinds_of(text)


def test_mps_out_of_memory_keeps_its_own_kind() -> None:
    text = "RuntimeError: MPS backend out of memory (MPS allocated: 18.13 GB, other allocations: 1.2 GB)\n"
    assert kinds_of(text) == ["mps-out-of-memory"]


def test_out_of_memory_beside_a_driver_too_old_line_keeps_the_cause() -> None:
    text = OOM_PLAIN + (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 10010). Please update your "
        "GPU driver\n"
    )
    assert DRIVER_OLD in findings_of(text)


# ------------------------------------------------------------------ NCCL's "unhandled cuda error"

VLLM_RAY = """\
(RayWorkerWrapper pid=11305) ERROR 08-27 05:12:18 worker_base.py:382]     raise RuntimeError(f"NCCL error: \
{error_str}")
(RayWorkerWrapper pid=11305) ERROR 08-27 05:12:18 worker_base.py:382] RuntimeError: NCCL error: unhandled \
cuda error (run with NCCL_DEBUG=INFO for details)
(RayWorkerWrapper pid=11934) ERROR 08-27 05:12:18 worker_base.py:382] Error executing method init_device. \
This might cause deadlock in distributed execution. [repeated 6x across cluster]
"""
"""vllm-project/vllm#7896: vLLM's pynccl wording behind Ray's worker prefix (the paste was refused)."""

C10D = (
    "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled cuda error, "
    "NCCL version 2.7.8\nSetting OMP and MKL num threads to 1.\n"
)
"""pytorch/pytorch#62316: torch's c10d wording."""

NCCL_24 = "what(): NCCL Error 1: unhandled cuda error\n./run.sh\n"
"""TheAtticusProject/cuad#9: NCCL 2.4's own wording."""

RANKED = """\
[rank7]: torch.distributed.DistBackendError: NCCL error in: \
../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for \
details), NCCL version 2.20.5
[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.
[rank7]: Last error:
[rank7]: Cuda failure 1 'invalid argument'
"""
"""NVIDIA/nccl#1410: behind torchrun's rank prefix."""


@pytest.mark.parametrize(
    "text", [VLLM_RAY, C10D, NCCL_24, RANKED], ids=["vllm-ray", "c10d", "nccl-2.4", "ranked"]
)
def test_an_nccl_unhandled_cuda_error_is_read_and_is_no_version_fault(text: str) -> None:
    assert "nccl-cuda-error" in kinds_of(text)
    snapshot_of(text)
    assert findings_of(text) == set()


def test_nccl_unhandled_cuda_error_alone_in_its_own_name_is_read() -> None:
    assert "nccl-cuda-error" in kinds_of("ncclUnhandledCudaError: Call to CUDA function failed.\n")


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n",
        "NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.14.3\n",
        "my own code hit an unhandled cuda error somewhere\n",
    ],
    ids=["invalid-usage", "system-error", "prose"],
)
def test_other_nccl_errors_are_not_this_line(text: str) -> None:
    assert "nccl-cuda-error" not in kinds_of(text)


def test_a_paste_of_other_nccl_errors_alone_is_still_refused() -> None:
    with pytest.raises(BadInput):
        snapshot_of("RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n")


def test_an_nccl_error_beside_an_insufficient_driver_keeps_the_cause() -> None:
    text = C10D + "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
    assert DRIVER_OLD in findings_of(text)


# --------------------------------------------- xFormers' "built for" naming the installed torch

SAME_TAGGED = """\
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.6.0+cu118 with CUDA 1107 (you have 2.6.0+cu118)
    Python  3.10.17 (you have 3.10.17)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
xFormers 0.0.29
memory_efficient_attention.cutlassF-pt:            available
"""
"""facebookresearch/xformers#1250: xFormers names the torch that is installed."""

SAME_NIGHTLY = """\
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.5.0.dev20240615+cu124 with CUDA 1205 (you have 2.5.0.dev20240615+cu124)
    Python  3.10.14 (you have 3.10.14)
"""
"""facebookresearch/xformers#1057: a source build against the nightly in use."""

OTHER_TORCH = """\
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)
    Python  3.10.14 (you have 3.10.0)
"""
"""yangjianxin1/Firefly#258."""

OTHER_CUDA = """\
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)
    Python  3.10.13 (you have 3.10.12)
"""
"""ShivamShrirao/diffusers#251: the same release, another CUDA variant."""

UNTAGGED = """\
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.0.1 with CUDA 1106 (you have 2.0.1)
    Python  3.9.16 (you have 3.9.16)
"""
"""Vchitect/SEINE#21 (built-against part): on a Mac, the untagged version names no variant."""


@pytest.mark.parametrize("text", [SAME_TAGGED, SAME_NIGHTLY], ids=["release", "nightly"])
def test_xformers_built_for_the_installed_tagged_torch_is_no_mismatch(text: str) -> None:
    kinds = kinds_of(text)
    assert "xformers-extensions-not-loaded" in kinds
    assert "xformers-built-for" not in kinds
    assert COMPANION not in findings_of(text)
    snapshot_of(text)  # still read


@pytest.mark.parametrize(
    "text", [OTHER_TORCH, OTHER_CUDA, UNTAGGED], ids=["other-torch", "other-cuda", "untagged"]
)
def test_xformers_built_for_another_or_an_unnamed_variant_stays_a_mismatch(text: str) -> None:
    assert "xformers-built-for" in kinds_of(text)
    assert COMPANION in findings_of(text)


def test_the_versions_compare_whatever_their_case() -> None:
    text = SAME_TAGGED.replace("(you have 2.6.0+cu118)", "(you have 2.6.0+CU118)")
    assert "xformers-extensions-not-loaded" in kinds_of(text)


# ---------------------------------------------------- what the batch's error-first reports still give


def test_an_undefined_torch_symbol_in_flash_attn_is_still_a_companion_mismatch() -> None:
    """Dao-AILab/flash-attention#867: unchanged by this round, kept as a twin of the xFormers limit."""
    text = (
        "/.local/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined "
        "symbol: _ZN2at4_ops15sum_IntList_out4callERKNS_6TensorEN3c1016OptionalArrayRefIlEEbSt8optionalINS5_"
        "10ScalarTypeEERS2_\n"
    )
    assert COMPANION in findings_of(text)


def test_hip_invalid_device_function_beside_an_oom_line_is_still_the_arch() -> None:
    text = "HIP error: invalid device function\n" + OOM_PLAIN
    assert ARCH in findings_of(text)
