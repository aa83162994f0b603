"""
Copyright (c) 2024 by FlashInfer team.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

  http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
"""

# NOTE(lequn): Do not "from .jit.env import xxx".
# Do "from .jit import env as jit_env" and use "jit_env.xxx" instead.
# This helps AOT script to override envs.

import functools
import logging
import os
import pathlib
from dataclasses import dataclass
from typing import Any, FrozenSet, Mapping, Optional, Tuple

from ._cuda_architecture import (
    cuda_binary_target_compatibility_score,
)

from ..compilation_context import CompilationContext
from ..version import __version__ as flashinfer_version

# NOTE: use stdlib logging (namespaced under flashinfer.jit) instead of the
# FlashInferJITLogger from core.py -- core.py imports this module, so importing
# it here would create a circular import. A plain warning is fine because
# _get_cubin_dir() only runs once, at module import.
logger = logging.getLogger("flashinfer.jit")


def has_flashinfer_jit_cache() -> bool:
    """
    Check if flashinfer_jit_cache module is available.

    Returns:
        True if flashinfer_jit_cache exists, False otherwise
    """
    import importlib.util

    return importlib.util.find_spec("flashinfer_jit_cache") is not None


def has_flashinfer_cubin() -> bool:
    """
    Check if flashinfer_cubin module is available.

    Returns:
        True if flashinfer_cubin exists, False otherwise
    """
    import importlib.util

    return importlib.util.find_spec("flashinfer_cubin") is not None


FLASHINFER_BASE_DIR: pathlib.Path = pathlib.Path(
    os.getenv("FLASHINFER_WORKSPACE_BASE", pathlib.Path.home().as_posix())
)

FLASHINFER_CACHE_DIR: pathlib.Path = FLASHINFER_BASE_DIR / ".cache" / "flashinfer"
_package_root: pathlib.Path = pathlib.Path(__file__).resolve().parents[1]

_VERSION_MISMATCH_HINT = (
    "Run `flashinfer download-kernels` to install matching kernel wheels, or set "
    "FLASHINFER_DISABLE_VERSION_CHECK=1 to use the installed version anyway."
)


def _check_cubin_version(package_version: str) -> None:
    # NOTE(yiyang): skip version check for editable/source installs where
    # flashinfer_version falls back to "0.0.0+unknown" (no _build_meta.py).
    if (
        not os.getenv("FLASHINFER_DISABLE_VERSION_CHECK")
        and flashinfer_version != "0.0.0+unknown"
        and package_version != flashinfer_version
    ):
        raise RuntimeError(
            f"flashinfer-cubin version ({package_version}) does not match "
            f"flashinfer version ({flashinfer_version}). {_VERSION_MISMATCH_HINT}"
        )


def _get_cubin_dir():
    """
    Get the cubin directory path with the following priority:
    1. Environment variable FLASHINFER_CUBIN_DIR
    2. flashinfer-cubin package if installed and its version matches
    3. Default cache directory
    """
    # First check environment variable
    env_dir = os.getenv("FLASHINFER_CUBIN_DIR")
    if env_dir:
        if has_flashinfer_cubin():
            logger.warning(
                "FLASHINFER_CUBIN_DIR=%s overrides the installed flashinfer-cubin "
                "package; cubins will be read from that path instead of the package.",
                env_dir,
            )
        return pathlib.Path(env_dir)

    # Then check if flashinfer-cubin package is installed
    if has_flashinfer_cubin():
        import flashinfer_cubin

        # NOTE: a mismatched wheel is ignored instead of failing the import. It
        # is usually left behind by a flashinfer-python upgrade, and the CLI
        # command that replaces it (`flashinfer download-kernels`) must import
        # this module first.
        try:
            _check_cubin_version(flashinfer_cubin.__version__)
        except RuntimeError as error:
            logger.warning(
                "Ignoring incompatible flashinfer-cubin package (cubins will be "
                "downloaded on demand to %s): %s",
                FLASHINFER_CACHE_DIR / "cubins",
                error,
            )
        else:
            return pathlib.Path(flashinfer_cubin.get_cubin_dir())

    # Fall back to default cache directory
    return FLASHINFER_CACHE_DIR / "cubins"


FLASHINFER_CUBIN_DIR: pathlib.Path = _get_cubin_dir()


@dataclass(frozen=True)
class AOTProvider:
    """Installed package that owns a set of architecture-specific AOT modules."""

    provider_id: str
    distribution: str
    version: str
    jit_cache_dir: pathlib.Path
    cuda_architectures: FrozenSet[str]
    modules: FrozenSet[str]


