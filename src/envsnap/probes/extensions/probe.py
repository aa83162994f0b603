"""The compiled-extension probe: which installed distributions carry code that needs CUDA, ROCm or oneAPI.

Walks the target environment's site-packages for ELF shared objects (``*.so``, ``*.so.*``), maps
each to its distribution through the ``RECORD`` (or ``installed-files.txt``) files, and reads what it
links (DT_NEEDED, DT_RUNPATH/RPATH) and which GPU architectures its fatbins hold. This is how
envsnap knows that a ``flash-attn`` wheel was built for CUDA 12 and sm_80/sm_90 only, whatever its
version string says.

Choices:
- A file counts as **cuda** when it names a CUDA runtime library (libcudart, libcublas[Lt],
  libcudnn*, libnccl, libcuda, libnvrtc, libcufft, libcusparse[Lt], ...) *or* carries a fatbin:
  nvcc links cudart statically by default, leaving no CUDA DT_NEEDED at all. **rocm**: libamdhip64,
  librocblas, libMIOpen, librccl, libhipblas[lt] and the other hip*/roc* libraries. **intel**:
  libze_loader (Level Zero), libsycl, libur_loader, libmkl_sycl*. libOpenCL is left out: it is a
  vendor-neutral loader that CPU runtimes use too.
- Site-packages comes from the target interpreter itself (``site.getsitepackages()``, the user
  site, sysconfig's purelib/platlib), in process when it is envsnap's own; the python probe runs at
  the same time, so its answer cannot be waited for.
- Objects no RECORD names (conda packages, copied files) are attributed to their top-level folder
  and get no version.
- ELF facts are cached by (path, size, mtime_ns) (extension_cache.py); a file that is not ELF is
  rejected after four bytes.
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from envsnap.probes.base import ProbeContext, run_command
from envsnap.probes.extensions import elf_scan, fatbin
from envsnap.probes.extensions.cache import ObjectCache, default_path
from envsnap.snapshot.child_python import code_argv
from envsnap.snapshot.model import ExtensionDistribution, Extensions

_VENDOR_LIBRARIES = (
    (
        "cuda",
        re.compile(
            r"^lib(cudart|cuda|cublas|cublasLt|cudnn\w*|nccl|nvrtc|nvrtc-builtins|cufft|cufftw|curand|cusolver"
            r"|cusolverMg|cusparse|cusparseLt|nvJitLink|cupti|nvToolsExt|cufile|nvshmem_host|nvidia-ml"
            r"|nvinfer\w*|nvonnxparser)\.so"
        ),
    ),
    (
        "rocm",
        re.compile(
            r"^lib(amdhip64|rocblas|MIOpen|rccl|hipblas|hipblaslt|hipfft|hiprand|rocrand|hipsparse|rocsparse"
            r"|hipsolver|rocsolver|hiprtc|hsa-runtime64|roctracer64|roctx64|rocm_smi64|amd_comgr)\.so"
        ),
    ),
    ("intel", re.compile(r"^lib(ze_loader|sycl|ur_loader|mkl_sycl\w*)\.so")),
)
# sys.path[0] ('' or '.') is dropped before anything but the builtin sys is imported, so a json.py
# in the working folder cannot answer for the stdlib.
_SITE_QUERY = """\
import sys
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
import json, site, sysconfig
paths = list(getattr(site, "getsitepackages", list)())
if site.ENABLE_USER_SITE:
    paths.append(site.getusersitepackages())
paths += [sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]
print(json.dumps(paths))
"""

Owner = tuple[str, str | None]


def probe(ctx: ProbeContext) -> Extensions:
    """Scan the target's site-packages for compiled objects that link accelerator libraries.

    Command line equivalent: ``find site-packages -name '*.so*' | xargs readelf -d | grep NEEDED``
    plus ``cuobjdump --list-elf`` for the architectures.
    """
    if not sys.platform.startswith("linux"):
        reason = f"the extension scan reads Linux ELF objects; this is {sys.platform}"
        return Extensions(status="skipped", reason=reason)
    roots = site_directories(ctx)
    if isinstance(roots, str):
        return Extensions(status="failed", reason=roots)
    cache = ObjectCache(default_path())
    found = scan(roots, cache)
    cache.forget_missing(roots, found.seen)
    cache.save()
    return Extensions(
        status="ok",
        scanned_files=found.scanned,
        distributions=found.distributions(),
        unreadable_files=tuple(sorted(found.unreadable)) or None,
    )


def site_directories(ctx: ProbeContext) -> list[str] | str:
    """The target's site-packages folders (real paths, existing, in order), or why they are unknown."""
    if ctx.is_own_interpreter:
        paths = own_site_paths()
    else:
        done = run_command(code_argv(ctx.python, _SITE_QUERY), timeout_s=ctx.timeout_s, env=ctx.environ)
        if done.returncode != 0:
            why = done.error or done.stderr.strip()[-300:]
            return f"could not ask {ctx.python} for its site-packages: {why}"
        try:
            paths = [str(path) for path in json.loads(done.stdout) if path]
        except (ValueError, TypeError):
            return f"{ctx.python} gave no readable site-packages list"
    unique: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in unique:
            unique.append(real)
    return unique


