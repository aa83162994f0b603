"""The judgments issue 21 added for pasted reports, each on lines copied from a real paste.

The corpus (tests/reports) judges whole files; here each judgment is pinned on the smallest real
excerpt that carries it, with the file it comes from named.
"""

from __future__ import annotations

import pytest

from envsnap.importers.auto import parse_auto
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import NOW, findings_of

MACOS = (
    "PyTorch version: 1.1.0a0+4335aac\nIs debug build: No\nCUDA used to build PyTorch: 10.0\n\n"
    "OS: Mac OSX 10.13.6\n\nPython version: 3.7\nIs CUDA available: Yes\nCUDA runtime version: 10.0.130\n"
    "GPU models and configuration: GeForce GTX 1060 with Max-Q Design\nNvidia driver version: 1.1.0\n"
)
"""pytorch-pr16999: macOS prints its CUDA driver as 1.1.0 while CUDA works."""


def test_what_the_report_observed_beats_what_a_rule_infers() -> None:
    assert not [f for f in findings_of(MACOS) if f[1] == "error"]
    # the same report saying CUDA is NOT available keeps nothing either (the driver line is not a
    # Linux/Windows driver release, so no rule compares it)
    assert not [f for f in findings_of(MACOS.replace("available: Yes", "available: No")) if f[1] == "error"]


def test_an_observed_cuda_drops_a_cpu_only_error_but_not_a_missing_kernel() -> None:
    # sdnext-1424 lines, plus a collect_env line saying CUDA works: the two contradict, the report wins
    text = "nVidia CUDA toolkit detected\nTorch 2.0.1+cpu\n"
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(text)
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(text + "Is CUDA available: True\n")
    # vllm-5547: a kernel missing for the GPU is not contradicted by CUDA starting
    kernel = "[rank0]: RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert ("arch-not-in-build", "error") in findings_of(kernel + "CUDA available: True\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # pytorch-12438
            "AssertionError: \nFound no NVIDIA driver on your system. Please check that you\n"
            "have an NVIDIA GPU and installed a driver from\n",
            ("nvidia-driver-not-found", "error"),
        ),
        (  # vllm-23935
            "DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: "
            "NVML Shared Library Not Found\n",
            ("nvidia-driver-not-found", "error"),
        ),
        (  # bitsandbytes-498
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda113_nocublaslt.so.\n"
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n",
            ("bitsandbytes-cpu-fallback", "error"),
        ),
        (  # step-audio-3
            "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: "
            "cannot open shared object file: No such file or directory\n",
            ("onnxruntime-cuda-major-mismatch", "error"),
        ),
        (  # slurm-appliance-287 (syslog, #012 for the newlines)
            "Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03, "
            "but#012NVRM: this kernel module has the version 530.30.02.\n",
            ("nvml-driver-library-mismatch", "error"),
        ),
        (  # deepspeed-3386
            "OSError: /opt/conda/lib/python3.7/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol "
            "cublasLtGetStatusString, version libcublasLt.so.11 not defined in file libcublasLt.so.11 "
            "with link time reference\n",
            ("ld-library-path-shadowing", "error"),
        ),
        (  # pytorch-40013: a nightly pin one day apart, which no release table knows
            "ERROR: torchvision 0.7.0.dev20200610 has requirement torch==1.6.0.dev20200609, but you'll "
            "have torch 1.6.0.dev20200610 which is incompatible.\n",
            ("companion-version-mismatch", "error"),
        ),
        (  # deepspeed-2902
            "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.0 does not match the version "
            "torch was compiled with 11.7, unable to compile cuda/cpp extensions\n",
            ("nvcc-torch-cuda-mismatch", "error"),
        ),
        (  # forge-classic-583
            "Found GPU0 Tesla V100-SXM2-16GB which is of cuda capability 7.0.\n"
            "Minimum and Maximum cuda capability supported by this version of PyTorch is\n(7.5) - (12.0)\n"
            "PyTorch Version: 2.9.1+cu130\n",
            ("arch-not-in-build", "error"),
        ),
    ],
    ids=[
        "no-driver",
        "nvml-library-missing",
        "bnb-cpu",
        "ort-cuda-libs",
        "nvrm-api-mismatch",
        "cublaslt-shadowed",
        "pip-conflict-nightly",
        "deepspeed-op-builder",
        "forge-v100-cu130",
    ],
)
def test_a_printed_line_gives_its_finding(text: str, expected: tuple[str, str]) -> None:
    assert expected in findings_of(text)


def test_pip_show_torch_with_cuda_12_wheels_against_nvcc_11() -> None:
    # deepspeed-5312
    text = (
        "Cuda compilation tools, release 11.8, V11.8.89\nName: torch\nVersion: 2.2.1\n"
        "Requires: filelock, nvidia-cublas-cu12, nvidia-cuda-runtime-cu12, sympy\n"
    )
    assert ("nvcc-torch-cuda-mismatch", "error") in findings_of(text)


