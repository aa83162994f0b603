"""Readers and checks fixed after blind batch 15: each test is a real excerpt from the thread it names,
with its limits (what must still not be read) and twins (the same shape said another way)."""

from __future__ import annotations

from envsnap.snapshot.model import Snapshot, TorchInfo
from tests.rules.pasted import findings_of, kinds_of, snapshot_of


def torch_of(text: str) -> TorchInfo | None:
    frameworks = snapshot_of(text).frameworks
    return frameworks.torch if frameworks is not None else None


def os_of(snapshot: Snapshot) -> str | None:
    return snapshot.host.os_name if snapshot.host else None


CPU_ONLY = ("cpu-only-build-on-gpu-host", "error")
CPU_ONLY_INFO = ("cpu-only-build-on-gpu-host", "info")
DRIVER_TOO_OLD = ("driver-too-old-for-cuda-build", "error")

# ------------------------------------------------- the Hugging Face env commands' torch line

JAX_LINE = (
    "  An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
    "Falling back to CPU.\n"
)
TRANSFORMERS_ENV = (
    JAX_LINE
    + """
  - `transformers` version: 4.38.2
  - Platform: Linux-6.5.0-26-generic-x86_64-with-glibc2.35
  - Python version: 3.10.12
  - PyTorch version (GPU?): 2.2.1+cu121 (True)
  - Tensorflow version (GPU?): not installed (NA)
  - Flax version (CPU?/GPU?/TPU?): 0.8.2 (CPU)
  - Jax version: 0.4.25
  - JaxLib version: 0.4.25
"""
)
"""huggingface/diffusers#7403 (transformers-cli env in a PR: a working box whose flax pulled a CPU jaxlib)."""


def test_the_env_commands_torch_line_gives_the_build_and_its_answer() -> None:
    torch = torch_of(TRANSFORMERS_ENV)
    assert torch is not None
    assert (torch.version, torch.cuda) == ("2.2.1+cu121", "12.1")
    assert torch.available is not None
    assert torch.available.cuda is True


def test_a_cpu_jaxlib_beside_a_torch_on_the_gpu_is_info_not_an_error() -> None:
    found = findings_of(TRANSFORMERS_ENV)
    assert CPU_ONLY not in found
    assert CPU_ONLY_INFO in found


def test_a_cpu_jaxlib_stays_an_error_when_torch_does_not_use_the_gpu() -> None:
    # Twin: the same list where torch answers False (or has no CUDA): nothing runs on the GPU.
    assert CPU_ONLY in findings_of(TRANSFORMERS_ENV.replace("(True)", "(False)"))
    without_torch = "\n".join(line for line in TRANSFORMERS_ENV.splitlines() if "PyTorch" not in line)
    assert CPU_ONLY in findings_of(without_torch)


def test_the_accelerator_form_of_the_torch_line() -> None:
    # transformers >= 4.45 writes the accelerator it found instead of True/False; NA is none.
    torch = torch_of("- PyTorch version (accelerator?): 2.5.1+cu124 (CUDA)\n- Python version: 3.11.9\n")
    assert torch is not None
    assert torch.cuda == "12.4"
    assert torch.available is not None
    assert torch.available.cuda is True
    torch = torch_of("- PyTorch version (accelerator?): 2.5.1+cpu (NA)\n- Python version: 3.11.9\n")
    assert torch is not None
    assert torch.available is not None
    assert torch.available.cuda is False


def test_other_framework_lines_of_the_list_are_not_torch() -> None:
    # Limit: TensorFlow's and Flax's lines share the shape; only PyTorch's key is torch.
    lines = "- Python version: 3.10.12\n- Tensorflow version (GPU?): 2.15.0 (True)\n"
    assert torch_of(lines + "- Flax version (CPU?/GPU?/TPU?): 0.8.2 (CPU)\n") is None


# ------------------------------------------------- text-generation-launcher --env: its target triple

TGI_ENV_NO_GPU = (
    "(text-generation-inference) tammosta@SEA-1801247735:~/text-generation-inference$ "
    "text-generation-launcher --env\n"
    """2024-01-17T19:54:02.802338Z  INFO text_generation_launcher: Runtime environment:
Target: x86_64-unknown-linux-gnu
Cargo version: 1.70.0
Commit sha: 0eabc83541225979209ff7183b4b4442e47adf92
Docker label: N/A
nvidia-smi:
N/A
"""
)
"""huggingface/text-generation-inference#1451 (a local run on a machine without an NVIDIA GPU)."""