def own_site_paths() -> list[str]:
    """What ``_SITE_QUERY`` prints, for envsnap's own interpreter."""
    import site
    import sysconfig

    paths = list(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE:
        paths.append(site.getusersitepackages())
    return [*paths, sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]


def is_shared_object_name(name: str) -> bool:
    return name.endswith(".so") or ".so." in name


def vendor_of(library: str) -> str | None:
    """``cuda`` for ``libcudart.so.12``, ``rocm`` for ``libamdhip64.so.6``, None for ``libc.so.6``."""
    for vendor, pattern in _VENDOR_LIBRARIES:
        if pattern.match(library):
            return vendor
    return None


@dataclass
class _Distribution:
    files: int = 0
    vendors: set[str] = field(default_factory=set)
    libraries: set[str] = field(default_factory=set)
    archs: set[str] = field(default_factory=set)
    runpaths: set[str] = field(default_factory=set)


@dataclass
class Scan:
    """What a walk over site-packages found."""

    scanned: int = 0
    seen: set[str] = field(default_factory=set)
    unreadable: set[str] = field(default_factory=set)
    found: dict[Owner, _Distribution] = field(default_factory=dict)

    def add(self, owners: list[Owner], facts: elf_scan.ElfFacts) -> None:
        """Count one object's accelerator links for each distribution that owns it."""
        linked = {name: vendor for name in facts.needed if (vendor := vendor_of(name)) is not None}
        vendors = set(linked.values()) | ({"cuda"} if facts.fatbin else set())
        if not vendors:
            return
        for owner in owners:
            entry = self.found.setdefault(owner, _Distribution())
            entry.files += 1
            entry.vendors |= vendors
            entry.libraries |= set(linked)
            entry.archs |= set(facts.archs)
            entry.runpaths |= set(facts.runpath)

    def distributions(self) -> tuple[ExtensionDistribution, ...]:
        ordered = sorted(self.found.items(), key=lambda item: canonicalize_name(item[0][0]))
        return tuple(
            ExtensionDistribution(
                name=name,
                version=version,
                vendors=tuple(sorted(entry.vendors)),
                libraries=tuple(sorted(entry.libraries)),
                files=entry.files,
                sm_archs=tuple(sorted(entry.archs, key=fatbin.sort_key)) or None,
                runpaths=tuple(sorted(entry.runpaths)) or None,
            )
            for (name, version), entry in ordered
        )


def scan(roots: list[str], cache: ObjectCache) -> Scan:
    """Walk every root, reading (or recalling) each shared object once."""
    result = Scan()
    for root in roots:
        owners: dict[str, list[Owner]] | None = None  # RECORDs are read only once an object needs them
        for path in shared_objects(root):
            if path in result.seen:
                continue
            result.seen.add(path)
            try:
                stat = os.stat(path)
                facts = cache.get(path, stat.st_size, stat.st_mtime_ns)
                if facts is None:
                    facts = elf_scan.read_elf(Path(path))
                    cache.put(path, stat.st_size, stat.st_mtime_ns, facts)
            except OSError:
                continue  # unreadable file (permissions, vanished): nothing to say about it
            if not facts.elf:
                continue
            result.scanned += 1
            relative = os.path.relpath(path, root)
            if facts.error is not None:
                result.unreadable.add(relative)
            if not links_accelerator(facts):
                continue
            if owners is None:
                owners = record_owners(root)
            result.add(owners.get(path) or [_folder_owner(relative)], facts)
    return result


def links_accelerator(facts: elf_scan.ElfFacts) -> bool:
    return facts.fatbin or any(vendor_of(name) is not None for name in facts.needed)


def shared_objects(root: str) -> Iterator[str]:
    """Regular files named like shared objects under root; symlinks are skipped (their target is met)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != "__pycache__"]
        for name in files:
            if is_shared_object_name(name):
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    yield path


def record_owners(root: str) -> dict[str, list[Owner]]:
    """Absolute file path → the distributions whose RECORD (or installed-files.txt) lists it."""
    owners: dict[str, list[Owner]] = {}
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:
        return owners
    for entry in entries:
        if entry.name.endswith(".dist-info"):
            listing, base, header = os.path.join(entry.path, "RECORD"), root, "METADATA"
        elif entry.name.endswith(".egg-info"):
            listing, base, header = os.path.join(entry.path, "installed-files.txt"), entry.path, "PKG-INFO"
        else:
            continue
        owner = _name_version(os.path.join(entry.path, header), entry.name)
        for relative in _listed_paths(listing):
            if is_shared_object_name(os.path.basename(relative)):
                owners.setdefault(os.path.normpath(os.path.join(base, relative)), []).append(owner)
    return owners


def _listed_paths(listing: str) -> list[str]:
    """Shared-object paths a RECORD (CSV) or installed-files.txt lists; other lines are not parsed."""
    try:
        with open(listing, encoding="utf-8", errors="replace", newline="") as handle:
            lines = [line for line in handle if ".so" in line]  # torch's RECORD has ~15,000 lines
    except OSError:
        return []
    try:
        return [row[0] for row in csv.reader(lines) if row]
    except csv.Error:
        return []


def _name_version(metadata: str, folder: str) -> Owner:
    """Name and version from the metadata header; from the folder name when that is missing."""
    name = version = None
    try:
        with open(metadata, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                if key == "Name" and name is None:
                    name = value.strip()
                elif key == "Version" and version is None:
                    version = value.strip()
    except OSError:
        pass
    if name is None:
        stem = folder.rsplit(".", 1)[0]
        name, _, from_folder = stem.partition("-")
        version = version or from_folder or None
    return name, version


def _folder_owner(relative: str) -> Owner:
    top = relative.split(os.sep, 1)[0]
    return (top.split(".", 1)[0] if os.sep not in relative else top), None