@pytest.mark.parametrize(("nvcc", "variant"), [("12.1, V12.1.66", "cu118"), ("11.7, V11.7.99", "cu117")])
def test_a_cpu_torch_next_to_a_cuda_toolkit_is_an_info_with_its_install_command(
    nvcc: str, variant: str
) -> None:
    findings = evaluate(
        finalize(
            parse_auto(
                f"Torch 2.0.1+cpu\nCuda compilation tools, release {nvcc}\n",
                "paste.txt",
                captured_at=NOW,
            )
        )
    )
    info = [f for f in findings if f.id == "cpu-only-build-with-cuda-installed"]
    assert [str(f.severity) for f in info] == ["info"]
    # The same release, the newest of its CUDA variants (cu117, cu118) not newer than the toolkit.
    assert f"pip install torch==2.0.1 --index-url https://download.pytorch.org/whl/{variant}" in info[0].fix


def test_pip_torch_and_conda_pytorch_of_different_versions_are_a_duplicate() -> None:
    text = (
        "PyTorch version: 2.1.0+cu121\nVersions of relevant libraries:\n[pip3] torch==2.1.0+cu121\n"
        "[conda] pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
    )
    assert ("duplicate-distributions", "warning") in findings_of(text)
    same = text.replace("2.0.1  ", "2.1.0  ")
    assert ("duplicate-distributions", "warning") not in findings_of(same)


def test_old_and_new_gpu_names_resolve() -> None:
    from envsnap.rules import facts
    from envsnap.snapshot.model import NvidiaDevice

    assert str(facts.compute_capability(NvidiaDevice(index=0, name="GeForce 210"))[0]) == "1.2"
    assert (
        str(facts.compute_capability(NvidiaDevice(index=0, name="NVIDIA GeForce RTX 5080 Laptop GPU"))[0])
        == "12.0"
    )


def test_a_companion_for_another_cuda_variant_than_the_torch_build() -> None:
    # torch prints 1.2.0 (no tag) but was built with CUDA 10.0; torchvision is the +cu92 wheel
    text = (
        "PyTorch version: 1.2.0\nCUDA used to build PyTorch: 10.0\nVersions of relevant libraries:\n"
        "[pip] torch==1.2.0\n[pip] torchvision==0.4.0+cu92\n"
    )
    assert ("companion-version-mismatch", "error") in findings_of(text)


