"""HIPIFY's CUDA -> HIP table: which CUDA API calls hipify maps to HIP/ROCm, and which it cannot.

The knowledge is ``audit/data/hipify.yaml``, extracted from the public tables of ROCm/HIPIFY
(``scripts/hipify_tables.py`` regenerates it): per library family (CUDA runtime, driver, cuBLAS and
cuBLASLt, cuRAND, cuDNN -> MIOpen) the functions HIP supports, under which name, and the ones it
does not. It is loaded on the first lookup only (a scan without CUDA calls never reads it).

A supported call is mechanical hipify work; an unsupported one is left untranslated by hipify, so
a ROCm build fails until the code around it is rewritten: that is the blocker ``hipify --examine``
reports, and what the audit's inventory lists with its places.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

import msgspec

from envsnap.audit import knowledge

Status = Literal["supported", "deprecated", "unsupported"]
STATUSES: tuple[Status, ...] = ("unsupported", "deprecated", "supported")
"""Most serious first (the order the inventory lists them)."""

TABLES_URL = "https://github.com/ROCm/HIPIFY/blob/{commit}/docs/reference/tables/{table}"

API_CALL = re.compile(r"\b(__curand_umul|make_cuda(?:Extent|PitchedPtr|Pos)|cu[A-Za-z]\w{0,80})\s*\(")
"""A call of a CUDA-library-looking name (``cudaMalloc(``, ``cuModuleLoad (``, ``curand_init(``)."""
_LOOKS_CUDA = re.compile(r"(?:cuda|cublas|cudnn|cufft|cusparse|cusolver|cu)[A-Z]|curand[A-Z_]")
"""Names that look like a CUDA library API even when the table does not list them."""


class Family(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One HIPIFY table, folded (see the header of hipify.yaml)."""

    title: str
    target: str
    table: str
    commit: str
    rename: tuple[str, str]
    variants: tuple[str, ...]
    same: str
    other: dict[str, str]
    deprecated: str
    unsupported: str

    @property
    def source(self) -> str:
        """The table this family was extracted from, at the recorded commit."""
        return TABLES_URL.format(commit=self.commit, table=self.table)


class Api(msgspec.Struct, frozen=True, kw_only=True):
    """A CUDA function as HIPIFY knows it."""

    name: str
    family: str
    status: Status
    hip: str | None
    """The HIP/ROCm name (None when unsupported)."""


@functools.cache
def families() -> dict[str, Family]:
    """Every family of the table, by key (``runtime``, ``driver``, ``cublas``, ``curand``, ``cudnn``)."""
    return msgspec.convert(knowledge.raw("hipify")["families"], dict[str, Family])


@functools.cache
def _table() -> dict[str, Api]:
    table: dict[str, Api] = {}
    for key, family in families().items():
        cuda_prefix, hip_prefix = family.rename
        deprecated = set(family.deprecated.split())
        for name in family.same.split():
            status: Status = "deprecated" if name in deprecated else "supported"
            hip = hip_prefix + name[len(cuda_prefix) :] if name.startswith(cuda_prefix) else name
            table[name] = Api(name=name, family=key, status=status, hip=hip)
        for name, hip in family.other.items():
            status = "deprecated" if name in deprecated else "supported"
            table[name] = Api(name=name, family=key, status=status, hip=hip)
        for name in family.unsupported.split():
            table[name] = Api(name=name, family=key, status="unsupported", hip=None)
    return table


@functools.lru_cache(maxsize=4096)
def lookup(name: str) -> Api | None:
    """What HIPIFY says of ``name``, or None when no table lists it.

    A variant the table folds into its base (``cublasSgemm_v2_64``, ``cuMemAlloc_v2``) has the base's
    support: the same HIP name, plus ``_64`` for cuBLAS's 64-bit-integer variants.
    """
    table = _table()
    found = table.get(name)
    if found is not None:
        return found
    for key, family in families().items():
        for suffix in sorted(family.variants, key=len, reverse=True):
            if not name.endswith(suffix):
                continue
            base = table.get(name[: -len(suffix)])
            if base is None or base.family != key:
                continue
            hip = None if base.hip is None else base.hip + ("_64" if suffix.endswith("_64") else "")
            return Api(name=name, family=key, status=base.status, hip=hip)
    return None


def looks_like_cuda(name: str) -> bool:
    """Whether a name the table does not list still reads as a CUDA library call (``cudaCheck``)."""
    return bool(_LOOKS_CUDA.match(name))


def source(family: str) -> str:
    """The HIPIFY table URL of a family."""
    return families()[family].source
