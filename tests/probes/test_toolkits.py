"""The toolkit probe: the real CUDA 13.0 toolkit of this machine, and fixture trees of other hosts.

tests/data/toolkits/cuda124-rocm624 is a host with CUDA 12.4.1 (version.json in its documented
layout), cuDNN 9.1.0 (header), NCCL 2.21.5 (library file name) and ROCm 6.2.4 with HIP 6.2.41134;
the versions are real releases that ship together (see tests/data/SOURCES.md).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from envsnap.probes.base import ProbeContext
from envsnap.probes.toolkits import probe as toolkits
from envsnap.snapshot.model import CudaToolkit, LibraryInstall, RocmToolkit, ToolkitInstall
from tests.conftest import DATA

HOST_ROOT = DATA / "toolkits" / "cuda124-rocm624"

# `nvcc --version` of CUDA 12.4.1, as printed by the real compiler.
NVCC_12_4 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Thu_Mar_28_02:18:24_PDT_2024
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0
"""


def host(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    shutil.copytree(HOST_ROOT, root)
    return root


def script(path: Path, stdout: str) -> None:
    """An executable that prints ``stdout`` with a shell builtin (the test PATH has no coreutils)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nprintf '%s' '{stdout}'\n")
    path.chmod(0o755)


# ---------------------------------------------------------------------------- this machine


def test_this_machines_cuda_13_toolkit() -> None:
    """nvcc on PATH is /usr/local/bin/nvcc, a wrapper script: the tree comes from nvcc's own --dryrun."""
    result = toolkits.probe(ProbeContext(environ={"PATH": "/usr/local/bin:/usr/bin:/bin"}))
    assert result.cuda == CudaToolkit(
        status="ok",
        nvcc_version="13.0.88",
        version="13.0",
        path="/usr/local/cuda-13.0",
        installations=(ToolkitInstall(version="13.0", path="/usr/local/cuda-13.0"),),
    )


def test_this_machines_toolkit_through_cuda_home() -> None:
    result = toolkits.probe(ProbeContext(environ={"PATH": "", "CUDA_HOME": "/usr/local/cuda"}))
    assert result.cuda is not None
    assert (result.cuda.status, result.cuda.nvcc_version, result.cuda.path) == (
        "ok",
        "13.0.88",
        "/usr/local/cuda-13.0",
    )
    assert result.cuda.cuda_home == "/usr/local/cuda"


# ---------------------------------------------------------------------------- fixture hosts


def test_cuda_12_4_and_rocm_6_2_4_host_without_compilers_on_path() -> None:
    result = toolkits.probe(ProbeContext(root=HOST_ROOT, environ={"PATH": ""}))
    assert result.cuda == CudaToolkit(
        status="ok",
        nvcc_version="12.4.131",  # version.json's cuda_nvcc: nvcc itself did not run
        version="12.4",
        path="/usr/local/cuda-12.4",
        installations=(ToolkitInstall(version="12.4.1", path="/usr/local/cuda-12.4"),),
    )
    assert result.cudnn == LibraryInstall(
        status="ok", version="9.1.0", path="/usr/local/cuda-12.4/include/cudnn_version.h"
    )
    assert result.nccl == LibraryInstall(
        status="ok", version="2.21.5", path="/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5"
    )
    assert result.rocm == RocmToolkit(
        status="ok",
        version="6.2.4",  # .info/version says "6.2.4-139": the build number is dropped
        path="/opt/rocm-6.2.4",
        installations=(ToolkitInstall(version="6.2.4", path="/opt/rocm-6.2.4"),),
    )
    assert result.hip == RocmToolkit(status="ok", version="6.2.41134-65d174c3e", path="/opt/rocm-6.2.4")


def test_nvcc_on_path_wins_and_its_tree_comes_from_nvcc_profile(tmp_path: Path) -> None:
    root = host(tmp_path)
    bin_dir = root / "usr/local/cuda-12.4/bin"
    script(bin_dir / "nvcc", NVCC_12_4)
    (bin_dir / "nvcc.profile").write_text("TOP = $(_HERE_)/..\n")
    (root / "usr/local/cuda-12.4/version.json").unlink()  # so only nvcc can tell the versions
    result = toolkits.probe(ProbeContext(root=root, environ={"PATH": "/usr/local/cuda-12.4/bin"}))
    assert result.cuda == CudaToolkit(
        status="ok",
        nvcc_version="12.4.131",
        version="12.4",
        path="/usr/local/cuda-12.4",
        installations=(ToolkitInstall(version="12.4", path="/usr/local/cuda-12.4"),),
    )


def test_hipconfig_on_path(tmp_path: Path) -> None:
    root = host(tmp_path)
    script(root / "opt/rocm-6.2.4/bin/hipconfig", "6.2.41134-65d174c3e\n")
    (root / "opt/rocm-6.2.4/include/hip/hip_version.h").unlink()  # so only hipconfig can answer
    result = toolkits.probe(ProbeContext(root=root, environ={"PATH": "/opt/rocm-6.2.4/bin"}))
    assert result.hip == RocmToolkit(status="ok", version="6.2.41134-65d174c3e", path="/opt/rocm-6.2.4")


@pytest.mark.parametrize("absolute", [True, False])
def test_opt_rocm_link_is_followed_inside_the_root(tmp_path: Path, absolute: bool) -> None:
    root = host(tmp_path)
    os.symlink("/opt/rocm-6.2.4" if absolute else "rocm-6.2.4", root / "opt/rocm")
    result = toolkits.probe(ProbeContext(root=root, environ={}))
    assert result.rocm is not None
    assert (result.rocm.version, result.rocm.path) == ("6.2.4", "/opt/rocm-6.2.4")
    assert result.rocm.installations == (ToolkitInstall(version="6.2.4", path="/opt/rocm-6.2.4"),)


def test_two_rocm_trees_without_a_current_one(tmp_path: Path) -> None:
    root = host(tmp_path)
    (root / "opt/rocm-6.1.2/.info").mkdir(parents=True)
    (root / "opt/rocm-6.1.2/.info/version").write_text("6.1.2\n")
    result = toolkits.probe(ProbeContext(root=root, environ={}))
    assert result.rocm is not None
    assert (result.rocm.status, result.rocm.reason) == (
        "skipped",
        "several /opt/rocm-* and no /opt/rocm or ROCM_PATH",
    )
    assert result.rocm.installations == (
        ToolkitInstall(version="6.1.2", path="/opt/rocm-6.1.2"),
        ToolkitInstall(version="6.2.4", path="/opt/rocm-6.2.4"),
    )
    chosen = toolkits.probe(ProbeContext(root=root, environ={"ROCM_PATH": "/opt/rocm-6.1.2"})).rocm
    assert chosen is not None
    assert (chosen.status, chosen.version) == ("ok", "6.1.2")


def test_debian_cudnn_header_and_old_cudnn_h(tmp_path: Path) -> None:
    """Debian's libcudnn9-dev: cudnn_version_v9.h in the multiarch include dir; cuDNN 7: cudnn.h."""
    root = tmp_path / "root"
    include = root / "usr/include/x86_64-linux-gnu"
    include.mkdir(parents=True)
    (include / "cudnn_version_v9.h").write_text(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 2\n"
    )
    assert toolkits.probe(ProbeContext(root=root, environ={})).cudnn == LibraryInstall(
        status="ok", version="9.10.2", path="/usr/include/x86_64-linux-gnu/cudnn_version_v9.h"
    )
    (include / "cudnn_version_v9.h").unlink()
    (root / "usr/local/cuda-10.2/include").mkdir(parents=True)
    (root / "usr/local/cuda-10.2/version.txt").write_text("CUDA Version 10.2.89\n")
    (root / "usr/local/cuda-10.2/include/cudnn.h").write_text(
        "#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n"
    )
    result = toolkits.probe(ProbeContext(root=root, environ={}))
    assert result.cudnn == LibraryInstall(
        status="ok", version="7.6.5", path="/usr/local/cuda-10.2/include/cudnn.h"
    )
    assert result.cuda is not None
    assert (result.cuda.version, result.cuda.installations) == (
        "10.2",
        (ToolkitInstall(version="10.2.89", path="/usr/local/cuda-10.2"),),
    )


def test_nothing_installed(tmp_path: Path) -> None:
    result = toolkits.probe(ProbeContext(root=tmp_path, environ={"PATH": ""}))
    assert result.cuda == CudaToolkit(status="skipped", reason="no nvcc on PATH and no /usr/local/cuda*")
    assert result.cudnn == LibraryInstall(
        status="skipped", reason="cuDNN not found in the CUDA toolkit or system directories"
    )
    assert result.nccl == LibraryInstall(
        status="skipped", reason="NCCL not found in the CUDA toolkit or system directories"
    )
    assert result.rocm == RocmToolkit(status="skipped", reason="no /opt/rocm or /opt/rocm-*")
    assert result.hip == RocmToolkit(
        status="skipped", reason="no hipconfig on PATH and no HIP in a ROCm tree"
    )
