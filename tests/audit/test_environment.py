"""The environment layers: framework build and install command, package swaps, compiled extensions."""

from __future__ import annotations

import msgspec

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.target import target_from_snapshot
from envsnap.snapshot import store
from envsnap.snapshot.model import ExtensionDistribution, Extensions, Package
from tests.audit.conftest import DATA, at, imported, project
from tests.conftest import REPO_ROOT

SOURCE = DATA / "audit" / "l40s-torch2.14-cu130-source.yaml"
TARGET = DATA / "audit" / "mi250-rocm6.2-target.yaml"
DEVBOX = REPO_ROOT / "snapshots" / "examples" / "devbox-cpu-torch2.13-cuda13-toolkit-no-driver.yaml"


def framework(report: object) -> list[object]:
    return [f for f in report.findings if f.layer == "framework"]  # type: ignore[attr-defined]


def test_rocm_install_command_uses_index_url_never_extra_index_url() -> None:
    result = audit(None, store.load(SOURCE), parse_target("rocm:gfx942"))
    build = next(f for f in result.findings if f.rule == "framework-build")
    assert (
        build.replacement
        == "`pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/rocm7.14`"
    )
    assert "--extra-index-url" not in build.replacement
    assert build.risk == "lower"


def test_rocm_version_that_the_release_does_not_publish() -> None:
    result = audit(None, store.load(DEVBOX), parse_target("rocm:gfx942@6.4"))
    build = next(f for f in result.findings if f.rule == "framework-build")
    assert "publishes ROCm 7.2 wheels, not ROCm 6.4" in build.meaning
    assert "torch 2.9, 2.8" in build.meaning


def test_gfx_without_code_objects_in_the_wheel_is_higher() -> None:
    result = audit(None, store.load(DEVBOX), parse_target("rocm:gfx1031"))
    assert at(result.findings, "gfx-not-in-wheel") == ["frameworks.torch"]
    assert result.verdict.risk == "higher"


def test_xpu_mps_cpu_builds() -> None:
    devbox = store.load(DEVBOX)
    xpu = next(f for f in audit(None, devbox, parse_target("xpu")).findings if f.rule == "framework-build")
    assert xpu.replacement == "`pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/xpu`"
    mps = next(f for f in audit(None, devbox, parse_target("mps")).findings if f.rule == "framework-build")
    assert mps.replacement == "`pip install torch==2.13.0`"
    cpu = next(f for f in audit(None, devbox, parse_target("cpu")).findings if f.rule == "framework-build")
    assert "whl/cpu" in cpu.replacement


def test_newer_nvidia_arch_picks_a_variant_with_its_kernels() -> None:
    result = audit(None, store.load(DEVBOX), parse_target("cuda:sm_120"))
    build = next(f for f in result.findings if f.rule == "framework-build")
    assert "--index-url https://download.pytorch.org/whl/cu13" in build.replacement
    capped = audit(None, store.load(DEVBOX), parse_target("cuda:sm_120@12.6"))
    assert next(f for f in capped.findings if f.rule == "framework-build").risk != "lower"


def test_cuda_library_wheels_and_triton_from_a_real_cuda_environment() -> None:
    result = audit(None, store.load(SOURCE), parse_target("mps"))
    wheels = next(f for f in result.findings if f.rule == "cuda-library-wheels")
    assert "nvidia-cudnn-cu13" in wheels.code
    assert at(result.findings, "cuda-only-package") == ["packages[triton]"]
    assert result.verdict.risk == "higher"  # no Triton GPU backend on MPS


def test_target_snapshot_judges_against_its_real_torch() -> None:
    target = target_from_snapshot(store.load(TARGET), str(TARGET))
    result = audit(scan_tree(project("cuda_cudnn")), store.load(SOURCE), target)
    skew = next(f for f in result.findings if f.rule == "framework-version-skew")
    assert "2.6.0+rocm6.2.4" in skew.meaning
    assert result.target.archs == ("gfx90a",)
    assert result.verdict.risk == "moderate"  # .cuda() and cudnn are fine on ROCm; the version skew is not


