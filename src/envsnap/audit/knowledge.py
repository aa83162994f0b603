"""The audit's knowledge tables (``audit/data/*.yaml``), typed and read once.

Like ``rules/knowledge.py``: data, not code, so a package swap or a new wheel index is a row to
edit; every row names its source, and a malformed row fails the test suite (msgspec conversion
with unknown fields forbidden), not a user's run.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

import msgspec
import yaml

from envsnap.audit.model import Effort, Risk, TargetKind

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DATA_FILES = ("alternatives", "targets")


class _Row(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Swap(_Row, frozen=True, kw_only=True):
    """What a CUDA-only package means on one target, and what replaces it."""

    effort: Effort
    risk: Risk
    replacement: str
    source: str
    meaning: str | None = None
    """What using the package means on the target, where "CUDA-only as used here" is not it (a framework
    that runs there through an experimental plugin)."""
    pinned_risk: Risk | None = None
    """The risk where the project pins the package exactly: the target's build is another distribution
    released at its vendor's versions only (tensorflow-rocm), so the pin is matched or lifted by hand."""


class Alternative(_Row, frozen=True, kw_only=True):
    """A CUDA-only package: how to recognise it, and its swap per target."""

    key: str
    name: str
    imports: tuple[str, ...]
    what: str
    targets: dict[str, Swap]
    min_version: dict[str, str] | None = None
    framework: bool = False
    """A framework (JAX), not a CUDA-only package: its findings are ``framework-*``, not ``cuda-only-*``."""
    torch_based: bool = False
    """Built on PyTorch (Lightning): its findings stand in a project that drives PyTorch devices itself."""
    data_pipeline: bool = False
    """Beside another framework (JAX): the input pipeline, not the compute path (TensorFlow's tf.data)."""
    device_backend: str | None = None
    """The target kind this package is the device backend of (IPEX: ``xpu``): on other GPUs, code that
    imports it only inside a function is that device's path, never loaded unless asked for that device."""

    @property
    def regex(self) -> re.Pattern[str]:
        """The distribution-name pattern, compiled."""
        return _compiled(self.name)

    def swap(self, kind: TargetKind) -> Swap | None:
        """The swap for a target kind (``other`` stands for every kind not listed)."""
        return self.targets.get(kind) or self.targets.get("other")


class DtypeNote(_Row, frozen=True, kw_only=True):
    """How well a target supports a dtype."""

    dtype: str
    target: str
    support: str
    note: str
    source: str


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.cache
def raw(name: str) -> Any:
    """One data file as plain data (parsed once per process)."""
    text = (
        resources.files("envsnap.audit").joinpath("data").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    )
    return yaml.load(text, Loader=_Loader)


@functools.cache
def alternatives() -> tuple[Alternative, ...]:
    """Every CUDA-only package row."""
    return msgspec.convert(raw("alternatives")["packages"], tuple[Alternative, ...])


def alternative_for_import(module: str) -> Alternative | None:
    """The package row an import (``flash_attn.flash_attn_interface``) belongs to: the row naming the
    longest prefix of it, so that ``mmcv.ops.ball_query`` (a CUDA-only op) is not read as ``mmcv.ops``."""
    rows = _rows_by_import()
    while True:
        if (row := rows.get(module)) is not None:
            return row
        if "." not in module:
            return None
        module = module.rsplit(".", 1)[0]


@functools.cache
def _rows_by_import() -> dict[str, Alternative]:
    """Each import name's row, the first row naming it (a lookup per dotted prefix: the scan of
    transformers asks 2,700 times, and a pass over every row's names cost it 0.3 s)."""
    rows: dict[str, Alternative] = {}
    for row in alternatives():
        for name in row.imports:
            rows.setdefault(name, row)
    return rows


def alternative_by_key(key: str) -> Alternative | None:
    """The package row of a knowledge key (a signal's ``package=`` fact)."""
    return next((row for row in alternatives() if row.key == key), None)


def alternative_for_distribution(name: str) -> Alternative | None:
    """The package row a distribution name (PEP 503 normalized) belongs to."""
    return next((row for row in alternatives() if row.regex.match(name)), None)


def trigger_modules() -> frozenset[str]:
    """Top-level module names of every package in the table (the scanner's import filter)."""
    return frozenset(name.split(".")[0] for row in alternatives() for name in row.imports)


@functools.cache
def apex_trap() -> tuple[tuple[str, ...], str]:
    """The PyPI versions of the unrelated ``apex`` package, and the source."""
    row = raw("alternatives")["apex_trap"]
    return tuple(str(v) for v in row["pypi_versions"]), str(row["source"])


@functools.cache
def cuda_library_wheels() -> tuple[re.Pattern[str], str]:
    """The pattern of NVIDIA CUDA library wheels, and the source."""
    row = raw("alternatives")["cuda_library_wheels"]
    return re.compile(str(row["name"])), str(row["source"])


def wheel(kind: str) -> dict[str, Any]:
    """The wheel-index row of a target kind (``index``, ``source``, maybe ``first_torch``)."""
    row = raw("targets")["wheels"][kind]
    assert isinstance(row, dict)
    return row


def source(key: str) -> str:
    """The source URL of a one-fact entry of targets.yaml (``rocm_reuses_cuda_api``, ...)."""
    table = raw("targets")
    entry = table[key] if key in table else table["wheels"][key]
    return str(entry["source"])


@functools.cache
def xpu_devices() -> tuple[str, ...]:
    """XPU device names the wheels are built for."""
    return tuple(raw("targets")["xpu_devices"]["names"])


@functools.cache
def dtype_notes() -> tuple[DtypeNote, ...]:
    """Dtype support rows."""
    return msgspec.convert(raw("targets")["dtypes"], tuple[DtypeNote, ...])


def dtype_note(dtype: str, kind: str) -> DtypeNote | None:
    """What a target kind says about a dtype family (``float64``, ``float8``, ``bfloat16``)."""
    return next((row for row in dtype_notes() if row.dtype == dtype and row.target == kind), None)


def wave64(gfx: str) -> bool:
    """Whether a gfx target runs 64-lane wavefronts only (CDNA, GCN)."""
    return gfx.startswith(tuple(raw("targets")["wavefront"]["wave64_prefixes"]))