def test_the_launcher_env_is_read_for_its_platform_and_judged_quietly() -> None:
    assert os_of(snapshot_of(TGI_ENV_NO_GPU)) == "x86_64-unknown-linux-gnu"
    assert findings_of(TGI_ENV_NO_GPU) == set()


def test_only_a_target_triple_counts_as_a_platform() -> None:
    # Limit: "Target:" with another value (a build target, a sentence) says nothing about the host.
    assert snapshot_of("Target: release\nPython version: 3.10.12\n").host is None
    windows = snapshot_of("Target: x86_64-pc-windows-msvc\nPython version: 3.10.12\n")
    assert os_of(windows) == "x86_64-pc-windows-msvc"


# ------------------------------------------------- a pip install of one torch wheel by its URL

PIP_WHEEL_URL = """I'm installing pytorch under virtualenv:
```
pip3 install https://download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-cp35m-linux_x86_64.whl
pip3 install torchvision
```

I have cuda 10.1 installed:
```
nvcc --version
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2019 NVIDIA Corporation
Built on Fri_Feb__8_19:08:17_PST_2019
Cuda compilation tools, release 10.1, V10.1.105
```
"""
"""pytorch/pytorch#4546 (a comment: the cu100 wheel, nvcc 10.1, then 'found version 9010')."""


def test_the_wheel_urls_index_directory_states_torchs_cuda() -> None:
    torch = torch_of(PIP_WHEEL_URL)
    assert torch is not None
    assert torch.cuda == "10.0"
    assert ("nvcc-torch-cuda-mismatch", "info") in findings_of(PIP_WHEEL_URL)


def test_the_encoded_local_version_of_a_wheel_url() -> None:
    # Twin: wheels from 1.5 on carry the tag in the name, URL-encoded (%2B is '+').
    line = (
        "pip install https://download.pytorch.org/whl/cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl\n"
    )
    torch = torch_of(line)
    assert torch is not None
    assert torch.cuda == "11.0"


def test_a_wheel_url_outside_an_install_command_or_of_a_cpu_wheel_states_nothing() -> None:
    # Limits: a link in prose is not what was installed; a CPU wheel has no CUDA to state.
    assert (
        torch_of("see https://download.pytorch.org/whl/cu100/torch-1.0.1-cp35-cp35m-linux_x86_64.whl\n")
        is None
    )
    cpu = torch_of(
        "pip install https://download.pytorch.org/whl/cpu/torch-2.1.0%2Bcpu-cp310-cp310-linux_x86_64.whl\n"
    )
    assert cpu is None or cpu.cuda is None


def test_a_collect_env_cuda_wins_over_a_wheel_url() -> None:
    text = (
        "pip3 install https://download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-cp35m-linux_x86_64.whl\n"
        "PyTorch version: 1.4.0\nIs debug build: No\nCUDA used to build PyTorch: 10.1\n"
        "OS: Ubuntu 18.04.3 LTS\nGCC version: (Ubuntu 7.4.0-1ubuntu1~18.04.1) 7.4.0\nPython version: 3.6\n"
        "Is CUDA available: Yes\nCUDA runtime version: 10.1.243\n"
    )
    torch = torch_of(text)
    assert torch is not None
    assert torch.cuda == "10.1"


# ------------------------------------------------- torch's sm_XX warning, its sentences glued

GLUED_ARCH_WARNING = (
    'I followed readme to install the environment but come across this issue "NVIDIA GeForce RTX 3080 Laptop '
    "GPU with CUDA capability sm_86 is not compatible with the current PyTorch installation."
    "The current PyTorch "
    'install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37."\n'
)
"""junyanz/pytorch-CycleGAN-and-pix2pix#1490 (the warning quoted on one line, no space after the stop)."""


def test_the_warning_with_its_sentences_glued_is_read() -> None:
    assert "arch-not-compatible" in kinds_of(GLUED_ARCH_WARNING)
    assert ("arch-not-in-build", "error") in findings_of(GLUED_ARCH_WARNING)


def test_the_warning_with_a_space_is_read_as_before() -> None:
    spaced = GLUED_ARCH_WARNING.replace("installation.The", "installation. The")
    assert ("arch-not-in-build", "error") in findings_of(spaced)
    # The first sentence alone (no list of the build's capabilities) is torch's own word too since blind18
    # (BallonsTranslator#825 quotes it as an issue title); the build's list then stays unknown.
    first = GLUED_ARCH_WARNING.split(".The current")[0] + '."\n'
    assert "arch-not-compatible" in kinds_of(first)
    torch = torch_of(first)
    assert torch is None or torch.arch_list is None