def test_compiled_extensions_with_fatbin_archs() -> None:
    base = store.load(DEVBOX)
    section = Extensions(
        status="ok",
        scanned_files=10,
        distributions=(
            ExtensionDistribution(
                name="my-kernels",
                version="1.0",
                vendors=("cuda",),
                libraries=("libcudart.so.12",),
                files=1,
                sm_archs=("sm_80", "sm_90"),
            ),
            ExtensionDistribution(
                name="flash_attn",
                version="2.8.3",
                vendors=("cuda",),
                libraries=("libcudart.so.12",),
                files=1,
                sm_archs=("sm_80",),
            ),
        ),
    )
    packages = (
        *(base.packages or ()),
        Package(name="flash_attn", version="2.8.3"),
        Package(name="apex", version="0.9.10dev"),
    )
    snapshot = msgspec.structs.replace(base, extensions=section, packages=packages)
    rocm = audit(None, snapshot, parse_target("rocm"))
    assert at(rocm.findings, "compiled-cuda-extension") == [
        "extensions[my-kernels]"
    ]  # flash-attn: its package row
    # nvidia-ml-py is envsnap's own NVML binding, installed with envsnap there: not the project's (#22)
    assert at(rocm.findings, "cuda-only-package") == ["packages[flash_attn]"]
    assert at(rocm.findings, "pypi-apex") == ["packages[apex]"]
    blackwell = audit(None, snapshot, parse_target("cuda:sm_120"))
    assert at(blackwell.findings, "extension-arch") == ["extensions[my-kernels]"]
    assert audit(None, snapshot, parse_target("cuda:sm_90")).findings == tuple(
        f for f in audit(None, snapshot, parse_target("cuda:sm_90")).findings if f.rule != "extension-arch"
    )


def test_several_cuda_only_kernel_packages_make_it_higher() -> None:
    base = store.load(DEVBOX)
    # ctranslate2, not xformers or deepspeed: xformers on ROCm installs from the ROCm index (blind round 30),
    # DeepSpeed runs on a ROCm torch as installed (blind round 48): both lower.
    extra = tuple(Package(name=n, version="4.7.0") for n in ("flash-attn", "ctranslate2", "vllm"))
    snapshot = msgspec.structs.replace(base, packages=(*(base.packages or ()), *extra))
    result = audit(None, snapshot, parse_target("rocm"))
    assert result.verdict.risk == "higher"
    assert result.verdict.reasons[0] == "3 CUDA-only kernels or compiled packages to port and validate"


def test_rocm_import_of_a_real_mi300x_report() -> None:
    snapshot = imported("collect_env/gen2025_torch2.5_cu121_on_mi300x.txt")
    result = audit(None, snapshot, parse_target("rocm:gfx942"))
    assert next(f for f in result.findings if f.rule == "framework-build").replacement.endswith(
        "whl/rocm6.2`"
    )


def test_multi_gpu_nvidia_target_snapshot_with_an_old_driver() -> None:
    """8× V100S (sm_70) on driver 460 (CUDA <= 11.2): no torch 2.14 wheel runs there."""
    snapshot = imported("nvidia/8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml", "nvidia-smi-xml")
    target = target_from_snapshot(snapshot, "v100.yaml")
    result = audit(scan_tree(project("cuda_extension")), store.load(SOURCE), target)
    build = next(f for f in result.findings if f.rule == "framework-build")
    assert "for CUDA <= 11.2 has kernels for sm_70" in build.meaning
    assert result.target.devices.count("Tesla V100S-PCIE-32GB") == 8
    # compiled for sm_80 only (setup.py): no machine code for the V100
    assert at(result.findings, "cuda-arch-flags") == ["setup.py:10"]
