"""ld-library-path-shadowing: foreign copies of bundled CUDA/ROCm libraries."""

from __future__ import annotations

from envsnap.rules import libraries
from tests.rules.conftest import TORCH_CU128_PINS, cuda_toolkit, env, lib, package, snapshot, torch

WHEELS = tuple(package(name, version) for name, version in TORCH_CU128_PINS.items())
SITE = "/opt/venv/lib/python3.11/site-packages/nvidia"


def _snap(loaded: tuple[object, ...], **kw: object) -> object:
    return snapshot(frameworks=torch("2.8.0+cu128", "12.8", loaded_libraries=loaded), packages=WHEELS, **kw)


def test_older_system_nvjitlink_under_torch_is_an_error() -> None:
    # pytorch#131312: /usr/local/cuda-12.1 on LD_LIBRARY_PATH supplies an older libnvJitLink.
    loaded = (
        lib("libcusparse.so.12", f"{SITE}/cusparse/lib/libcusparse.so.12", "wheel"),
        lib("libnvJitLink.so.12", "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12.1.105", "toolkit"),
    )
    snap = _snap(loaded, environment=env(LD_LIBRARY_PATH="/usr/local/cuda-12.1/lib64"))
    (found,) = libraries.shadowed_libraries(snap)  # type: ignore[arg-type]
    assert found.id == "ld-library-path-shadowing"
    assert found.severity == "error"
    assert "nvidia-nvjitlink-cu12 12.8.93 (an older 12.1.105)" in found.title
    assert "unset LD_LIBRARY_PATH" in found.fix
    assert any(e.path == "environment.variables.LD_LIBRARY_PATH" for e in found.evidence)


def test_same_major_system_copy_without_version_is_a_warning() -> None:
    loaded = (lib("libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "system"),)
    (found,) = libraries.shadowed_libraries(_snap(loaded))  # type: ignore[arg-type]
    assert found.severity == "warning"
    assert "import torch first" in found.fix


def test_cublaslt_maps_to_the_cublas_wheel() -> None:
    loaded = (lib("libcublasLt.so.12", "/opt/conda/lib/libcublasLt.so.12.1.3.1", "conda"),)
    (found,) = libraries.shadowed_libraries(_snap(loaded))  # type: ignore[arg-type]
    assert "nvidia-cublas-cu12" in found.title
    assert found.severity == "error"


def test_libraries_from_the_wheels_and_the_driver_are_fine() -> None:
    loaded = (
        lib("libcudart.so.12", f"{SITE}/cuda_runtime/lib/libcudart.so.12", "wheel"),
        lib("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.570.124.04", "system"),
        lib("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.124.04", "system"),
    )
    assert list(libraries.shadowed_libraries(_snap(loaded))) == []  # type: ignore[arg-type]


def test_system_library_without_the_wheel_is_not_shadowing() -> None:
    loaded = (lib("libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "system"),)
    snap = snapshot(frameworks=torch("2.8.0+cu128", "12.8", loaded_libraries=loaded), packages=())
    assert list(libraries.shadowed_libraries(snap)) == []


def test_conflicting_ld_library_path_before_anything_loaded() -> None:
    loaded = (lib("libcudart.so.12", f"{SITE}/cuda_runtime/lib/libcudart.so.12", "wheel"),)
    snap = _snap(loaded, environment=env(LD_LIBRARY_PATH="/usr/local/cuda-11.8/lib64:/usr/lib"))
    (found,) = libraries.shadowed_libraries(snap)  # type: ignore[arg-type]
    assert found.severity == "warning"
    assert "CUDA 11.8 libraries (/usr/local/cuda-11.8/lib64)" in found.title


def test_ld_library_path_of_the_system_toolkit_resolved_through_toolkits() -> None:
    loaded = (lib("libcudart.so.12", f"{SITE}/cuda_runtime/lib/libcudart.so.12", "wheel"),)
    snap = _snap(
        loaded,
        environment=env(LD_LIBRARY_PATH="/usr/local/cuda/lib64"),
        toolkits=cuda_toolkit("12.4", "12.4.131", "/usr/local/cuda"),
    )
    (found,) = libraries.shadowed_libraries(snap)  # type: ignore[arg-type]
    assert "CUDA 12.4 libraries" in found.title


def test_newer_toolkit_or_compat_dir_on_ld_library_path_is_fine() -> None:
    loaded = (lib("libcudart.so.12", f"{SITE}/cuda_runtime/lib/libcudart.so.12", "wheel"),)
    newer = _snap(loaded, environment=env(LD_LIBRARY_PATH="/usr/local/cuda-12.9/lib64"))
    assert list(libraries.shadowed_libraries(newer)) == []  # type: ignore[arg-type]
    compat = _snap(loaded, environment=env(LD_LIBRARY_PATH="/usr/local/cuda-13.0/compat"))
    assert list(libraries.shadowed_libraries(compat)) == []  # type: ignore[arg-type]


def test_rocm_library_from_opt_rocm_under_a_pip_rocm_torch() -> None:
    loaded = (lib("libamdhip64.so.6", "/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204", "toolkit"),)
    snap = snapshot(
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133", loaded_libraries=loaded),
        packages=(package("torch", "2.6.0+rocm6.2.4", installer="pip"),),
    )
    (found,) = libraries.shadowed_libraries(snap)
    assert "libamdhip64.so.6" in found.title
    assert found.severity == "warning"
    conda = snapshot(
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133", loaded_libraries=loaded),
        packages=(package("torch", "2.6.0+rocm6.2.4", installer="conda"),),
    )
    assert list(libraries.shadowed_libraries(conda)) == []