# ------------------------------------------------- CUDA error 222: PTX of a newer toolchain

PTX_TOOLCHAIN = (
    """ollama-ollama-1    | ggml_init_cublas: found 1 CUDA devices:
ollama-ollama-1    |   Device 0: NVIDIA RTX A1000 Laptop GPU, compute capability 8.6
ollama-ollama-1    |
"""
    "ollama-ollama-1    | CUDA error 222 at "
    "/go/src/github.com/jmorganca/ollama/llm/llama.cpp/gguf/ggml-cuda.cu:5965: "
    "the provided PTX was compiled with an unsupported toolchain.\n"
    "ollama-ollama-1    | current device: 0\n"
)
"""ollama/ollama#1309 (the docker image on WSL2: the runner's PTX is newer than the driver's JIT)."""


def test_the_unsupported_ptx_toolchain_is_a_driver_too_old() -> None:
    assert "ptx-unsupported-toolchain" in kinds_of(PTX_TOOLCHAIN)
    assert DRIVER_TOO_OLD in findings_of(PTX_TOOLCHAIN)


def test_the_error_names_of_cuda_error_222() -> None:
    # Twins: the runtime's and the driver API's names of the same error.
    for said in (
        "RuntimeError: CUDA error: cudaErrorUnsupportedPtxVersion",
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    ):
        assert "ptx-unsupported-toolchain" in kinds_of(said + "\n")
    # Limit: a PTX warning that is not error 222 is not a driver finding.
    assert "ptx-unsupported-toolchain" not in kinds_of("ptxas warning : Unresolved extern function 'foo'\n")


# ------------------------------------------------- a conda transaction plan

CONDA_PLAN = """```
## Package Plan ##

  environment location: D:\\anaconda3

  added / updated specs:
    - cudatoolkit=10.2
    - pytorch==1.12.1


The following packages will be downloaded:

    package                    |            build
    ---------------------------|-----------------
    cudatoolkit-10.2.89        |       h74a9793_1       317.2 MB  defaults
    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch
    pytorch-mutex-1.0          |              cpu           3 KB  pytorch
    ------------------------------------------------------------
                                           Total:       461.9 MB

The following NEW packages will be INSTALLED:

  cudatoolkit        anaconda/pkgs/main/win-64::cudatoolkit-10.2.89-h74a9793_1
```
"""
"""pytorch/pytorch#92273 ('Always install cpu version automatically': conda picked the CPU build)."""

CONDA_INSTALL = "conda install pytorch==1.12.1 torchvision==0.13.1 cudatoolkit=10.2 -c pytorch\n"


def test_the_plan_is_read_as_the_packages_it_installs() -> None:
    snapshot = snapshot_of(CONDA_PLAN)
    names = {(p.name, p.version, p.installer) for p in snapshot.packages or ()}
    assert {
        ("pytorch", "1.12.1", "conda"),
        ("pytorch-mutex", "1.0", "conda"),
        ("cudatoolkit", "10.2.89", "conda"),
    } <= names
    assert ("cpu-only-build-with-cuda-installed", "info") in findings_of(CONDA_PLAN)


def test_a_cpu_build_in_the_plan_wins_over_the_install_commands_cuda() -> None:
    # The command asked for cudatoolkit=10.2; the plan shows what conda resolved: the CPU build.
    torch = torch_of(CONDA_INSTALL + CONDA_PLAN)
    assert torch is not None
    assert torch.cuda is None
    assert ("cpu-only-build-with-cuda-installed", "info") in findings_of(CONDA_INSTALL + CONDA_PLAN)
    # Twin: without a plan the command's CUDA still fills torch's (the rule before this round).
    alone = torch_of(CONDA_INSTALL)
    assert alone is not None
    assert alone.cuda == "10.2"


def test_a_cuda_build_in_the_plan_is_not_cpu_only() -> None:
    cuda_plan = CONDA_PLAN.replace("py3.8_cpu_0", "py3.8_cuda10.2_cudnn7_0").replace(
        "pytorch-mutex-1.0          |              cpu", "pytorch-mutex-1.0          |             cuda"
    )
    torch = torch_of(cuda_plan)
    assert torch is not None
    assert torch.cuda == "10.2"
    assert not {f for f in findings_of(cuda_plan) if f[0].startswith("cpu-only")}