@dataclass(frozen=True)
class AOTArtifact:
    """One loadable AOT module and the CUDA targets provided by its wheel."""

    provider_id: str
    path: pathlib.Path
    cuda_architectures: Optional[FrozenSet[str]]


def _check_jit_cache_version(distribution: str, package_version: str) -> None:
    # NOTE(Zihao): jit-cache versions contain a CUDA local-version suffix,
    # for example 0.3.1+cu129, so allow only that suffix after an exact version.
    if (
        not os.getenv("FLASHINFER_DISABLE_VERSION_CHECK")
        and flashinfer_version != "0.0.0+unknown"
        and package_version != flashinfer_version
        and not package_version.startswith(f"{flashinfer_version}+")
    ):
        raise RuntimeError(
            f"{distribution} version ({package_version}) does not match "
            f"flashinfer version ({flashinfer_version}). {_VERSION_MISMATCH_HINT}"
        )


def _check_jit_cache_provider_version(
    distribution: str, package_version: str, shim_version: str
) -> None:
    _check_jit_cache_version(distribution, package_version)
    if (
        not os.getenv("FLASHINFER_DISABLE_VERSION_CHECK")
        and package_version != shim_version
    ):
        raise RuntimeError(
            f"{distribution} version ({package_version}) does not match "
            f"flashinfer-jit-cache version ({shim_version}). "
            "Please install the same CUDA-specific version of the shim and provider. "
            "Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
        )


def _get_aot_providers() -> Tuple[AOTProvider, ...]:
    """Discover compatible AOT provider packages through the installed shim."""
    if not has_flashinfer_jit_cache():
        return ()

    import flashinfer_jit_cache

    # NOTE: like a mismatched flashinfer-cubin, a mismatched shim is ignored so
    # that `flashinfer download-kernels` can still import FlashInfer to replace it.
    try:
        _check_jit_cache_version(
            "flashinfer-jit-cache", flashinfer_jit_cache.__version__
        )
    except RuntimeError as error:
        logger.warning(
            "Ignoring incompatible flashinfer-jit-cache package (kernels will be "
            "JIT-compiled instead): %s",
            error,
        )
        return ()
    providers = []
    for provider in flashinfer_jit_cache.get_jit_cache_providers():
        try:
            _check_jit_cache_provider_version(
                provider.distribution,
                provider.version,
                flashinfer_jit_cache.__version__,
            )
        except RuntimeError as error:
            logger.warning(
                "Ignoring incompatible flashinfer jit-cache provider %s: %s",
                provider.distribution,
                error,
            )
            continue
        providers.append(
            AOTProvider(
                provider_id=provider.provider_id,
                distribution=provider.distribution,
                version=provider.version,
                jit_cache_dir=pathlib.Path(provider.jit_cache_dir),
                cuda_architectures=frozenset(provider.cuda_architectures),
                modules=frozenset(provider.modules),
            )
        )
    return tuple(providers)


FLASHINFER_AOT_DIR: pathlib.Path = _package_root / "data" / "aot"
FLASHINFER_AOT_PROVIDERS = _get_aot_providers()
FLASHINFER_AOT_DIRS: Tuple[pathlib.Path, ...] = (FLASHINFER_AOT_DIR,) + tuple(
    provider.jit_cache_dir for provider in FLASHINFER_AOT_PROVIDERS
)


def _target_cuda_architectures() -> FrozenSet[str]:
    compilation_context = CompilationContext()
    return frozenset(
        f"sm{major}{minor}" for major, minor in compilation_context.TARGET_CUDA_ARCHS
    )


def _provider_covers_targets(
    provider_architectures: FrozenSet[str], target_architectures: FrozenSet[str]
) -> bool:
    """Return whether provider targets can execute on every active CUDA target."""
    return (
        _provider_compatibility_score(provider_architectures, target_architectures)
        is not None
    )


def _provider_compatibility_score(
    provider_architectures: FrozenSet[str], target_architectures: FrozenSet[str]
) -> tuple[tuple[int, int], ...] | None:
    """Score a provider, preferring exact and newer compatible targets."""
    scores = []
    for target in sorted(target_architectures):
        compatible_scores = [
            score
            for architecture in provider_architectures
            if (score := cuda_binary_target_compatibility_score(architecture, target))
            is not None
        ]
        if not compatible_scores:
            return None
        scores.append(max(compatible_scores))
    return tuple(sorted(scores))


def _provider_target_compatibility_score(
    provider_architectures: FrozenSet[str], target_architecture: str
) -> tuple[int, int] | None:
    scores = [
        score
        for architecture in provider_architectures
        if (
            score := cuda_binary_target_compatibility_score(
                architecture, target_architecture
            )
        )
        is not None
    ]
    return max(scores) if scores else None


