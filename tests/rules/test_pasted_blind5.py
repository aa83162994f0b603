"""Readers and rules fixed after blind batch 5: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.importers import evidence, messages
from tests.rules.pasted import findings_of, snapshot_of


def test_llama_cpp_device_line_with_its_vmm_suffix_is_a_gpu() -> None:
    """ggml-org/llama.cpp#15609: since 2024 ggml ends the device line with ', VMM: yes'."""
    text = (
        "ggml_cuda_init: GGML_CUDA_FORCE_MMQ: no\n"
        "ggml_cuda_init: found 1 CUDA devices:\n"
        "Device 0: Quadro P2000, compute capability 6.1, VMM: yes\n"
    )
    snapshot = snapshot_of(text)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.devices is not None
    assert [(d.name, d.compute_capability) for d in nvidia.devices] == [("Quadro P2000", "6.1")]
    assert findings_of(text) == set()


def test_paddles_device_note_states_the_capability_and_the_drivers_cuda() -> None:
    """PaddlePaddle/models#5360 (Paddle 2.1) and Paddle#17217 (Paddle 1.4 printed 'CUDA Capability: 70')."""
    new = (
        "W1023 17:00:07.024209  6741 device_context.cc:404] Please NOTE: device: 0, GPU Compute Capability: "
        "6.1, Driver API Version: 10.1, Runtime API Version: 10.1"
    )
    old = (
        "W0511 23:02:20.682183 24883 device_context.cc:261] Please NOTE: device: 0, CUDA Capability: 70, "
        "Driver API Version: 10.0, Runtime API Version: 9.0"
    )
    facts = {(f.kind, f.value) for f in evidence.read(new)}
    assert {("cc", "6.1"), ("cuda-driver", "10.1")} <= facts
    assert {("cc", "7.0"), ("cuda-driver", "10.0")} <= {(f.kind, f.value) for f in evidence.read(old)}
    snapshot = snapshot_of(new)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.cuda_driver_version == "10.1"
    assert findings_of(new) == set()


D2_TABLE = """```
$ python -m detectron2.utils.collect_env
---------------------  -------------------------------------------------------------------
Python                 3.6.9 |Anaconda, Inc.| (default, Jul 30 2019, 19:07:31) [GCC 7.3.0]
PyTorch                1.3.0
CUDA available         True
GPU 0,1                Tesla P100-PCIE-16GB
---------------------  -------------------------------------------------------------------
PyTorch built with:
  - GCC 7.3
  - CUDA Runtime 10.1
  - NVCC architecture flags: {flags}
  - CuDNN 7.6.3
""".format(
    flags="-gencode;arch=compute_35,code=sm_35;-gencode;arch=compute_50,code=sm_50;"
    "-gencode;arch=compute_50,code=compute_50"
)


def test_torch_config_show_gives_torchs_cuda_and_its_arch_list() -> None:
    """detectron2#7: torch's own '-gencode' list (sm_35, sm_50, PTX compute_50) on P100s (sm_60): only PTX JIT
    reaches them (the thread's 'model takes very long to load') -> arch-not-in-build as a warning."""
    snapshot = snapshot_of(D2_TABLE)
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is not None
    assert (torch.version, torch.cuda) == ("1.3.0", "10.1")
    assert torch.arch_list == ("sm_35", "sm_50", "compute_50")
    assert findings_of(D2_TABLE) == {("arch-not-in-build", "warning")}


def test_cuda_runtime_and_arch_flags_outside_torchs_config_are_not_torchs() -> None:
    """Without a "PyTorch built with:" line a "CUDA Runtime 10.1" line or an arch list is no torch build."""
    text = "I installed\nCUDA Runtime 10.1\nNVCC architecture flags: -gencode;arch=compute_35,code=sm_35\n"
    assert not {f.kind for f in evidence.read(text)} & {"torch-cuda", "torch-arch"}


