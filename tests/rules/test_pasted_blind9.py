"""Readers and rules fixed after blind batch 9: each test is a real excerpt from the thread it names."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.importers import markup_lines
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

A1111_SYSINFO = """{
    "Platform": "Linux-6.6.13-200.fc39.x86_64-x86_64-with-glibc2.38",
    "Python": "3.10.13",
    "Commandline": [
        "launch.py"
    ],
    "Torch env info": {
        "torch_version": "2.1.2+rocm5.6",
        "is_debug_build": "False",
        "cuda_compiled_version": "N/A",
        "is_cuda_available": "True",
        "cuda_runtime_version": null,
        "nvidia_driver_version": null,
        "nvidia_gpu_models": "AMD Radeon RX 6900 XT",
        "cudnn_version": null,
"""


def test_a1111_sysinfo_json_is_read_as_collect_env_fields() -> None:
    """ModelSurge/sd-webui-comfyui#209: A1111's sysinfo holds torch's collect_env as JSON members; it was
    refused. The GPU named in 'nvidia_gpu_models' is an AMD one, so it is no NVIDIA device."""
    snapshot = snapshot_of(A1111_SYSINFO)
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    torch = snapshot.frameworks.torch
    assert (torch.version, torch.hip, torch.cuda) == ("2.1.2+rocm5.6", "5.6", None)
    assert torch.available is not None
    assert torch.available.cuda is True
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is None
    amd = snapshot.accelerators.amd
    assert amd is not None
    assert amd.devices is not None
    assert [d.name for d in amd.devices] == ["AMD Radeon RX 6900 XT"]
    assert findings_of(A1111_SYSINFO) == set()


def test_a_cuda_build_in_the_same_json_on_that_amd_gpu_is_a_vendor_mismatch() -> None:
    """The same sysinfo with a cu121 torch: the AMD GPU read from the JSON lets the vendor check fire."""
    text = A1111_SYSINFO.replace("2.1.2+rocm5.6", "2.1.2+cu121").replace(
        '"is_cuda_available": "True"', '"is_cuda_available": "False"'
    )
    assert findings_of(text) == {("build-vendor-mismatch", "error")}


_IN1, _IN2 = "&nbsp; " * 4, "&nbsp; " * 8
"""The page's indents, as pasted (``&nbsp;`` entities)."""
HTML_ESCAPED_XML = (
    "***@***.***:/mnt/d/openclaw/1Panel-dev-v2# nvidia-smi -q -x\n"
    '<?xml version="1.0" ?&gt;\n'
    '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd"&gt;\n'
    "<nvidia_smi_log&gt;\n"
    f"{_IN1}<timestamp&gt;Tue Feb 17 22:43:40 2026</timestamp&gt;\n"
    f"{_IN1}<driver_version&gt;591.74</driver_version&gt;\n"
    f"{_IN1}<cuda_version&gt;13.1</cuda_version&gt;\n"
    f"{_IN1}<attached_gpus&gt;1</attached_gpus&gt;\n"
    f'{_IN1}<gpu id="00000000:01:00.0"&gt;\n'
    f"{_IN2}<product_name&gt;NVIDIA GeForce RTX 4090</product_name&gt;\n"
    f"{_IN2}<product_brand&gt;GeForce</product_brand&gt;\n"
)


def test_an_html_escaped_cut_nvidia_smi_xml_gives_its_driver_and_gpu() -> None:
    """1Panel-dev/1Panel#11910: `nvidia-smi -q -x` copied from a web page (``&gt;``, ``&nbsp;``) and cut
    before ``</nvidia_smi_log>``: the whole-document parser never sees it, and it was refused."""
    snapshot = snapshot_of(HTML_ESCAPED_XML)
    assert snapshot.accelerators is not None
    nvidia = snapshot.accelerators.nvidia
    assert nvidia is not None
    assert nvidia.devices is not None
    assert nvidia.driver_version == "591.74"
    assert [d.name for d in nvidia.devices] == ["NVIDIA GeForce RTX 4090"]
    assert findings_of(HTML_ESCAPED_XML) == set()


def test_markup_lines_rewrite_only_leaf_members_and_elements() -> None:
    assert markup_lines.as_key_value('"torch_version": "2.1.2+rocm5.6",') == "torch version: 2.1.2+rocm5.6"
    assert markup_lines.as_key_value("<driver_version>390.157</driver_version>") == "driver version: 390.157"
    assert markup_lines.as_key_value('"nvidia_driver_version": null,') is None
    assert markup_lines.as_key_value('"Torch env info": {') is None
    assert markup_lines.as_key_value('<gpu id="00000000:01:00.0">') is None
    assert markup_lines.as_key_value("<a>1</b>") is None  # not one element
    assert markup_lines.unescape("&lt;x&gt;&amp;&nbsp;") == "<x>&"
    assert markup_lines.unescape("R&D: a&b") == "R&D: a&b"  # no entity: left alone


COMFYUI_DOCKER = (
    "I've been running the rocm7 image on an AMD APU (gfx1150, Radeon 890M) for a couple of months without "
    "any trouble, but after the rocm7-20260601 build the container started crash-looping on startup. The "
    "traceback ends in comfy/model_management.py calling torch.cuda.current_device(), which then raises "
    "`RuntimeError: Found no NVIDIA driver on your system` — a confusing thing to see on an AMD box.\n\n"
    "It turns out the torch that ships in that image is a CUDA build rather than a ROCm one. Inside the "
    'container, `python -c "import torch; print(torch.__version__, torch.version.hip)"` prints '
    "`2.12.0+cu130` and `None`. The previous snapshot rocm7-20260521 has `2.9.1+rocm7.2.3` with hip set "
    "to 7.2.x and runs fine on the exact same hardware.\n"
)


def test_a_cuda_torch_on_an_amd_apu_named_in_prose_is_the_vendor_not_the_driver() -> None:
    """YanWenKun/ComfyUI-Docker#187: the torch version told in a sentence ("prints `2.12.0+cu130`"), the
    AMD GPU by its gfx target beside "AMD APU"; torch's "Found no NVIDIA driver" is the symptom of the
    wrong-vendor build, so installing an NVIDIA driver is not what the report is told."""
    snapshot = snapshot_of(COMFYUI_DOCKER)
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    assert snapshot.frameworks.torch.version == "2.12.0+cu130"
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.amd is not None
    assert snapshot.accelerators.amd.devices is not None
    assert [d.gfx_target for d in snapshot.accelerators.amd.devices] == ["gfx1150"]
    assert "no-nvidia-driver" in kinds_of(COMFYUI_DOCKER)
    assert findings_of(COMFYUI_DOCKER) == {("build-vendor-mismatch", "error")}


def test_found_no_nvidia_driver_without_an_amd_gpu_still_says_no_driver() -> None:
    """The same torch line with no AMD GPU in the text: the no-driver finding stands."""
    text = "RuntimeError: Found no NVIDIA driver on your system\ntorch.__version__ prints 2.12.0+cu130\n"
    assert findings_of(text) == {("nvidia-driver-not-found", "error")}


def test_a_gfx_target_alone_is_not_an_amd_gpu() -> None:
    """A gfx token with no AMD word beside it ("built for gfx1100" in a changelog line) names no GPU."""
    snapshot = snapshot_of("torch 2.4.0+cu121\nthe kernel is built for gfx1100 only\n")
    assert snapshot.accelerators is None or snapshot.accelerators.amd is None


CONTAINER_CLI_WITH_HOST_SMI = """```
sudo docker run --rm -it --gpus=all nvcr.io/nvidia/k8s/cuda-sample:nbody nbody -gpu -benchmark
docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create \
failed: unable to start container process: error during container init: error running hook #0: error \
running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared \
object file: no such file or directory: unknown.
```

The output of nvidia-smi is the following:

```
Wed Oct 25 16:30:24 2023
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 530.30.02              Driver Version: 530.30.02    CUDA Version: 12.1     |
|-----------------------------------------+----------------------+----------------------+
"""


def test_container_cli_without_nvml_is_no_missing_driver_where_nvidia_smi_answers() -> None:
    """NVIDIA/nvidia-docker#1711: nvidia-smi loads libnvidia-ml itself, so with its header in the same
    paste the driver is installed; the hook's failure is the container runtime's lookup."""
    assert kinds_of(CONTAINER_CLI_WITH_HOST_SMI) == ["no-nvidia-driver"]
    assert findings_of(CONTAINER_CLI_WITH_HOST_SMI) == set()
    alone = CONTAINER_CLI_WITH_HOST_SMI.split("The output of nvidia-smi")[0]
    assert findings_of(alone) == {("nvidia-driver-not-found", "error")}


DIFFDOCK_CONDA_GREP = """\
(diffdock_yml) zhangjie@zhangjie-OptiPlex-5080:~/7exp/DiffDock$ conda list | grep torch
ffmpeg                    4.3                  hf484d3e_0    pytorch
pytorch                   1.12.1          py3.9_cuda11.3_cudnn8.3.2_0    pytorch
pytorch-cuda              11.7                 h778d358_5    pytorch
pytorch-lightning         2.0.2                    pypi_0    pypi
pytorch-mutex             1.0                        cuda    pytorch
torch-cluster             1.6.1+pt113cu117          pypi_0    pypi
torch-geometric           2.1.0.post1              pypi_0    pypi
torch-scatter             2.1.1+pt113cu117          pypi_0    pypi
torch-sparse              0.6.17+pt113cu117          pypi_0    pypi
torch-spline-conv         1.2.2+pt113cu117          pypi_0    pypi
torchaudio                0.12.1               py39_cu113    pytorch
torchvision               0.13.1               py39_cu113    pytorch
"""


def test_a_grepped_conda_list_keeps_pytorchs_build_and_pyg_wheels_for_another_torch_are_named() -> None:
    """gcorso/DiffDock#121: `conda list | grep torch` has no header; it was read as a pip list, losing the
    build column that says pytorch's CUDA. PyG's wheels tagged +pt113cu117 are for torch 1.13."""
    snapshot = snapshot_of(DIFFDOCK_CONDA_GREP)
    assert snapshot.meta.origin is not None
    assert "conda list" in (snapshot.meta.origin.sections or ())
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    assert (snapshot.frameworks.torch.version, snapshot.frameworks.torch.cuda) == ("1.12.1", "11.3")
    assert findings_of(DIFFDOCK_CONDA_GREP) == {("companion-version-mismatch", "error")}


def test_pyg_wheels_of_the_installed_torch_are_fine() -> None:
    text = DIFFDOCK_CONDA_GREP.replace("pt113cu117", "pt112cu113")
    assert findings_of(text) == set()


def test_vllms_different_devices_warning_names_the_gpus() -> None:
    """noonghunna/club-3090#107: a vLLM log whose only GPU facts are its mixed-devices warning (refused)."""
    text = (
        "WARNING 05-09 04:42:55 [cuda.py:803] Detected different devices in the system: NVIDIA RTX A5000, "
        "NVIDIA GeForce RTX 3090. Please make sure to set `CUDA_DEVICE_ORDER=PCI_BUS_ID` to avoid "
        "unexpected behavior.\n"
    )
    snapshot = snapshot_of(text)
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is not None
    devices = snapshot.accelerators.nvidia.devices or ()
    assert [d.name for d in devices] == ["NVIDIA RTX A5000", "NVIDIA GeForce RTX 3090"]
    assert findings_of(text) == set()


def test_tegrastats_says_a_jetson_gpu_is_there() -> None:
    """microsoft/onnxruntime#3240: tegrastats samples from a TX2 (refused before)."""
    text = (
        "RAM 311/7852MB (lfb 1809x4MB) SWAP 0/3926MB (cached 0MB) CPU [0%@345,off,off,0%@345,0%@345,0%@345] "
        "EMC_FREQ 2%@1331 GR3D_FREQ 0%@114 APE 150 PLL@40.5C MCPU@40.5C PMIC@100C Tboard@37C GPU@38.5C\n"
    )
    snapshot = snapshot_of(text)
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is not None
    assert findings_of(text) == set()


def test_aligned_key_then_colon_reads_the_value_not_the_colon() -> None:
    """NVIDIA/cudnn-frontend#400's report aligns 'Driver version       : 595.71.05': the value began with
    ': ', so the driver was not read and the OS name kept the colon."""
    text = (
        "Platform          : Linux-5.15.0-133-generic-x86_64-with-glibc2.35\n"
        "Driver version       : 595.71.05\n"
        "GPU 0 (CUDA order)   : NVIDIA L40S | SM89 | 142 SMs | 44.4 GiB\n"
    )
    snapshot = snapshot_of(text)
    assert snapshot.host is not None
    assert snapshot.host.os_name == "Linux-5.15.0-133-generic-x86_64-with-glibc2.35"
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is not None
    assert snapshot.accelerators.nvidia.driver_version == "595.71.05"


def test_an_app_log_with_only_the_version_takes_the_build_from_its_rocm_tag() -> None:
    """patientx-cfz/comfyui-rocm#119 (TheRock nightly): 'pytorch version:' ran on into the next line and
    its '+rocm10.1.0a2026...' tag was not read, so with the AMD GPU now known it looked CPU-only."""
    text = (
        "[INFO] pytorch version: 2.15.0a0+rocm10.1.0a20260908\n[INFO] AMD arch: gfx1030\n"
        "[INFO] ROCm version: (7, 16)\n[INFO] Device: cuda:0 AMD Radeon RX 6800 XT : native\n"
    )
    snapshot = snapshot_of(text)
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    assert snapshot.frameworks.torch.hip == "10.1.0"
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.amd is not None
    devices = snapshot.accelerators.amd.devices or ()
    assert [(d.name, d.gfx_target) for d in devices] == [("AMD Radeon RX 6800 XT", "gfx1030")]
    assert findings_of(text) == set()


def test_a_jaxlib_cuda_wheel_of_jaxs_own_release_is_no_mismatch() -> None:
    """jax-ml/jax#20722 (checked after the fixes, blind): 'jaxlib 0.4.26+cuda12.cudnn89' beside 'jax
    0.4.26' was called newer than jax, because PEP 440 sorts a local tag above its release; jax compares
    releases."""
    text = (
        "```\njax                          0.4.26\njaxlib                       0.4.26+cuda12.cudnn89\n```\n"
    )
    assert findings_of(text) == set()
    newer = text.replace("jaxlib                       0.4.26", "jaxlib                       0.4.27")
    assert findings_of(newer) == {("jax-plugin-version-mismatch", "error")}


def test_a_package_version_told_in_a_sentence_is_read() -> None:
    """jax-ml/jax#31615 (checked after the fixes, blind): 'When using `jax` version `0.7.1`' and an XLA
    warning were all the paste said; it was refused."""
    text = (
        "When using `jax` version `0.7.1`\n"
        "W external/xla/xla/service/gpu/model/gpu_collective_performance_model.cc:410] "
        "/lib64/libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetGpuFabricInfoV\n"
    )
    snapshot = snapshot_of(text)
    assert [(p.name, p.version) for p in snapshot.packages or ()] == [("jax", "0.7.1")]
    assert findings_of(text) == set()
    with pytest.raises(BadInput):  # a name envsnap does not know states nothing: still refused
        snapshot_of("the totally unknown version 1.2.3 of a thing\n")
