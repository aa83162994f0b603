"""What an interpreter knows about itself: version, environment kind and every installed distribution.

This file runs *inside the probed interpreter* (``envsnap save --python PATH``), as a script fed to
that interpreter, so it must stay standard-library only and valid on Python >= 3.8: no envsnap
imports, no third-party imports, no syntax or APIs newer than 3.8. When the target is envsnap's own
interpreter, python_env.py imports it and calls ``collect()`` in-process instead.

Why not ``pip list``: spawning pip costs 150-350 ms, and parsing whole METADATA files with the
email parser is slow too. Reading only the header block (up to the first blank line) of each
distribution's METADATA gives everything we keep, about 5x faster (103 distributions on the
development machine: 3 ms against 15 ms; see benchmarks/bench_packages_probe.py for the probe).

Which copy counts: distributions are enumerated in ``sys.path`` order, exactly as the import system
searches; when a name (PEP 503-normalized) shows up again later on the path, Python never imports
that copy, so it is reported under ``shadowed`` instead of in the package list.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import re
import site
import sys
from collections.abc import Iterable
from importlib import metadata
from typing import Any

_NORMALIZE = re.compile(r"[-_.]+")
_SKIPPED_TOP_DIRS = ("__pycache__", "bin", "Scripts")
_METADATA_DIRS = (".dist-info", ".egg-info", ".data")


def collect() -> dict[str, Any]:
    """Describe the running interpreter and its installed distributions.

    Returns:
        ``{"python": {...}, "packages": [...]}`` with the keys of envsnap's ``PythonEnv`` (less
        ``status``) and ``Package`` models; absent facts are left out rather than set to None.
    """
    packages, shadowed = _distributions()
    python = _interpreter()
    python["shadowed"] = shadowed
    return {"python": python, "packages": packages}


# ---------------------------------------------------------------------------- interpreter


def _interpreter() -> dict[str, Any]:
    prefix = sys.prefix
    base_prefix = getattr(sys, "base_prefix", prefix)
    kind, name = _env_kind(prefix, base_prefix)
    info: dict[str, Any] = {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "prefix": prefix,
        "base_prefix": base_prefix,
        "env_kind": kind,
        "env_name": name,
        "site_packages": _site_dirs(),
    }
    return {key: value for key, value in info.items() if value not in (None, "")}


def _env_kind(prefix: str, base_prefix: str) -> tuple[str, str | None]:
    """``venv`` / ``conda`` / ``system`` and a short name for the environment."""
    if os.path.realpath(prefix) != os.path.realpath(base_prefix):
        return "venv", _venv_prompt(prefix) or os.path.basename(prefix.rstrip(os.sep))
    conda_prefix = os.environ.get("CONDA_PREFIX")
    activated = bool(conda_prefix) and _same_path(conda_prefix or "", prefix)
    if activated or os.path.isdir(os.path.join(prefix, "conda-meta")):
        # The root install of conda holds envs/ and condabin/; named envs live under envs/<name>.
        is_root = os.path.isdir(os.path.join(prefix, "condabin"))
        return "conda", "base" if is_root else os.path.basename(prefix.rstrip(os.sep))
    return "system", None


def _venv_prompt(prefix: str) -> str | None:
    """The ``prompt`` a venv was created with (``python -m venv --prompt``), if recorded."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, sep, value = line.partition("=")
                if sep and key.strip() == "prompt":
                    return value.strip().strip("'\"") or None
    except OSError:
        pass
    return None


