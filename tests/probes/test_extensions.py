"""The compiled-extension scan: gcc-built objects in a real temporary venv, nvcc-built CUDA code, this venv.

The fake environment is a ``python -m venv`` whose site-packages holds: a CUDA extension linking a
stub ``libcudart.so.12`` (RUNPATH into a wheel's folder), a ROCm extension linking a stub
``libamdhip64.so.6``, a plain extension, an extension no RECORD names, a truncated object, and a
linker script named like a library. The probe asks that venv's interpreter for its site-packages,
as it would any ``--python``.
"""

from __future__ import annotations

import glob
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from elftools.elf.elffile import ELFFile

from envsnap.probes.base import ProbeContext
from envsnap.probes.extensions import elf_scan, fatbin
from envsnap.probes.extensions import probe as extensions
from envsnap.probes.extensions.cache import CacheFile, default_path
from envsnap.snapshot.model import Extensions
from tests.fakes.native import build_shared_object, write_dist_info
from tests.installed_torch import installed_torch

CUDA_RUNPATH = "$ORIGIN/../nvidia/cuda_runtime/lib"


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """(interpreter, site-packages) of a venv with the scenario's objects installed."""
    root = tmp_path_factory.mktemp("extensions")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    (site,) = (root / "venv" / "lib").glob("python3*/site-packages")
    cudart = build_shared_object(
        site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12", soname="libcudart.so.12"
    )
    write_dist_info(site, "nvidia-cuda-runtime-cu12", "12.4.127", ["nvidia/cuda_runtime/lib/libcudart.so.12"])
    hip = build_shared_object(root / "rocm" / "lib" / "libamdhip64.so.6", soname="libamdhip64.so.6")
    cuda_ext = build_shared_object(site / "cudapkg" / "_C.so", link=[cudart], rpath=CUDA_RUNPATH)
    write_dist_info(site, "cudapkg", "1.0", ["cudapkg/_C.so", "cudapkg/__init__.py"])
    build_shared_object(site / "hippkg" / "_hip.cpython-311-x86_64-linux-gnu.so", link=[hip])
    write_dist_info(site, "hippkg", "2.0", ["hippkg/_hip.cpython-311-x86_64-linux-gnu.so"])
    build_shared_object(site / "plainpkg" / "_plain.so")
    write_dist_info(site, "plainpkg", "0.1", ["plainpkg/_plain.so"])
    build_shared_object(site / "loose" / "_loose.so", link=[cudart])  # no RECORD names it
    (site / "brokenpkg").mkdir()
    (site / "brokenpkg" / "_broken.so").write_bytes(cuda_ext.read_bytes()[:200])  # an interrupted download
    write_dist_info(site, "brokenpkg", "3.0", ["brokenpkg/_broken.so"])
    (site / "scriptpkg").mkdir()
    (site / "scriptpkg" / "libc.so").write_text("/* GNU ld script */\nINPUT(-lc)\n", encoding="utf-8")
    os.symlink("_C.so", site / "cudapkg" / "_C_alias.so")
    return str(root / "venv" / "bin" / "python"), site.resolve()


def probe_env(fake_env: tuple[str, Path]) -> Extensions:
    return extensions.probe(ProbeContext(python=fake_env[0], timeout_s=30))


def test_distributions_are_attributed_through_their_records(fake_env: tuple[str, Path]) -> None:
    result = probe_env(fake_env)
    assert result.status == "ok", result.reason
    found = {dist.name: dist for dist in result.distributions or ()}
    assert set(found) == {"cudapkg", "hippkg", "loose"}
    cuda = found["cudapkg"]
    assert (cuda.version, cuda.vendors, cuda.libraries, cuda.files) == (
        "1.0",
        ("cuda",),
        ("libcudart.so.12",),
        1,
    )
    assert cuda.runpaths == (CUDA_RUNPATH,)
    assert cuda.sm_archs is None  # gcc objects hold no fatbin
    hip = found["hippkg"]
    assert (hip.version, hip.vendors, hip.libraries) == ("2.0", ("rocm",), ("libamdhip64.so.6",))
    assert (found["loose"].version, found["loose"].vendors) == (None, ("cuda",))


def test_corrupt_object_is_reported_not_fatal(fake_env: tuple[str, Path]) -> None:
    result = probe_env(fake_env)
    assert result.status == "ok"
    assert result.unreadable_files == ("brokenpkg/_broken.so",)


