"""Readers and checks fixed after blind batch 20 (non-NVIDIA and mixed-vendor reports): each test is a real
excerpt from the thread it names, with its limits (what must still not be read) and twins (the same shape
said another way)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

ARCH = ("arch-not-in-build", "error")
VENDOR = ("build-vendor-mismatch", "error")
COMPANION = ("companion-version-mismatch", "error")
ROCM_GFX = ("rocm-gfx-unsupported", "warning")


# ------------------------------------------------ torch's "is not currently implemented for the MPS device"

MPS_OLD_WORDING = (
    "Without this set, this error message is encountered:\n\n```\n"
    "NotImplementedError: The operator 'aten::_index_put_impl_' is not current implemented for the MPS "
    "device. If you want this op to be added in priority during the prototype phase of this feature, please "
    "comment on https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the "
    "environment variable "
    "`PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower "
    "than running natively on MPS.\n```\n"
)
"""invoke-ai/InvokeAI#232: torch 1.12's wording ("not current implemented"), the whole paste."""

MPS_CURRENTLY = (
    "NotImplementedError: The operator 'aten::_slow_conv2d_forward' is not currently implemented for the MPS "
    "device. If you want this op to be added in priority during the prototype phase of this feature, please "
    "comment on https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the "
    "environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op.\n"
)
"""pytorch/pytorch#86195: the later wording."""


@pytest.mark.parametrize("text", [MPS_OLD_WORDING, MPS_CURRENTLY], ids=["current", "currently"])
def test_an_mps_op_not_implemented_line_is_read_and_is_no_fault(text: str) -> None:
    assert kinds_of(text) == ["mps-op-not-implemented"]
    snapshot_of(text)  # read, not refused (the InvokeAI paste was refused before)
    assert findings_of(text) == set()


def test_typographic_quotes_around_the_operator_are_read() -> None:
    text = (
        "The operator \u2018aten::upsample_bicubic2d.out\u2019 is not currently implemented for the MPS "
        "device.\n"
    )
    assert kinds_of(text) == ["mps-op-not-implemented"]


@pytest.mark.parametrize(
    "text",
    [
        "this op is not implemented on MPS yet, so I moved the model to the CPU\n",
        "The operator is not currently implemented for the MPS device\n",
        "The operator 'aten::foo' is not implemented for the CUDA device\n",
    ],
    ids=["prose", "no-operator", "other-device"],
)
def test_other_not_implemented_words_are_not_the_mps_line(text: str) -> None:
    assert "mps-op-not-implemented" not in kinds_of(text)


def test_a_paste_of_prose_about_mps_alone_is_still_refused() -> None:
    with pytest.raises(BadInput):
        snapshot_of("this op is not implemented on MPS yet, any idea?\n")


def test_the_fallback_warning_keeps_its_own_kind() -> None:
    text = (
        "UserWarning: The operator 'aten::nonzero' is not currently supported on the MPS backend and will "
        "fall back to run on the CPU. This may have performance implications.\n"
    )
    assert kinds_of(text) == ["mps-op-fallback"]


def test_an_mps_line_beside_an_xformers_mismatch_keeps_the_cause() -> None:
    text = MPS_CURRENTLY + (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.0.1)\n"
    )
    assert COMPANION in findings_of(text)


# ------------------------------------------- HIP's own error on a host whose report shows only NVIDIA GPUs

HIP_ON_NVIDIA = (
    "Python 3.8.5\n"
    "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    "/home/packetloss/easy-diffusion/scripts/on_sd_start.sh: строка 83:  3632 Emergency shutdown (memory "
    'stack is reset to disk) uvicorn main:server_api --app-dir "$SD_UI_PATH" --port "$ED_BIND_PORT" --host '
    '"$ED_BIND_IP" --log-level error\n'
    "Press any key to continue`\n\n"
    "Device: Laptop asus vivobook pro\n"
    "OS: ArchLinux\n"
    "GPU: Nvidia GeForce RTX 3050 Laptop GPU\n"
)
"""easydiffusion/easydiffusion#1477: the installer set up a ROCm torch on an NVIDIA laptop."""

HIP_ALONE = (
    '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
    ".../easy-diffusion/scripts/on_sd_start.sh: line 82: 65171 Aborted"
    "                 uvicorn main:server_api\n"
    " - OS: CachyOS\n"
)
"""easydiffusion/easydiffusion#1400: no GPU named."""

ROCMINFO_GFX1010 = (
    "Agent 2                  \n"
    "*******                  \n"
    "  Name:                    gfx1010                            \n"
    "  Uuid:                    GPU-XX                             \n"
    "  Marketing Name:          Navi 10 [Radeon RX 5600 OEM/5600 XT / 5700/5700 XT]\n"
    "  Vendor Name:             AMD                                \n"
    "  Feature:                 KERNEL_DISPATCH                    \n"
    "  Profile:                 BASE_PROFILE                       \n"
)
"""ROCm/hip#2187: the rocminfo agent pasted after the error."""


def test_hip_no_binary_on_an_nvidia_only_host_is_the_wrong_vendor_build() -> None:
    assert findings_of(HIP_ON_NVIDIA) == {VENDOR}


def test_the_invalid_device_function_wording_on_an_nvidia_host_is_the_same() -> None:
    text = "RuntimeError: HIP error: invalid device function\nGPU: NVIDIA GeForce RTX 4090\n"
    assert findings_of(text) == {VENDOR}


def test_hip_no_binary_alone_is_still_the_arch() -> None:
    assert findings_of(HIP_ALONE) == {ARCH}


def test_hip_no_binary_beside_an_amd_gpu_is_still_the_arch() -> None:
    text = (
        "/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:120: guarantee(false && "
        '"hipErrorNoBinaryForGpu: Coudn\'t find binary for current devices!")\n\n' + ROCMINFO_GFX1010
    )
    assert findings_of(text) == {ARCH, ROCM_GFX}


def test_hip_no_binary_on_a_host_with_both_vendors_is_not_called_the_wrong_vendor() -> None:
    text = HIP_ON_NVIDIA + ROCMINFO_GFX1010
    found = findings_of(text)
    assert VENDOR not in found
    assert ARCH in found


def test_a_hip_line_beside_a_cuda_torch_build_is_not_called_the_wrong_vendor() -> None:
    """The line then came from another interpreter than the torch listed: the vendor is not shown wrong."""
    text = HIP_ON_NVIDIA + "PyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\n"
    assert VENDOR not in findings_of(text)


def test_cudas_own_no_kernel_image_on_an_nvidia_host_stays_the_arch() -> None:
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "GPU: NVIDIA GeForce RTX 5090\n"
    )
    found = findings_of(text)
    assert ARCH in found
    assert VENDOR not in found


def test_rocblas_naming_a_gfx_target_on_an_nvidia_host_is_not_called_the_wrong_vendor() -> None:
    text = (
        "rocBLAS error: Cannot read TensileLibrary.dat: Illegal seek for GPU arch : gfx1032\n"
        "GPU: NVIDIA GeForce RTX 3060\n"
    )
    assert VENDOR not in findings_of(text)


def test_hip_wording_in_prose_without_the_error_is_not_read() -> None:
    assert "hip-invalid-device-function" not in kinds_of("is hip supported on my nvidia card?\n")