def _same_path(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _site_dirs() -> list[str]:
    """The ``sys.path`` entries that are site-packages folders (system, venv or user), in path order."""
    candidates: list[str] = []
    if hasattr(site, "getsitepackages"):  # the site.py of old virtualenvs lacks it
        candidates.extend(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    wanted = {os.path.normcase(os.path.abspath(path)) for path in candidates}
    found: list[str] = []
    for entry in sys.path:
        if entry and os.path.normcase(os.path.abspath(entry)) in wanted and entry not in found:
            found.append(entry)
    return found


# ---------------------------------------------------------------------------- distributions


def _distributions() -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    packages: list[dict[str, Any]] = []
    shadowed: list[dict[str, str]] = []
    seen: set[str] = set()
    for dist in metadata.distributions():  # sys.path order, like the import system
        folder = getattr(dist, "_path", None)  # PathDistribution: the .dist-info/.egg-info path
        if folder is None:
            continue
        folder = str(folder)
        header = _read_header(folder)
        name = _first(header, "name")
        version = _first(header, "version")
        if not name or version is None:  # no Name: not a usable distribution (pip skips it too)
            continue
        key = _NORMALIZE.sub("-", name).lower()
        if key in seen:
            shadowed.append({"name": name, "version": version, "location": os.path.dirname(folder)})
            continue
        seen.add(key)
        packages.append(_package(folder, name, version, header))
    return packages, shadowed


def _package(folder: str, name: str, version: str, header: list[tuple[str, str]]) -> dict[str, Any]:
    package: dict[str, Any] = {
        "name": name,
        "version": version,
        "requires": [value for key, value in header if key == "requires-dist"],
        "source": _source(_read_json(os.path.join(folder, "direct_url.json"))),
    }
    installer = _read_small(os.path.join(folder, "INSTALLER"))
    if installer:
        package["installer"] = installer.strip()
    top_level = _top_level(folder)
    if top_level is not None:
        package["top_level"] = top_level
    return package


def _read_header(folder: str) -> list[tuple[str, str]]:
    """The header fields of METADATA (or PKG-INFO), lower-cased keys, in file order.

    Only the block up to the first empty line is read: the long description after it can be
    hundreds of kilobytes and is of no use here. Folded lines (starting with a space or tab)
    continue the previous field, as in RFC 822.
    """
    if os.path.isdir(folder):
        candidates = [os.path.join(folder, "METADATA"), os.path.join(folder, "PKG-INFO")]
    else:  # a legacy distutils install leaves a single "name-version.egg-info" file
        candidates = [folder]
    for path in candidates:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return _parse_header(handle)
        except OSError:
            continue
    return []


def _parse_header(lines: Iterable[str]) -> list[tuple[str, str]]:
    fields: list[tuple[str, str]] = []
    for line in lines:
        if not line.rstrip("\r\n"):
            break
        if line[:1] in (" ", "\t"):
            if fields:
                key, value = fields[-1]
                fields[-1] = (key, value + "\n" + line.strip())
            continue
        key, sep, value = line.partition(":")
        if sep:
            fields.append((key.strip().lower(), value.strip()))
    return fields


def _first(header: list[tuple[str, str]], wanted: str) -> str | None:
    for key, value in header:
        if key == wanted:
            return value
    return None


def _source(direct_url: Any) -> dict[str, str]:
    """Map a PEP 610 ``direct_url.json`` to envsnap's PackageSource; no file means an index."""
    if not isinstance(direct_url, dict):
        return {"kind": "index"}
    url = direct_url.get("url")
    source: dict[str, Any] = {"url": url}
    vcs_info = direct_url.get("vcs_info")
    dir_info = direct_url.get("dir_info")
    if isinstance(vcs_info, dict):
        source.update(
            kind="vcs",
            vcs=vcs_info.get("vcs"),
            commit_id=vcs_info.get("commit_id"),
            requested_revision=vcs_info.get("requested_revision"),
        )
    elif isinstance(dir_info, dict):
        source["kind"] = "editable" if dir_info.get("editable") else "file"
    else:  # archive_info: a wheel or sdist given by path or URL
        source["kind"] = "file" if isinstance(url, str) and url.startswith("file:") else "url"
    return {key: value for key, value in source.items() if isinstance(value, str) and value}


def _top_level(folder: str) -> list[str] | None:
    """Import names the distribution provides: top_level.txt, else derived from RECORD."""
    if not os.path.isdir(folder):
        return None
    site_dir = os.path.dirname(folder)
    listed = _read_small(os.path.join(folder, "top_level.txt"))
    if listed is not None:
        names = {line.strip() for line in listed.splitlines() if line.strip()}
        return _namespace_portions(folder, site_dir, names)
    record = _read_small(os.path.join(folder, "RECORD"), limit=1 << 24)
    if record is None:
        return None
    # A big wheel lists tens of thousands of files under a handful of top-level entries:
    # reduce to the distinct entries first (a folder keeps its "/"), then judge each once.
    entries = set()
    for row in csv.reader(record.splitlines()):
        if row:
            head, sep, _ = row[0].replace("\\", "/").partition("/")
            entries.add(head + sep)
    names = set()
    for entry in entries:
        if entry.endswith(".pth"):
            names.update(_names_behind_pth(os.path.join(site_dir, entry)))
        name = _import_name(entry)
        if name:
            names.add(name)
    return _namespace_portions(folder, site_dir, names, record)


def _namespace_portions(folder: str, site_dir: str, names: set[str], record: str | None = None) -> list[str]:
    """Replace each namespace package among ``names`` by the portions this distribution installs in it.

    ``lazr.uri`` and ``lazr.restfulclient`` both list ``lazr`` as their top level, but ``lazr/`` is
    a namespace package (PEP 420: a folder without ``__init__.py``; or a pkg_resources namespace
    named in ``namespace_packages.txt``) that both share by design. Recording ``lazr.uri`` and
    ``lazr.restfulclient`` instead keeps "two distributions install one package" true to the disk,
    for any namespace, not only the ones a table knows.
    """
    declared = _read_small(os.path.join(folder, "namespace_packages.txt")) or ""
    namespaces = {line.strip() for line in declared.splitlines() if line.strip()}
    namespaces.update(
        name
        for name in names
        if os.path.isdir(os.path.join(site_dir, name))
        and not os.path.exists(os.path.join(site_dir, name, "__init__.py"))
    )
    namespaces &= names
    if not namespaces:
        return sorted(names)
    if record is None:
        record = _read_small(os.path.join(folder, "RECORD"), limit=1 << 24) or ""
    portions: set[str] = set()
    for row in csv.reader(record.splitlines()):
        parts = row[0].replace("\\", "/").split("/") if row else []
        if len(parts) >= 2 and parts[0] in namespaces:
            portion = parts[1][: -len(".py")] if parts[1].endswith(".py") else parts[1]
            if portion.isidentifier() and portion != "__init__" and portion != "__pycache__":
                portions.add(f"{parts[0]}.{portion}")
    # A namespace whose portions this distribution doesn't list is shared by design: no evidence.
    return sorted((names - namespaces) | portions)


def _import_name(path: str) -> str | None:
    """The top-level import name a RECORD path contributes, or None (metadata, scripts, data)."""
    path = path.replace("\\", "/")
    if path.startswith(("../", "/")):  # scripts and data installed outside site-packages
        return None
    head, sep, _ = path.partition("/")
    if sep:
        if head.endswith(_METADATA_DIRS) or head in _SKIPPED_TOP_DIRS:
            return None
        name = head
    elif head.endswith(".py"):
        name = head[: -len(".py")]
    elif head.endswith((".so", ".pyd")):  # foo.cpython-311-x86_64-linux-gnu.so -> foo
        name = head.split(".", 1)[0]
    else:  # .pth files, licence files, ...
        return None
    # setuptools' editable installs add a generated "__editable___<dist>_finder" module.
    if not name.isidentifier() or name.startswith("__editable__"):
        return None
    return name


def _names_behind_pth(pth: str) -> list[str]:
    """Import names in the folders a path-based editable install's ``.pth`` file adds to sys.path.

    hatchling and setuptools (compat mode) implement ``pip install -e`` as a ``.pth`` line naming
    the project's source folder, so RECORD itself lists no module at all.
    """
    names: list[str] = []
    for line in (_read_small(pth) or "").splitlines():
        folder = line.strip()
        if not folder or folder.startswith(("#", "import ", "import\t")) or not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            full = os.path.join(folder, entry)
            if os.path.isdir(full):
                if entry.isidentifier() and os.path.isfile(os.path.join(full, "__init__.py")):
                    names.append(entry)
            else:
                name = _import_name(entry)
                if name:
                    names.append(name)
    return names


def _read_small(path: str, limit: int = 1 << 20) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(limit)
    except OSError:
        return None


def _read_json(path: str) -> Any:
    text = _read_small(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


if __name__ == "__main__":
    # The last line of stdout is the report, so a chatty sitecustomize cannot corrupt it.
    sys.stdout.write("\n" + json.dumps(collect()) + "\n")