def test_a_versioned_cuda_home_is_the_toolkit_when_no_nvcc_line_says_one() -> None:
    """conansherry/detectron2#33: CUDA_HOME ...\\CUDA\\v11.6 next to torch 1.11.0+cu113, a minor mismatch."""
    text = (
        "sys.platform            win32\n"
        "CUDA compiler           CUDA 11.6\n"
        "PyTorch                 1.11.0+cu113 @P:\\Anaconda3\\envs\\pytorch\\lib\\site-packages\\torch\n"
        "GPU available           Yes\n"
        "GPU 0                   NVIDIA GeForce RTX 3070 (arch=8.6)\n"
        "Driver version          511.65\n"
        "CUDA_HOME               C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.6\n"
    )
    snapshot = snapshot_of(text)
    toolkit = snapshot.toolkits.cuda if snapshot.toolkits else None
    assert toolkit is not None
    assert toolkit.version == "11.6"
    assert findings_of(text) == {("nvcc-torch-cuda-mismatch", "info")}
    assert [f.value for f in evidence.read("CUDA_HOME: /usr/local/cuda-12.1") if f.kind == "cuda-home"] == [
        "12.1"
    ]
    assert [f for f in evidence.read("CUDA_HOME: /usr/local/cuda") if f.kind == "cuda-home"] == []


def test_an_nvcc_line_wins_over_cuda_home() -> None:
    """mmdet's report prints both; the NVCC line is what the toolkit is."""
    text = (
        "CUDA_HOME: /usr/local/cuda-11.0\n"
        "NVCC: Cuda compilation tools, release 11.1, V11.1.74\n"
        "PyTorch: 1.8.0+cu111\n"
    )
    snapshot = snapshot_of(text)
    toolkit = snapshot.toolkits.cuda if snapshot.toolkits else None
    assert toolkit is not None
    assert toolkit.version == "11.1"


def test_tensorflows_dlopen_failures_are_read_and_judged_by_no_rule() -> None:
    """huggingface/transformers#13270: TensorFlow's dso_loader lines on a machine without a GPU ('Ignore above
    cudart dlerror if you do not have a GPU set up'): read (not refused), no finding."""
    text = (
        "2021-08-26 07:30:45.855430: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
        "shared object file: No such file or directory\n"
        "2021-08-26 07:30:45.855484: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above "
        "cudart dlerror if you do not have a GPU set up on your machine.\n"
        "2021-08-26 07:30:47.920073: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
        "Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object "
        "file: No such file or directory\n"
    )
    assert [m.kind for m in messages.scan(text).messages] == ["tensorflow-cuda-library-missing"]
    assert findings_of(text) == set()


ROCM_627 = """```
/home/lasercat/.local/lib/python3.6/site-packages/torch/cuda/__init__.py:87: UserWarning: 
    Found GPU0 Ellesmere [Radeon RX 470/480/570/570X/580/580X] which is of cuda capability 3.0.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability that we support is 3.5.
    
  warnings.warn(old_gpu_warn % (d, name, major, capability[1]))
tensor([9], device='cuda:0')
```
"""


def test_torch_on_rocm_calling_an_amd_gpu_too_old_is_no_finding() -> None:
    """ROCm/pytorch#627: ROCm reports a made-up 'cuda capability 3.0' for a gfx803 and the tensor works."""
    found = messages.scan(ROCM_627)
    assert found.devices == []
    assert "gpu-too-old" not in [m.kind for m in found.messages]
    assert findings_of(ROCM_627) == set()


def test_an_nvidia_gpu_called_too_old_is_still_an_arch_finding() -> None:
    """AUTOMATIC1111#3003: the same warning naming an NVIDIA GPU is the build lacking its kernels."""
    text = (
        "The console returned a pretty cut and dry error: Found GPU0 NVIDIA GTX TITAN Black which is of "
        "cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum cuda "
        "capability supported by this library is 3.7.\n"
    )
    assert ("arch-not-in-build", "error") in findings_of(text)