def test_the_new_packages_form_alone_and_an_update_row() -> None:
    new_only = (
        "The following NEW packages will be INSTALLED:\n\n"
        "  pytorch            pytorch/win-64::pytorch-1.12.1-py3.8_cpu_0\n"
        "  cudatoolkit        anaconda/pkgs/main/win-64::cudatoolkit-10.2.89-h74a9793_1\n"
    )
    assert ("cpu-only-build-with-cuda-installed", "info") in findings_of(new_only)
    updated = (
        "The following packages will be UPDATED:\n\n"
        "  pytorch    pytorch::pytorch-1.11.0-py3.8_cpu_0 --> "
        "pytorch::pytorch-1.12.1-py3.8_cuda11.3_cudnn8_0\n"
    )
    torch = torch_of(updated)
    assert torch is not None
    assert (torch.version, torch.cuda) == ("1.12.1", "11.3")


def test_a_download_row_is_no_docker_compose_prefix() -> None:
    # "cudatoolkit-10.2.89        | " has the shape of a compose prefix ("ollama-ollama-1    | "): the
    # plan's row must keep its name, while a compose prefix is still stripped (PTX_TOOLCHAIN above).
    download_only = CONDA_PLAN.split("The following NEW")[0]
    names = {p.name for p in snapshot_of(download_only).packages or ()}
    assert {"cudatoolkit", "pytorch", "pytorch-mutex"} <= names
    assert DRIVER_TOO_OLD in findings_of(PTX_TOOLCHAIN)


# ------------------------------------------------- earlier rounds' leftovers: ollama's gfx line, a bare model

OLLAMA_GFX = (
    "time=2024-05-02T12:17:03.655Z level=INFO source=amd_linux.go:88 "
    'msg="detected amdgpu versions [gfx1103]"\n'
    "time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 "
    'msg="amdgpu [0] gfx1103 is not supported by /tmp/ollama2145067703/rocm '
    '[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]"\n'
)
"""ollama/ollama#4099 (blind13: the 780M's gfx1103 against the rocm libraries ollama 0.1.32 ships)."""


def test_ollamas_own_gfx_check_is_the_unsupported_target_warning() -> None:
    assert "rocm-gfx-not-in-library" in kinds_of(OLLAMA_GFX)
    assert ("rocm-gfx-unsupported", "warning") in findings_of(OLLAMA_GFX)


def test_ollamas_later_form_and_a_target_in_its_own_list() -> None:
    later = (
        'level=WARN source=amd_linux.go:341 msg="amdgpu is not supported (supported types:[gfx1030 gfx1100 '
        'gfx1101 gfx1102 gfx906])" gpu_type=gfx1103 gpu=0 library=/usr/lib/ollama\n'
    )
    assert ("rocm-gfx-unsupported", "warning") in findings_of(later)
    # Limit: a target the line lists itself is no cause (a hand-edited or garbled line).
    assert ("rocm-gfx-unsupported", "warning") not in findings_of(
        later.replace("gpu_type=gfx1103", "gpu_type=gfx1100")
    )
    listed = OLLAMA_GFX.replace("[0] gfx1103 is", "[0] gfx1030 is")
    assert ("rocm-gfx-unsupported", "warning") not in findings_of(listed)


BARE_MODEL = (
    "I am running torch 128 and have a 5080 GPU. Running in Ubuntu. \n\n"
    "@hotntwitchy Your system information shows PyTorch Version: 2.7.1+cu126\n"
)
"""Comfy-Org/ComfyUI#8708 (blind13: the card said only as 'a 5080 GPU'; a reply quotes the torch build)."""


def gpu_names(text: str) -> list[str | None]:
    accelerators = snapshot_of(text).accelerators
    nvidia = accelerators.nvidia if accelerators is not None else None
    return [d.name for d in nvidia.devices or ()] if nvidia is not None else []


def test_a_geforce_named_by_its_number_is_read() -> None:
    assert gpu_names(BARE_MODEL) == ["NVIDIA GeForce RTX 5080"]
    assert ("arch-not-in-build", "error") in findings_of(BARE_MODEL)
    assert gpu_names("my 1080 Ti GPU and torch 2.1.0+cu121\n") == ["NVIDIA GeForce GTX 1080 Ti"]


def test_other_four_digit_numbers_are_not_geforces() -> None:
    # Limits: AMD's model numbers, a number without an article or without "GPU", a year.
    for text in (
        "I have a 7900 GPU\nPyTorch version: 2.1.0+cu121\n",
        "I have a 6800 GPU\nPyTorch version: 2.1.0+cu121\n",
        "5080 GPU prices\nPyTorch version: 2.1.0+cu121\n",
        "I have a 5080\nPyTorch version: 2.1.0+cu121\n",
        "by 2050 GPU clusters will grow\nPyTorch version: 2.1.0+cu121\n",
    ):
        assert gpu_names(text) == [], text
