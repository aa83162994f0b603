"""The knowledge base: typed, validated views of ``rules/data/*.yaml``, each read once, lazily.

The tables are data so they can be corrected or extended without touching rule code, and every
row carries the URL it came from. They are parsed with PyYAML's safe (C, when available) loader
and converted with msgspec into frozen structs, so a malformed row fails loudly in the test suite
instead of silently at a user's site.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, TypeVar

import msgspec
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

T = TypeVar("T")

DATA_FILES = ("cuda_drivers", "cuda_arch", "torch_wheels", "rocm", "libraries", "packages", "nvidia_gpus")
"""Every knowledge file under rules/data (tests check each row has a source)."""


@functools.cache
def _specifier(text: str) -> SpecifierSet:
    return SpecifierSet(text)


@functools.cache
def _regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


class _Row(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source: str


class DriverMinimum(_Row, frozen=True, kw_only=True):
    """Table 3: the driver a CUDA release needs for full compatibility."""

    cuda: str
    release: str
    linux: str | None
    windows: str | None


class FamilyFloor(_Row, frozen=True, kw_only=True):
    """Table 2: the lowest driver for minor-version compatibility across a CUDA major."""

    family: int
    linux: str | None
    windows: str | None


class SassCompat(_Row, frozen=True, kw_only=True):
    """Where cubins for one compute capability run."""

    code: str
    runs_on: str
    except_: tuple[str, ...] = msgspec.field(name="except")
    also: tuple[str, ...]

    @property
    def spec(self) -> SpecifierSet:
        """``runs_on`` as a specifier set."""
        return _specifier(self.runs_on)


class JetsonUnification(_Row, frozen=True, kw_only=True):
    """CUDA 13.2+ lets some dGPU cubins run on Jetson CCs."""

    from_cuda: str
    codes: tuple[str, ...]
    also_runs_on: tuple[str, ...]


class CudnnFloor(_Row, frozen=True, kw_only=True):
    """cuDNN releases from ``from_cudnn`` on need CC >= ``min_cc``."""

    from_cudnn: str
    min_cc: str


class ArchList(_Row, frozen=True, kw_only=True):
    """TORCH_CUDA_ARCH_LIST of a torch wheel family."""

    torch: str
    variant: str
    machine: str
    list: str


class TorchRelease(_Row, frozen=True, kw_only=True):
    """The CUDA and ROCm variants one torch release publishes."""

    torch: str
    cuda: tuple[str, ...]
    rocm: str | None


class RocmArchList(_Row, frozen=True, kw_only=True):
    """PYTORCH_ROCM_ARCH of torch's ROCm wheels for a ROCm range."""

    rocm: str
    list: str


class GfxSupport(_Row, frozen=True, kw_only=True):
    """gfx targets AMD supports on a range of ROCm releases."""

    rocm: str
    gfx: tuple[str, ...]


class GfxName(_Row, frozen=True, kw_only=True):
    """A gfx target's architecture and example GPUs."""

    gfx: str
    name: str


class BundledLibrary(_Row, frozen=True, kw_only=True):
    """A CUDA library soname stem and the wheels that ship it."""

    lib: str
    wheels: tuple[str, ...]


class NamePattern(_Row, frozen=True, kw_only=True):
    """A regular expression on PEP 503 distribution names."""

    pattern: str
    why: str

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern."""
        return _regex(self.pattern)


class ImportConflict(_Row, frozen=True, kw_only=True):
    """Distributions that all install one import package."""

    import_: str = msgspec.field(name="import")
    pattern: str

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern."""
        return _regex(self.pattern)


class NamespaceImport(_Row, frozen=True, kw_only=True):
    """A top-level import name shared by design."""

    import_: str = msgspec.field(name="import")


class CompanionPair(_Row, frozen=True, kw_only=True):
    """Matching torchvision/torchaudio releases for a torch release."""

    torch: str
    torchvision: str | None
    torchaudio: str | None


class Companions(_Row, frozen=True, kw_only=True):
    """Libraries built against one torch release, and known pairings."""

    names: tuple[str, ...]
    pairs: tuple[CompanionPair, ...]