DIT_109 = """```
pytorch                   2.5.1              py3.12_cpu_0    pytorch
pytorch-cuda              11.7                 h778d358_5    pytorch
pytorch-mutex             1.0                         cpu    pytorch
torchvision               0.20.1                py312_cpu    pytorch
```
"""


def test_condas_cpu_build_beside_pytorch_cuda_is_a_cpu_build_with_cuda_installed() -> None:
    """facebookresearch/DiT#109: conda resolved pytorch's CPU build next to pytorch-cuda 11.7."""
    assert findings_of(DIT_109) == {("cpu-only-build-with-cuda-installed", "info")}


def test_condas_cuda_build_beside_pytorch_cuda_is_fine() -> None:
    text = DIT_109.replace("py3.12_cpu_0", "py3.12_cuda11.7_cudnn8.5.0_0")
    assert ("cpu-only-build-with-cuda-installed", "info") not in findings_of(text)


def test_torch_not_compiled_with_cuda_beside_an_nvidia_driver_is_a_cpu_only_build() -> None:
    """X-PLUG/MobileAgent#60 (title and description): torch's assertion next to nvidia-smi's header; the
    maintainers: install the GPU build of torch ('如果没有后缀则可能是安装的CPU版本')."""
    text = (
        "请教大佬：AssertionError: Torch not compiled with CUDA enabled这个问题怎么解决\n"
        "当前环境：NVIDIA-SMI 475.14       Driver Version: 475.14       CUDA Version: 11.4  \n"
        "Python版本：3.10.11\n"
    )
    assert findings_of(text) == {("cpu-only-build-on-gpu-host", "error")}


def test_torch_not_compiled_with_cuda_without_an_nvidia_gpu_is_no_finding() -> None:
    """detectron2#460: the assertion alone (no GPU, no driver shown): the CPU build may be the right one."""
    text = (
        'File "/home/xx/anaconda3/envs/tf-gpu/lib/python3.7/site-packages/torch/cuda/__init__.py", line 95, '
        "in _check_driver\n"
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert findings_of(text) == set()


def test_nccls_debug_log_states_the_drivers_cuda_and_nccl_release() -> None:
    """pytorch/pytorch#152077 (NCCL_DEBUG=INFO on an RTX 5090): 'cudaDriverVersion 12080' is the CUDA the
    driver supports (12.8); 'NCCL version 2.14.3+cuda11.8' is recorded and judged by no rule."""
    text = (
        "4d1a2ae696c8:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
        "4d1a2ae696c8:50555:50555 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>\n"
        "4d1a2ae696c8:50555:50555 [0] NCCL INFO cudaDriverVersion 12080\n"
        "NCCL version 2.14.3+cuda11.8\n"
    )
    snapshot = snapshot_of(text)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.cuda_driver_version == "12.8"
    assert [(f.value, f.detail) for f in evidence.read(text) if f.kind == "nccl"] == [("2.14.3", "11.8")]
    assert findings_of(text) == set()


def test_torchs_nccl_error_alone_is_read_not_refused() -> None:
    """huggingface/transformers#11658: only torch's NCCL error line (a /dev/shm too small in a container)."""
    text = (
        "2021-05-10 10:56:59 ERROR    __main__   NCCL error in: "
        "/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled system error, NCCL version 2.7.8\n"
    )
    snapshot = snapshot_of(text)
    assert snapshot.meta.origin is not None
    assert snapshot.meta.origin.sections == ("facts",)
    assert findings_of(text) == set()


def test_torch_not_compiled_with_cuda_beside_a_listed_cuda_build_is_not_blamed_on_that_build() -> None:
    """Two real excerpts together (MobileAgent#60's lines, pytorch#51858's '[pip3] torch==2.0.1+cu117'): the
    listed torch has CUDA, so the assertion came from another interpreter: no CPU-only finding on it."""
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\n"
        "NVIDIA-SMI 475.14       Driver Version: 475.14       CUDA Version: 11.4  \n"
        "[pip3] torch==2.0.1+cu117\n"
    )
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(text)