def get_aot_artifacts(module_name: str) -> Tuple[AOTArtifact, ...]:
    """Resolve the best installed AOT artifact for each visible CUDA target."""
    fallback_path = FLASHINFER_AOT_DIR / module_name / f"{module_name}.so"
    if fallback_path.exists():
        return (AOTArtifact("flashinfer-python", fallback_path, None),)

    target_architectures = _target_cuda_architectures()
    if not target_architectures:
        return ()

    selected = {}
    for target in sorted(target_architectures):
        candidates = []
        for provider in FLASHINFER_AOT_PROVIDERS:
            if module_name not in provider.modules:
                continue
            compatibility_score = _provider_target_compatibility_score(
                provider.cuda_architectures, target
            )
            if compatibility_score is None:
                continue
            provider_path = provider.jit_cache_dir / module_name / f"{module_name}.so"
            if provider_path.exists():
                artifact = AOTArtifact(
                    provider.provider_id,
                    provider_path,
                    provider.cuda_architectures,
                )
                candidates.append((compatibility_score, provider.provider_id, artifact))
        if candidates:
            artifact = max(candidates, key=lambda candidate: candidate[:2])[2]
            selected[(artifact.provider_id, artifact.path)] = artifact
    return tuple(sorted(selected.values(), key=lambda artifact: artifact.provider_id))


def get_aot_path(module_name: str) -> pathlib.Path:
    """Return the primary path for an AOT module, or its stable fallback path."""
    fallback_path = FLASHINFER_AOT_DIR / module_name / f"{module_name}.so"
    artifacts = get_aot_artifacts(module_name)
    return artifacts[0].path if artifacts else fallback_path


@functools.cache
def _cuda_architecture_for_device(device_index: int) -> str:
    import torch

    major, minor = torch.cuda.get_device_capability(device_index)
    major, normalized_minor = CompilationContext._normalize_cuda_arch(major, minor)
    return f"sm{major}{normalized_minor}"


def _cuda_architectures_for_call(
    args: Tuple[Any, ...], kwargs: Mapping[str, Any]
) -> FrozenSet[str]:
    """Return CUDA architectures referenced by call arguments or current device."""
    import torch

    device_indices = set()

    def collect(value: Any) -> None:
        device = getattr(value, "device", None)
        if getattr(device, "type", None) == "cuda":
            index = device.index
            device_indices.add(
                torch.cuda.current_device() if index is None else int(index)
            )
            return
        if isinstance(value, Mapping):
            for item in value.values():
                collect(item)
        elif isinstance(value, (tuple, list)):
            for item in value:
                collect(item)

    collect(args)
    collect(kwargs)
    if not device_indices:
        try:
            device_indices.add(torch.cuda.current_device())
        except Exception:
            return frozenset()
    return frozenset(
        _cuda_architecture_for_device(device_index) for device_index in device_indices
    )


def _get_workspace_dir_name() -> pathlib.Path:
    compilation_context = CompilationContext()
    # NOTE(Zihao): sorted() is crucial here to ensure deterministic directory names.
    # Without it, the same set of CUDA archs could generate different directory names
    # across runs (e.g., "75_80_89" vs "89_75_80"), causing cache fragmentation.
    arch = "_".join(
        f"{major}{minor}"
        for major, minor in sorted(compilation_context.TARGET_CUDA_ARCHS)
    )
    return FLASHINFER_CACHE_DIR / flashinfer_version / arch


# use pathlib
FLASHINFER_WORKSPACE_DIR: pathlib.Path = _get_workspace_dir_name()
FLASHINFER_JIT_DIR: pathlib.Path = FLASHINFER_WORKSPACE_DIR / "cached_ops"
FLASHINFER_GEN_SRC_DIR: pathlib.Path = FLASHINFER_WORKSPACE_DIR / "generated"
FLASHINFER_DATA: pathlib.Path = _package_root / "data"
FLASHINFER_INCLUDE_DIR: pathlib.Path = _package_root / "data" / "include"
FLASHINFER_CSRC_DIR: pathlib.Path = _package_root / "data" / "csrc"
# FLASHINFER_SRC_DIR = _package_root / "data" / "src"
CUTLASS_INCLUDE_DIRS: list[pathlib.Path] = [
    _package_root / "data" / "cutlass" / "include",
    _package_root / "data" / "cutlass" / "tools" / "util" / "include",
]
SPDLOG_INCLUDE_DIR: pathlib.Path = _package_root / "data" / "spdlog" / "include"
CCCL_INCLUDE_DIRS: list[pathlib.Path] = [
    _package_root / "data" / "cccl" / "cub",
    _package_root / "data" / "cccl" / "libcudacxx" / "include",
    _package_root / "data" / "cccl" / "thrust",
]