class NamedCapability(_Row, frozen=True, kw_only=True):
    """GPU product names (a regular expression) with one compute capability."""

    pattern: str
    cc: str
    products: tuple[str, ...] = ()
    """Names as nvidia-smi/torch print them that this row must resolve (checked by the tests)."""

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled, case-insensitive pattern."""
        return _regex(self.pattern, re.IGNORECASE)


class ThrottleReason(_Row, frozen=True, kw_only=True):
    """How much one clock event reason matters."""

    reason: str
    severity: str
    meaning: str


class Datacenter(_Row, frozen=True, kw_only=True):
    """Name patterns of data-center GPUs."""

    patterns: tuple[str, ...]

    @property
    def regex(self) -> re.Pattern[str]:
        """One case-insensitive pattern matching any of them."""
        return _regex("|".join(self.patterns), re.IGNORECASE)


@functools.cache
def raw(name: str) -> Any:
    """One data file as plain YAML data (cached: each file is parsed once per process)."""
    text = (
        resources.files("envsnap.rules").joinpath("data").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    )
    return yaml.load(text, Loader=_Loader)


def _convert(name: str, key: str, kind: type[T]) -> T:
    return msgspec.convert(raw(name)[key], kind)


@functools.cache
def driver_minimums() -> tuple[DriverMinimum, ...]:
    """Table 3 rows, newest first."""
    return _convert("cuda_drivers", "toolkit_minimums", tuple[DriverMinimum, ...])


@functools.cache
def family_floors() -> tuple[FamilyFloor, ...]:
    """Table 2 rows by CUDA major."""
    return _convert("cuda_drivers", "family_floors", tuple[FamilyFloor, ...])


@functools.cache
def forward_compat_source() -> str:
    """Where forward compatibility is documented."""
    return str(raw("cuda_drivers")["forward_compat"]["source"])


@functools.cache
def sass_compat() -> dict[str, SassCompat]:
    """Binary compatibility rows by code CC ("8.0")."""
    return {row.code: row for row in _convert("cuda_arch", "sass", tuple[SassCompat, ...])}


@functools.cache
def jetson_unification() -> JetsonUnification:
    """The CUDA 13.2 Jetson/SBSA unification row."""
    return _convert("cuda_arch", "jetson_unification", JetsonUnification)


@functools.cache
def cudnn_floor() -> CudnnFloor:
    """The cuDNN >= 9.11 / CC >= 7.5 floor."""
    return _convert("cuda_arch", "cudnn_min_cc", CudnnFloor)


@functools.cache
def arch_lists() -> tuple[ArchList, ...]:
    """Torch CUDA wheel arch lists."""
    return _convert("torch_wheels", "arch_lists", tuple[ArchList, ...])


@functools.cache
def torch_releases() -> tuple[TorchRelease, ...]:
    """Variants per torch release."""
    return _convert("torch_wheels", "releases", tuple[TorchRelease, ...])


@functools.cache
def rocm_arch_lists() -> tuple[RocmArchList, ...]:
    """Torch ROCm wheel gfx lists."""
    return _convert("torch_wheels", "rocm_arch_lists", tuple[RocmArchList, ...])


@functools.cache
def gfx_support() -> tuple[GfxSupport, ...]:
    """ROCm gfx support by ROCm range."""
    return _convert("rocm", "gfx_support", tuple[GfxSupport, ...])


@functools.cache
def gfx_names() -> dict[str, GfxName]:
    """gfx target -> architecture and example GPUs."""
    return {row.gfx: row for row in _convert("rocm", "gfx_names", tuple[GfxName, ...])}


@functools.cache
def hsa_override_source() -> str:
    """Where HSA_OVERRIDE_GFX_VERSION is described."""
    return str(raw("rocm")["hsa_override"]["source"])


@functools.cache
def bundled_libraries() -> tuple[BundledLibrary, ...]:
    """CUDA libraries and the wheels that ship them (longest stem first, so libcublasLt wins)."""
    rows = _convert("libraries", "bundled", tuple[BundledLibrary, ...])
    return tuple(sorted(rows, key=lambda row: -len(row.lib)))


@functools.cache
def cuda_only_packages() -> tuple[NamePattern, ...]:
    """Name patterns of CUDA-only distributions."""
    return _convert("packages", "cuda_only", tuple[NamePattern, ...])


@functools.cache
def import_conflicts() -> tuple[ImportConflict, ...]:
    """Distribution families that share one import package."""
    return _convert("packages", "import_conflicts", tuple[ImportConflict, ...])


@functools.cache
def namespace_imports() -> frozenset[str]:
    """Top-level names shared by design."""
    return frozenset(
        row.import_ for row in _convert("packages", "namespace_imports", tuple[NamespaceImport, ...])
    )


@functools.cache
def companions() -> Companions:
    """Torch companion libraries and release pairings."""
    return _convert("packages", "companions", Companions)


@functools.cache
def throttle_reasons() -> dict[str, ThrottleReason]:
    """Clock event reasons that matter, by name."""
    return {
        row.reason: row for row in _convert("nvidia_gpus", "throttle_reasons", tuple[ThrottleReason, ...])
    }


@functools.cache
def compute_capabilities() -> tuple[NamedCapability, ...]:
    """Product-name patterns -> compute capability, for snapshots without NVML's answer."""
    return _convert("nvidia_gpus", "compute_capabilities", tuple[NamedCapability, ...])


@functools.cache
def datacenter() -> Datacenter:
    """Data-center GPU name patterns."""
    return _convert("nvidia_gpus", "datacenter", Datacenter)


@functools.cache
def pcie_busy_percent() -> float:
    """Utilization above which a downshifted PCIe link is a finding."""
    return float(raw("nvidia_gpus")["pcie_busy_percent"])


@functools.cache
def pcie_source() -> str:
    """Where PCIe link generation/width queries are documented."""
    return str(raw("nvidia_gpus")["pcie_source"])


class NamedGfx(_Row, frozen=True, kw_only=True):
    """AMD GPU marketing names (a regular expression) with one LLVM gfx target."""

    pattern: str
    gfx: str
    products: tuple[str, ...] = ()

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled, case-insensitive pattern."""
        return _regex(self.pattern, re.IGNORECASE)


class DriverApiVersion(_Row, frozen=True, kw_only=True):
    """A CUDA driver API version number (1000 * major + 10 * minor) and the CUDA release it names."""

    api: int
    cuda: str


@functools.cache
def gfx_targets() -> tuple[NamedGfx, ...]:
    """AMD marketing-name patterns -> gfx target, first match wins."""
    return _convert("rocm", "gfx_targets", tuple[NamedGfx, ...])


@functools.cache
def driver_api_versions() -> dict[int, DriverApiVersion]:
    """CUDA driver API version (``found version 10010``) -> the CUDA release it stands for."""
    return {
        row.api: row for row in _convert("cuda_drivers", "driver_api_versions", tuple[DriverApiVersion, ...])
    }


@functools.cache
def pypi_torch_cuda(torch_version: str) -> str | None:
    """The CUDA of PyPI's Linux x86_64 wheel of ``torch_version`` (torch_wheels.yaml ``pypi_cuda``)."""
    try:
        release = Version(Version(torch_version).base_version)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return None
    for row in raw("torch_wheels").get("pypi_cuda", ()):
        if release in _specifier(str(row["torch"])):
            return str(row["cuda"])
    return None
