"""The framework probe, against the real torch of this venv and fake builds run by the same child script.

Scenarios are named after what they reproduce: a CUDA build on a host without a driver, a ROCm
build with a device, an import that hangs, one that segfaults, a broken install, two onnxruntime
distributions on top of each other. Values of the fakes are in tests/data/frameworks/builds/*.json
with their sources.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.probes.base import ProbeContext
from envsnap.probes.frameworks import probe as frameworks
from envsnap.probes.frameworks import results as framework_results
from envsnap.snapshot.model import Frameworks
from tests.fakes.frameworks import fake_site, framework_context
from tests.fakes.native import build_shared_object
from tests.installed_torch import installed_torch

# compat-rules.md B2.2: torch 2.5-2.6 cu124 wheels, TORCH_CUDA_ARCH_LIST 5.0;6.0;7.0;7.5;8.0;8.6;9.0+PTX.
CU124_ARCH_LIST = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "compute_90")
TOOLKIT_CUDART = Path("/usr/local/cuda-13.0/lib64/libcudart.so.13")
# Scenarios about other frameworks shadow the venv's real torch with the fake one: a second per test saved.
QUICK_TORCH = ("fake_torch",)


@pytest.fixture(scope="session")
def real_frameworks() -> Frameworks:
    """This venv probed once per session (importing torch costs about a second)."""
    return frameworks.probe(ProbeContext())


def test_real_torch_is_reported_as_it_reports_itself(real_frameworks: Frameworks) -> None:
    # The CPU build (local wheel) or the CUDA build (public index): torch's own answers decide.
    expected = installed_torch()
    torch = real_frameworks.torch
    assert torch is not None
    assert torch.status == "ok", torch.reason
    assert (torch.version, torch.cuda, torch.hip) == (expected.version, expected.cuda, expected.hip)
    assert torch.available is not None
    assert torch.available.cuda is expected.cuda_available
    assert (torch.devices == ()) is not expected.cuda_available
    assert torch.location is not None
    assert torch.location.endswith("site-packages/torch")
    if expected.cpu_only:
        assert (torch.cudnn, torch.nccl, torch.miopen) == (None, None, None)
        assert torch.arch_list == ()
    else:
        # A GPU build names its compiled architectures even where no GPU is usable.
        assert torch.arch_list
        assert all(re.fullmatch(r"(sm|compute|gfx)_?\w+", arch) for arch in torch.arch_list), torch.arch_list
        if expected.cuda is not None:
            assert torch.nccl is not None
            assert re.fullmatch(r"\d+\.\d+\.\d+", torch.nccl)


def test_real_torch_maps_cuda_libraries_only_when_built_for_cuda(real_frameworks: Frameworks) -> None:
    torch = real_frameworks.torch
    assert torch is not None
    names = [Path(library.path).name for library in torch.loaded_libraries or ()]
    if installed_torch().cpu_only:
        assert names == []
    else:
        # Importing a CUDA build maps its CUDA runtime (from the nvidia-* wheels) even without a GPU.
        assert any(name.startswith(("libcudart.so", "libamdhip64.so")) for name in names), names


def test_real_torch_config_keeps_build_facts_only(real_frameworks: Frameworks) -> None:
    torch = real_frameworks.torch
    assert torch is not None
    assert torch.config is not None
    assert torch.config["USE_CUDA"] == ("0" if installed_torch().cuda is None else "1")
    assert torch.config["compiler"].startswith("GCC ")
    assert torch.config["cxx11_abi"] == "true"
    assert not any("capability" in key for key in torch.config)  # the host's CPU, not the build


def test_cuda_build_on_a_host_without_driver(tmp_path: Path) -> None:
    site = fake_site(tmp_path, "fake_torch", "companions")
    wheel_cudart = build_shared_object(
        site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12", soname="libcudart.so.12"
    )
    result = frameworks.probe(framework_context(site, build="cu124"))
    torch = result.torch
    assert torch is not None
    assert torch.status == "ok", torch.reason
    assert (torch.version, torch.cuda, torch.hip) == ("2.5.1+cu124", "12.4", None)
    assert torch.arch_list == CU124_ARCH_LIST
    assert torch.available is not None
    assert torch.available.cuda is False
    assert torch.devices == ()
    assert (torch.cudnn, torch.nccl, torch.miopen) == ("9.1.0", "2.21.5", None)
    assert torch.config is not None
    assert torch.config["cuda_runtime"] == "12.4"
    assert torch.config["CXX_FLAGS_ABI"] == "-D_GLIBCXX_USE_CXX11_ABI=0 -fabi-version=11"
    origins = {library.path: library.origin for library in torch.loaded_libraries or ()}
    assert origins[str(wheel_cudart.resolve())] == "wheel"
    assert TOOLKIT_CUDART.exists(), (
        "the CUDA 13.0 toolkit is expected at /usr/local/cuda-13.0 on dev and CI machines"
    )
    assert origins[str(TOOLKIT_CUDART.resolve())] == "toolkit"


def test_rocm_build_with_a_device(tmp_path: Path) -> None:
    result = frameworks.probe(framework_context(fake_site(tmp_path, "fake_torch"), build="rocm62"))
    torch = result.torch
    assert torch is not None
    assert torch.status == "ok", torch.reason
    assert (torch.cuda, torch.hip) == (None, "6.2.41133-dd7f95766")
    assert (torch.miopen, torch.cudnn, torch.nccl) == ("3.2.0", None, None)
    assert torch.arch_list == ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942")
    assert torch.available is not None
    assert torch.available.cuda is True
    assert torch.devices is not None
    (device,) = torch.devices
    assert (device.type, device.name, device.gcn_arch) == (
        "cuda",
        "AMD Instinct MI210",
        "gfx90a:sramecc+:xnack-",
    )
    assert device.memory_total_bytes == 65520 * 1024 * 1024
    assert device.capability is None  # ROCm's major/minor are derived from gfx, not a CUDA capability


def test_hung_import_becomes_a_timeout_naming_torch(tmp_path: Path) -> None:
    site = fake_site(tmp_path, "hang", "companions")
    result = frameworks.probe(framework_context(site, timeout_s=2))
    assert result.torch is not None
    assert result.torch.status == "failed"
    assert result.torch.reason == "timed out after 2 s while importing torch"
    # The other children were not held up by the hung one.
    assert result.companions is not None
    assert {build.name for build in result.companions} >= {"torchvision", "triton"}


def test_crashing_import_becomes_a_failure_naming_the_signal(tmp_path: Path) -> None:
    result = frameworks.probe(framework_context(fake_site(tmp_path, "crash")))
    assert result.torch is not None
    assert result.torch.status == "failed"
    assert result.torch.reason == "crashed with SIGSEGV while importing torch"
    assert not list(Path.cwd().glob("core*")), "a crashing child must not leave a core file behind"


def test_broken_install_fails_with_the_import_error(tmp_path: Path) -> None:
    result = frameworks.probe(framework_context(fake_site(tmp_path, "broken")))
    assert result.torch is not None
    assert result.torch.status == "failed"
    assert result.torch.reason is not None
    assert result.torch.reason.startswith("ImportError: ")
    assert "undefined symbol: __nvJitLinkComplete_12_4" in result.torch.reason


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The interpreter of a fresh venv: no torch, no jax, nothing but the stdlib."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return str(venv / "bin" / "python")


def test_interpreter_without_torch_reports_it_skipped(bare_python: str) -> None:
    result = frameworks.probe(ProbeContext(python=bare_python, timeout_s=30))
    assert result.torch is not None
    assert (result.torch.status, result.torch.reason) == ("skipped", "not installed")
    assert (result.jax, result.tensorflow, result.onnxruntime) == (None, None, None)
    assert result.companions == ()


def test_leftover_torch_folder_is_a_broken_install(tmp_path: Path, bare_python: str) -> None:
    site = tmp_path / "site-packages"
    (site / "torch" / "lib").mkdir(parents=True)  # what a failed uninstall leaves: no __init__.py
    context = framework_context(site)
    result = frameworks.probe(ProbeContext(python=bare_python, environ=context.environ, timeout_s=30))
    assert result.torch is not None
    assert result.torch.status == "failed"
    assert result.torch.reason is not None
    assert "namespace package" in result.torch.reason
    assert str(site / "torch") in result.torch.reason


def test_missing_interpreter_fails_every_section_it_must_report(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    result = frameworks.probe(ProbeContext(python=missing, timeout_s=5))
    assert result.torch is not None
    assert result.torch.status == "failed"
    assert result.torch.reason == f"could not run {missing}: {missing} not found"


def test_two_onnxruntime_distributions_are_both_listed(tmp_path: Path) -> None:
    result = frameworks.probe(
        framework_context(fake_site(tmp_path, "onnxruntime_two", *QUICK_TORCH), build="cu124")
    )
    ort = result.onnxruntime
    assert ort is not None
    assert ort.status == "ok", ort.reason
    assert ort.distribution == "onnxruntime"  # its RECORD size matches the compiled module on disk
    assert ort.distributions == ("onnxruntime==1.20.1", "onnxruntime-gpu==1.20.1")
    assert ort.providers == ("AzureExecutionProvider", "CPUExecutionProvider")
    assert ort.device == "CPU"


def test_jax_and_tensorflow_builds(tmp_path: Path) -> None:
    result = frameworks.probe(
        framework_context(fake_site(tmp_path, "jax_tensorflow", *QUICK_TORCH), build="cu124")
    )
    assert result.jax is not None
    assert (result.jax.status, result.jax.version, result.jax.jaxlib_version) == ("ok", "0.4.35", "0.4.35")
    assert (result.jax.backend, result.jax.devices) == ("cpu", ("cpu:0 cpu",))
    assert result.jax.plugins == ("jax-cuda12-plugin==0.4.35",)
    tf = result.tensorflow
    assert tf is not None
    assert tf.status == "ok", tf.reason  # its import wrote to fd 1, which must not spoil the answer
    assert tf.build_info is not None
    assert (tf.build_info["cuda_version"], tf.build_info["is_cuda_build"]) == ("11.2", "True")
    assert tf.build_info["cuda_compute_capabilities"].endswith("sm_86, compute_86")
    assert tf.gpus == ()


def test_companions_carry_the_gpu_build_of_their_version_tag(tmp_path: Path) -> None:
    result = frameworks.probe(
        framework_context(fake_site(tmp_path, "companions", *QUICK_TORCH), build="cu124")
    )
    builds = {build.name: (build.version, build.cuda, build.hip) for build in result.companions or ()}
    assert builds["torchvision"] == ("0.20.1+cu124", "12.4", None)
    assert builds["torchaudio"] == ("2.5.1+rocm6.2", None, "6.2")
    assert builds["tensorrt_cu12"] == ("10.3.0", "12", None)
    assert builds["triton"] == ("3.1.0", None, None)


# ---------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    ("code", "expected"),
    [(90100, "9.1.0"), (91002, "9.10.2"), (90000, "9.0.0"), (8902, "8.9.2"), (7605, "7.6.5")],
)
def test_cudnn_integer_to_version(code: int, expected: str) -> None:
    assert framework_results.cudnn_version(code) == expected


def test_miopen_and_nccl_versions() -> None:
    assert framework_results.miopen_version(3002000) == "3.2.0"
    assert framework_results.nccl_version([2, 21, 5]) == "2.21.5"
    assert framework_results.nccl_version([2, 18, 1, "+cuda12.1"]) == "2.18.1+cuda12.1"
    assert framework_results.nccl_version(2708) == "2.7.8"  # NCCL_VERSION_CODE before 2.9
    assert framework_results.nccl_version(21805) == "2.18.5"
    assert framework_results.nccl_version(True) is None


@pytest.mark.parametrize(
    ("path", "origin"),
    [
        ("/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "wheel"),
        ("/opt/venv/lib/python3.11/site-packages/torch/lib/libcudart-d0da41ae.so.11.0", "wheel"),
        ("/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127", "toolkit"),
        ("/usr/local/cuda-12.4/compat/libcuda.so.550.54.15", "compat"),
        ("/home/u/miniconda3/envs/ml/lib/libcudnn.so.8.9.2", "conda"),
        ("/home/u/miniconda3/envs/ml/lib/python3.10/site-packages/nvidia/nccl/lib/libnccl.so.2", "wheel"),
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "system"),
        ("/usr/lib64/libcuda.so.1", "system"),
        ("/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.60200", "toolkit"),
        ("/srv/libs/libcudart.so.12", "other"),
    ],
)
def test_library_origin(path: str, origin: str) -> None:
    assert framework_results.library_origin(path, ["/home/u/miniconda3/envs/ml"]) == origin


def test_cuda_build_config_lines() -> None:
    show = (
        "PyTorch built with:\n  - GCC 9.3\n  - CUDA Runtime 12.4\n  - Built with CUDA Runtime 12.1\n"
        "  - NVCC architecture flags: -gencode;arch=compute_80,code=sm_80\n  - CuDNN 90.1\n"
        "    - Built with CuDNN 8.9.2\n  - Magma 2.6.1\n  - CPU capability usage: AVX2\n"
        "  - Build settings: BUILD_TYPE=Release, CXX_FLAGS= -D_GLIBCXX_USE_CXX11_ABI=1 -Wall, USE_CUDA=ON, \n"
    )
    assert framework_results.parse_torch_config(show) == {
        "compiler": "GCC 9.3",
        "cuda_runtime": "12.4",
        "cuda_runtime_built": "12.1",
        "nvcc_arch_flags": "-gencode;arch=compute_80,code=sm_80",
        "cudnn": "90.1",
        "cudnn_built": "8.9.2",
        "magma": "2.6.1",
        "BUILD_TYPE": "Release",
        "CXX_FLAGS_ABI": "-D_GLIBCXX_USE_CXX11_ABI=1",
        "USE_CUDA": "ON",
    }


@pytest.mark.parametrize(
    ("name", "version", "expected"),
    [
        ("torchvision", "0.20.1+cu124", ("12.4", None)),
        ("torchvision", "0.8.0+cu92", ("9.2", None)),
        ("torch", "2.9.0+cu130", ("13.0", None)),
        ("torchaudio", "2.7.1+rocm6.2.4", (None, "6.2.4")),
        ("jaxlib", "0.4.23+cuda12.cudnn89", ("12", None)),
        ("tensorrt-cu12", "10.3.0", ("12", None)),
        ("flash-attn", "2.7.4.post1", (None, None)),
        ("broken", "not a version", (None, None)),
    ],
)
def test_local_version_tags(name: str, version: str, expected: tuple[str | None, str | None]) -> None:
    assert framework_results.local_build(name, version) == expected


def test_child_environment_quiets_without_overriding_the_user() -> None:
    env = frameworks.child_environment({"TF_CPP_MIN_LOG_LEVEL": "0", "PYTHONINSPECT": "1", "PATH": "/bin"})
    assert env == {"TF_CPP_MIN_LOG_LEVEL": "0", "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "PATH": "/bin"}


def test_child_script_is_python_3_8_syntax() -> None:
    source = Path(frameworks.__file__).with_name(frameworks.SCRIPT).read_text(encoding="utf-8")
    ast.parse(source, feature_version=(3, 8))  # raises SyntaxError on newer syntax
    tree = ast.parse(source)
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, "the child must need the stdlib only"
    assert "envsnap" not in imported


def test_unreadable_child_answers_become_failures() -> None:
    answers: dict[str, frameworks.Answer | str] = {
        "torch": "printed no readable answer while importing torch",
        "jax": {"status": "skipped", "reason": "not installed"},
        "tensorflow": {"status": "failed", "reason": "RuntimeError: boom"},
        "onnxruntime": {"status": "ok", "version": 7, "providers": "not a list"},
    }
    result = frameworks.assemble(answers, {})
    assert result.torch is not None
    assert (result.torch.status, result.torch.reason) == ("failed", answers["torch"])
    assert result.jax is None
    assert result.tensorflow is not None
    assert (result.tensorflow.status, result.tensorflow.reason) == ("failed", "RuntimeError: boom")
    assert result.onnxruntime is not None
    assert (result.onnxruntime.version, result.onnxruntime.providers) == (None, None)
    assert result.companions is None