def test_a_kernel_image_error_is_blamed_on_the_package_that_raised_it() -> None:
    # flashinfer-ai/flashinfer#920: flashinfer's own norm kernel lacks the GPU's arch
    text = (
        "CUDA Error: no kernel image is available for execution on the device (209) "
        "/usr/local/lib/python3.12/dist-packages/flashinfer/data/include/flashinfer/norm.cuh: line 113 at "
        "function cudaLaunchKernel((void*)kernel, nblks, nthrs, args, smem_size, stream)\n"
    )
    findings = evaluate(finalize(parse_auto(text, "paste.txt", captured_at=NOW)))
    arch = [f for f in findings if f.id == "arch-not-in-build"]
    assert len(arch) == 1
    assert arch[0].title.startswith("flashinfer's compiled kernels")
    # vllm-5547: raised in torch.empty_like, so torch's build is the suspect
    torch_raised = (
        "[rank0]: RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    titles = [f.title for f in evaluate(finalize(parse_auto(torch_raised, "p.txt", captured_at=NOW)))]
    assert any(t.startswith("The build has no code for this GPU") for t in titles)


def test_a_pip_freeze_torch_without_a_tag_takes_its_cuda_from_the_runtime_wheel() -> None:
    # a Linux pip freeze: torch==2.5.1 pulls nvidia-cuda-runtime-cu12==12.4.127 (a cu124 build), which
    # has no sm_120 (only compute_90 PTX, which the rule rates a warning): the fix is a cu128+ build
    text = (
        "torch==2.5.1\nnvidia-cuda-runtime-cu12==12.4.127\ntriton==3.1.0\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\n"
    )
    snapshot = finalize(parse_auto(text, "freeze.txt", captured_at=NOW))
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    assert (snapshot.frameworks.torch.version, snapshot.frameworks.torch.cuda) == ("2.5.1", "12.4")
    arch = [f for f in evaluate(snapshot) if f.id == "arch-not-in-build"]
    assert [str(f.severity) for f in arch] == ["warning"]
    assert "cu128" in arch[0].fix or "cu129" in arch[0].fix or "cu130" in arch[0].fix


SMI_5090 = (
    "| NVIDIA-SMI 570.124.04             Driver Version: 570.124.04     CUDA Version: 12.8     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0 Off |                  N/A |\n"
    "|  0%   38C    P8             21W /  575W |       2MiB /  32607MiB |      0%      Default |\n"
    "+-----------------------------------------+------------------------+----------------------+\n\n"
)
"""The row layout of the 570-driver table (shared/fixtures geforce-rtx-3060_driver-570.124.04), with the
RTX 5090 of issue 21's example."""


def test_a_bare_pip_freeze_torch_on_a_linux_gpu_host_is_judged_as_pypis_cuda_wheel() -> None:
    # Issue 21: "A pip freeze with torch==2.5.1 on an RTX 5090 host: the torch version is ignored";
    # PyPI's Linux wheel of 2.5.1 is cu124 (no sm_120), the fix names torch 2.7 from cu128.
    snapshot = finalize(parse_auto(SMI_5090 + "torch==2.5.1\nnumpy==2.1.2\n", "paste.txt", captured_at=NOW))
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    assert (snapshot.frameworks.torch.version, snapshot.frameworks.torch.cuda) == ("2.5.1", "12.4")
    arch = [f for f in evaluate(snapshot) if f.id == "arch-not-in-build"]
    assert len(arch) == 1
    assert "torch 2.7" in arch[0].fix
    assert "cu128" in arch[0].fix


def test_a_bare_pip_freeze_torch_on_windows_is_not_taken_for_a_cuda_build() -> None:
    # PyPI's Windows wheels are CPU-only: a WDDM table says Windows, so no CUDA is inferred.
    windows = SMI_5090.replace("RTX 5090        Off", "RTX 5090       WDDM")
    snapshot = parse_auto(windows + "torch==2.5.1\n", "paste.txt", captured_at=NOW)
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is None or torch.cuda is None


# --- blind batch 2 (issue reportsblind): each line copied from tests/data/reports ------------------


def test_a_conda_install_line_pins_torchs_cuda_for_the_driver_check() -> None:
    """pytorch-68611: 'cudatoolkit=11.3' picks conda's CUDA 11.3 pytorch; the driver's CUDA is 11.2."""
    text = (
        "conda install pytorch torchvision torchaudio cudatoolkit=11.3 -c pytorch-nightly\n"
        "| NVIDIA-SMI 461.72       Driver Version: 461.72       CUDA Version: 11.2     |\n"
    )
    assert ("driver-too-old-for-cuda-build", "warning") in findings_of(text)


def test_a_conda_install_line_does_not_override_the_build_a_report_states() -> None:
    """pytorch-27745: conda was asked for cudatoolkit=10.1 but installed a CUDA 9.0 build, which driver
    398.36 runs (no "Is CUDA available" here to gate an error): collect_env's 'CUDA used to build
    PyTorch' is what is installed."""
    text = (
        "2.Run conda install pytorch torchvision cudatoolkit=10.1 -c pytorch\n\n"
        "PyTorch version: 1.0.0\nIs debug build: No\nCUDA used to build PyTorch: 9.0\n\n"
        "OS: Microsoft Windows 10 Enterprise\nPython version: 3.7\n"
        "GPU models and configuration: GPU 0: GeForce GTX 1050\nNvidia driver version: 398.36\n"
    )
    assert not any(severity in ("error", "warning") for _, severity in findings_of(text))


def test_jax_falling_back_to_the_cpu_next_to_an_nvidia_gpu_is_a_cpu_only_build() -> None:
    """jaxlib-feedstock-285: jax's own line says it saw an NVIDIA GPU but jaxlib has no CUDA."""
    text = (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
        "Falling back to cpu.\njax:    0.4.32\njaxlib: 0.4.32\n"
        "jax.devices (1 total, 1 local): [CpuDevice(id=0)]\n"
    )
    assert findings_of(text) == {("cpu-only-build-on-gpu-host", "error")}


def test_a_jax_report_on_the_cpu_without_jaxs_fallback_line_is_not_judged() -> None:
    """jax on the CPU may be meant (JAX_PLATFORMS=cpu): only jax's fallback line says it saw a GPU."""
    text = "jax:    0.4.32\njaxlib: 0.4.32\njax.devices (1 total, 1 local): [CpuDevice(id=0)]\n"
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(text)


def test_jax_falling_back_after_its_cuda_plugin_failed_is_not_a_cpu_only_build() -> None:
    """jax#30050 (blind4): the installed xla_cuda12 plugin failed to load cuSPARSE; jax then prints the same
    fallback line, but the CUDA build is there: no cpu-only finding."""
    text = (
        "ERROR:2025-07-08 12:39:34,990 jax._src.xla_bridge:444] Jax plugin configuration error: "
        "Exception when calling jax_plugins.xla_cuda12.initialize()\n...\n"
        "RuntimeError: Unable to load cuSPARSE. Is it installed?\n"
        "WARNING:2025-07-08 12:39:34,994 jax._src.xla_bridge:794] An NVIDIA GPU may be present on this "
        "machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n"
    )
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(text)
    # the same line next to a CUDA jaxlib wheel (jax#20722's pip list) or the plugin's wheel: no finding
    fallback = text.splitlines()[-1] + "\n"
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(
        fallback + "jaxlib  0.4.26+cuda12.cudnn89\n"
    )
    assert ("cpu-only-build-on-gpu-host", "error") not in findings_of(
        fallback + "jax-cuda12-plugin==0.4.36\n"
    )
    # the line alone still says what it says (jaxlib-feedstock-285)
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(fallback + "jaxlib: 0.4.32\n")


def test_onnxruntime_missing_cudnn_is_not_a_cuda_major_mismatch() -> None:
    """memo#13 (blind4): onnxruntime-gpu 1.20.1 (CUDA 12) next to nvcc 12.0 fails on libcudnn_adv.so.9:
    cuDNN 9 is missing, the CUDA major matches; a missing libcublasLt.so.11 (ragflow#905) is the CUDA-major
    case."""
    line = (
        "2024-12-09 13:04:11.264813429 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 "
        "TryGetProviderInfo_CUDA] "
        "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1539 onnxruntime::Provider& "
        "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
        "libonnxruntime_providers_cuda.so with error: libcudnn_adv.so.9: cannot open shared object file: "
        "No such file or directory\n"
    )
    text = "onnxruntime-gpu Version: 1.20.1\nCuda compilation tools, release 12.0, V12.0.140\n" + line
    assert not any(rule == "onnxruntime-cuda-major-mismatch" for rule, _ in findings_of(text))
    assert ("onnxruntime-cuda-major-mismatch", "error") in findings_of(
        line.replace("libcudnn_adv.so.9", "libcublasLt.so.11")
    )


def test_onnxruntimes_windows_dll_error_names_the_cuda_major_too() -> None:
    """ORT on Windows: 'Error loading "...onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll"
    which is missing' (CUDA 12 runtime absent); "cudnn64_9.dll" is cuDNN 9 absent, not a CUDA major."""
    text = (
        "[E:onnxruntime:Default, provider_bridge_ort.cc:2251 onnxruntime::TryGetProviderInfo_CUDA] ... "
        "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : Error loading "
        '"...\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends on '
        '"cublasLt64_12.dll" which is missing. (Error 126: "The specified module could not be found.")\n'
    )
    assert ("onnxruntime-cuda-major-mismatch", "error") in findings_of(text)
    assert not any(
        rule == "onnxruntime-cuda-major-mismatch"
        for rule, _ in findings_of(
            text.replace("cublasLt64_12.dll", "cudnn64_9.dll") + "onnxruntime-gpu 1.23.2\n"
        )
    )


def test_rocblas_without_kernels_for_the_gpus_gfx_target_is_an_arch_finding() -> None:
    """ROCm/ROCm#2719 and ollama's bundled rocBLAS: "Illegal seek for GPU arch : gfx1103" is rocBLAS saying it
    has no Tensile kernels for the GPU (HIP's "invalid device function" in rocBLAS's words)."""
    text = (
        "rocBLAS error: Cannot read /usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary.dat: "
        "Illegal seek for GPU arch : gfx1103\n List of available TensileLibrary Files :\n"
        '"/usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx942.dat"\n'
    )
    assert findings_of(text) == {("arch-not-in-build", "error")}
    # wrapped by the paste after the colon (torch rocm7.0 wheel on an MI50)
    wrapped = (
        "rocBLAS error: Cannot read /plugins/torch/lib/rocblas/library/TensileLibrary.dat:\n"
        "  Illegal seek for GPU arch : gfx906\n"
    )
    assert findings_of(wrapped) == {("arch-not-in-build", "error")}


def test_onnxruntime_missing_cudnn_is_read_but_judged_by_no_rule() -> None:
    """onnxruntime#19616: only 'libcudnn.so.8: cannot open shared object file' (and 'CUDA 12.2' in prose): the
    paste is read (not refused) and no rule blames a CUDA major for a missing cuDNN."""
    text = (
        "2024-02-23 12:12:19.240097373 [E:onnxruntime:Default, provider_bridge_ort.cc:1546 "
        "TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 "
        "onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : "
        "Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.8: "
        "cannot open shared object file: No such file or directory\n"
    )
    snapshot = parse_auto(text, "paste.txt", captured_at=NOW)
    origin = snapshot.meta.origin
    assert origin is not None
    assert origin.messages
    assert [m.kind for m in origin.messages] == ["onnxruntime-cudnn-missing"]
    assert findings_of(text) == set()