def test_scanned_files_counts_each_elf_object_once(fake_env: tuple[str, Path]) -> None:
    # libcudart stub, cudapkg, hippkg, plainpkg, loose, brokenpkg; not the linker script, not the symlink.
    assert probe_env(fake_env).scanned_files == 6


def test_second_scan_reads_no_object_again(
    fake_env: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[Path] = []
    real_read = elf_scan.read_elf

    def counting_read(path: Path) -> elf_scan.ElfFacts:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(elf_scan, "read_elf", counting_read)
    first = probe_env(fake_env)
    assert len(reads) == 7  # the six ELF objects and the linker script
    assert default_path().is_file()
    reads.clear()
    assert probe_env(fake_env) == first
    assert reads == []
    changed = fake_env[1] / "plainpkg" / "_plain.so"
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    probe_env(fake_env)
    assert reads == [changed]


def test_corrupt_cache_is_ignored_and_rewritten(fake_env: tuple[str, Path]) -> None:
    cache = default_path()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text('{"version": 1, "objects": {"/x": {"size": "not a number"', encoding="utf-8")
    result = probe_env(fake_env)
    assert result.status == "ok"
    assert len(result.distributions or ()) == 3
    assert len(msgspec.json.decode(cache.read_bytes(), type=CacheFile).objects) == 7


def test_unanswering_interpreter_fails_the_section(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    result = extensions.probe(ProbeContext(python=missing, timeout_s=5))
    assert result.status == "failed"
    assert result.reason == f"could not ask {missing} for its site-packages: {missing} not found"


def test_other_platforms_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    result = extensions.probe(ProbeContext())
    assert (result.status, result.reason) == (
        "skipped",
        "the extension scan reads Linux ELF objects; this is darwin",
    )


def test_this_venv_torch_is_listed_exactly_when_built_for_cuda() -> None:
    result = extensions.probe(ProbeContext())
    assert result.status == "ok", result.reason
    assert result.scanned_files is not None
    assert result.scanned_files > 50  # torch alone ships dozens of compiled modules
    by_name = {dist.name: dist for dist in result.distributions or ()}
    if installed_torch().cuda is None:  # the CPU build: nothing here links CUDA
        assert "torch" not in by_name
        assert not [dist for dist in by_name.values() if "cuda" in dist.vendors]
    else:  # the CUDA build from the public index: its compiled modules link the CUDA runtime
        assert "cuda" in by_name["torch"].vendors


def test_site_directories_subprocess_answer_matches_in_process(fake_env: tuple[str, Path]) -> None:
    assert extensions.site_directories(ProbeContext(python=fake_env[0])) == [str(fake_env[1])]
    here = extensions.site_directories(ProbeContext())
    assert here
    assert all(Path(path).is_dir() for path in here)


# ---------------------------------------------------------------------------- real CUDA objects (nvcc)

KERNEL = """
__global__ void scale(float* x, float factor) { x[threadIdx.x] *= factor; }
extern "C" void envsnap_scale(float* x) { scale<<<1, 32>>>(x, 2.0f); }
"""


@pytest.fixture(scope="module")
def nvcc_build(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Compile KERNEL into a shared object with the machine's real CUDA toolkit."""
    nvcc = shutil.which("nvcc") or next(iter(sorted(glob.glob("/usr/local/cuda*/bin/nvcc"))), None)
    assert nvcc is not None, (
        "dev and CI machines have the CUDA 13.0 toolkit (nvcc) under /usr/local/cuda-13.0"
    )
    folder = tmp_path_factory.mktemp("nvcc")
    (folder / "kernel.cu").write_text(KERNEL, encoding="utf-8")

    def build(name: str, *options: str) -> Path:
        target = folder / name
        argv = [
            nvcc,
            "-shared",
            "-Xcompiler",
            "-fPIC",
            *options,
            str(folder / "kernel.cu"),
            "-o",
            str(target),
        ]
        subprocess.run(argv, check=True, capture_output=True)
        return target

    return build


@pytest.mark.slow
def test_fatbin_architectures_of_an_nvcc_object(nvcc_build: Callable[..., Path]) -> None:
    library = nvcc_build(
        "libshared_cudart.so",
        "-cudart=shared",
        "-gencode=arch=compute_80,code=sm_80",
        "-gencode=arch=compute_90a,code=sm_90a",
        "-gencode=arch=compute_90,code=compute_90",
    )
    facts = elf_scan.read_elf(library)
    assert facts.error is None
    assert facts.fatbin
    assert facts.archs == ("sm_80", "compute_90", "sm_90a")
    assert any(name.startswith("libcudart.so.") for name in facts.needed)


@pytest.mark.slow
def test_static_cudart_object_is_still_a_cuda_extension(
    nvcc_build: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nvcc's default: cudart linked in statically, so no CUDA library in DT_NEEDED at all.
    library = nvcc_build(
        "libstatic.so", "-gencode=arch=compute_75,code=sm_75", "-gencode=arch=compute_100f,code=sm_100f"
    )
    site = tmp_path / "site-packages"
    (site / "kernels").mkdir(parents=True)
    shutil.copy(library, site / "kernels" / "_ops.so")
    write_dist_info(site, "kernels", "0.1", ["kernels/_ops.so"])
    monkeypatch.setattr(extensions, "site_directories", lambda ctx: [str(site)])
    result = extensions.probe(ProbeContext())
    (dist,) = result.distributions or ()
    assert (dist.name, dist.vendors, dist.libraries) == ("kernels", ("cuda",), ())
    assert dist.sm_archs == ("sm_75", "sm_100f")


@pytest.mark.slow
def test_damaged_fatbins_stop_the_reading_quietly(nvcc_build: Callable[..., Path], tmp_path: Path) -> None:
    library = nvcc_build(
        "libcut.so", "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90"
    )
    with library.open("rb") as stream:
        section = ELFFile(stream).get_section_by_name(".nv_fatbin")
        assert section is not None
        data = section.data()
    assert fatbin.architectures(io.BytesIO(data), 0, len(data)) == {"sm_80", "sm_90"}
    # A section cut short (its header claims more entries than there are bytes) yields what it holds.
    assert fatbin.architectures(io.BytesIO(data[:100]), 0, len(data)) <= {"sm_80", "sm_90"}
    assert fatbin.architectures(io.BytesIO(b"\xff" * 64), 0, 64) == set()
    cut = tmp_path / "libcut.so"
    cut.write_bytes(library.read_bytes()[: library.stat().st_size // 2])  # section headers are at the end
    assert elf_scan.read_elf(cut).error is not None


# ---------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    ("library", "vendor"),
    [
        ("libcudart.so.12", "cuda"),
        ("libcublasLt.so.13", "cuda"),
        ("libcudnn_ops.so.9", "cuda"),
        ("libcuda.so.1", "cuda"),
        ("libnvrtc-builtins.so.12.4", "cuda"),
        ("libamdhip64.so.6", "rocm"),
        ("libMIOpen.so.1", "rocm"),
        ("libhipblaslt.so.0", "rocm"),
        ("libze_loader.so.1", "intel"),
        ("libsycl.so.8", "intel"),
        ("libOpenCL.so.1", None),
        ("libc.so.6", None),
        ("libcudart_static.a", None),
    ],
)
def test_vendor_of_library(library: str, vendor: str | None) -> None:
    assert extensions.vendor_of(library) == vendor


@pytest.mark.parametrize(
    ("kind", "arch", "flags", "name"),
    [  # kinds and flags as nvcc 13.0 writes them (measured; see fatbin.py)
        (2, 80, 0x11, "sm_80"),
        (2, 90, 0x100011, "sm_90a"),
        (2, 100, 0x1200011, "sm_100f"),
        (1, 90, 0x8011, "compute_90"),
        (1, 100, 0x208011, "compute_100f"),
        (8, 80, 0x18011, None),
    ],
)
def test_fatbin_entry_names(kind: int, arch: int, flags: int, name: str | None) -> None:
    assert fatbin.arch_name(kind, arch, flags) == name


def test_fatbin_architecture_order() -> None:
    names = ["compute_90", "sm_100", "sm_90a", "sm_80", "sm_90"]
    assert sorted(names, key=fatbin.sort_key) == ["sm_80", "sm_90", "compute_90", "sm_90a", "sm_100"]


def test_egg_info_installs_are_attributed(tmp_path: Path) -> None:
    egg = tmp_path / "legacy-1.2.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: legacy\nVersion: 1.2\n\n", encoding="utf-8")
    (egg / "installed-files.txt").write_text("../legacy/_ext.so\n../legacy/__init__.py\n", encoding="utf-8")
    owners = extensions.record_owners(str(tmp_path))
    assert owners == {str(tmp_path / "legacy" / "_ext.so"): [("legacy", "1.2")]}
