"""The Python distribution layer: two distributions fighting over one import, and unmet requirements.

``onnxruntime`` + ``onnxruntime-gpu`` (or the four opencv-python flavours) install into the same
package directory; whichever was installed last wins file by file, and CUDA support silently
disappears. Unmet Requires-Dist is what ``pip check`` reports, computed here from the snapshot so
it also works on a snapshot from another machine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from packaging.utils import canonicalize_name

from envsnap.rules import knowledge
from envsnap.rules.base import ev, finding, rule
from envsnap.rules.requirements import dependencies, marker_environment, satisfied
from envsnap.rules.wheels import is_bundled_cuda_pin, is_companion_torch_pin, requirement_text
from envsnap.snapshot.model import Evidence, Finding, Package, Snapshot

DUPLICATE_SOURCE = "https://github.com/microsoft/onnxruntime/issues/26996"
PIP_CHECK_SOURCE = "https://pip.pypa.io/en/stable/cli/pip_check/"


def _providers(snapshot: Snapshot) -> dict[str, list[Package]]:
    """Import name -> distributions that install it (from top_level, else the known conflict table)."""
    providers: dict[str, list[Package]] = defaultdict(list)
    namespaces = knowledge.namespace_imports()
    for package in snapshot.packages or ():
        if package.top_level is not None:
            for name in package.top_level:
                if name and not name.startswith("_") and name not in namespaces:
                    providers[name].append(package)
            continue
        canonical = canonicalize_name(package.name)
        for conflict in knowledge.import_conflicts():
            if conflict.regex.search(canonical):
                providers[conflict.import_].append(package)
    return providers


@rule("duplicate-distributions")
def duplicate_distributions(snapshot: Snapshot) -> Iterator[Finding]:
    """Several distributions provide one import package, or one distribution is installed twice."""
    reported = set()
    for name, owners in sorted(_providers(snapshot).items()):
        distinct = {canonicalize_name(p.name): p for p in owners}
        if len(distinct) < 2:
            continue
        reported.add(name)
        listed = ", ".join(f"{p.name} {p.version}" for p in distinct.values())
        keep = _keep(list(distinct.values()))
        remove = " ".join(p.name for p in distinct.values())
        yield finding(
            "duplicate-distributions",
            "warning",
            f"{len(distinct)} distributions install the '{name}' package ({listed}): the last one installed "
            "overwrites the others' files",
            f"`pip uninstall -y {remove}` then `pip install {keep}` (only one of them).",
            _source(name),
            [ev(f"packages[{p.name}].top_level", list(p.top_level or [name])) for p in distinct.values()],
        )
    if "onnxruntime" not in reported:
        yield from _onnxruntime_says_so(snapshot)
    yield from _same_name_twice(snapshot)
    yield from _shadowed(snapshot)


def _onnxruntime_says_so(snapshot: Snapshot) -> Iterator[Finding]:
    """The framework probe saw several onnxruntime distributions (the package list may lack top_level)."""
    ort = snapshot.frameworks.onnxruntime if snapshot.frameworks else None
    found = ort.distributions or () if ort is not None and ort.ok else ()
    if len(found) < 2:
        return
    names = [entry.split("==")[0] for entry in found]
    keep = "onnxruntime-gpu" if "onnxruntime-gpu" in names else names[-1]
    yield finding(
        "duplicate-distributions",
        "warning",
        f"{len(found)} distributions install the 'onnxruntime' package ({', '.join(found)}): the last one "
        "installed overwrites the others' files",
        f"`pip uninstall -y {' '.join(names)}` then `pip install {keep}` (only one of them).",
        DUPLICATE_SOURCE,
        [ev("frameworks.onnxruntime.distributions", list(found))],
    )


def _keep(owners: list[Package]) -> str:
    """Prefer the GPU/full flavour when one of the candidates is it."""
    names = [p.name for p in owners]
    # contrib is a superset of the main modules; headless suits servers.
    for preferred in (
        "onnxruntime-gpu",
        "opencv-contrib-python-headless",
        "opencv-contrib-python",
        "opencv-python-headless",
    ):
        if preferred in names:
            return preferred
    return names[-1]


def _source(import_name: str) -> str:
    conflict = next((c for c in knowledge.import_conflicts() if c.import_ == import_name), None)
    return conflict.source if conflict is not None else DUPLICATE_SOURCE


def _same_name_twice(snapshot: Snapshot) -> Iterator[Finding]:
    """One distribution recorded twice (e.g. conda's pytorch and pip's torch in one env)."""
    seen: dict[str, list[Package]] = defaultdict(list)
    for package in snapshot.packages or ():
        name: str = canonicalize_name(package.name)
        # conda's "pytorch" is pip's "torch": both in one report are one install listed twice, or two
        seen["torch" if name == "pytorch" and package.installer == "conda" else name].append(package)
    for name, copies in sorted(seen.items()):
        if len(copies) < 2:
            continue
        if name == "torch" and len({_base(p.version) for p in copies}) < 2:
            continue  # pip lists conda's pytorch as torch: the same install, not a second one
        if _listed_by_both(copies):
            continue
        how = ", ".join(f"{p.version} via {p.installer or 'unknown installer'}" for p in copies)
        module = (copies[0].top_level or (name,))[0]
        yield finding(
            "duplicate-distributions",
            "warning",
            f"{copies[0].name} is installed {len(copies)} times ({how})",
            "Keep one: remove the others with the installer that put them there "
            f"(`pip uninstall {copies[0].name}` / `conda remove ...`), then check "
            f"`python -c 'import {module}; print({module}.__file__)'`.",
            DUPLICATE_SOURCE,
            [ev(f"packages[{p.name}].installer", p.installer) for p in copies],
        )


def _listed_by_both(copies: list[Package]) -> bool:
    """One install that pip and conda both list: ``conda list`` shows pip-installed packages too (channel
    ``pypi``), so a report with both lists (torch's collect_env ``[pip3]``/``[conda]`` lines) names each of
    them twice at one version. Two versions, or one installer twice, are two installs."""
    installers = [p.installer for p in copies]
    return (
        len(copies) == 2
        and sorted(installers, key=str) == ["conda", "pip"]
        and len({p.version for p in copies}) == 1
    )


def _base(text: str) -> str:
    return text.split("+", 1)[0]


def _shadowed(snapshot: Snapshot) -> Iterator[Finding]:
    """A second copy later on sys.path: never imported, but confusing and resurrected by uninstalls."""
    py = snapshot.python
    for copy in (py.shadowed or ()) if py is not None and py.ok else ():
        active = next(
            (p for p in snapshot.packages or () if canonicalize_name(p.name) == canonicalize_name(copy.name)),
            None,
        )
        differs = active is not None and active.version != copy.version
        active_text = f"; {active.version} is the one imported" if active is not None else ""
        yield finding(
            "duplicate-distributions",
            "warning" if differs else "info",
            f"A second copy of {copy.name} ({copy.version}) at {copy.location} is shadowed{active_text}",
            f"Remove the unused copy (e.g. `python -m pip uninstall {copy.name}` run with that location's "
            "interpreter, or delete its .dist-info and package directory).",
            DUPLICATE_SOURCE,
            [ev(f"python.shadowed[{copy.name}].location", copy.location)],
        )


@rule("broken-requirements")
def broken_requirements(snapshot: Snapshot) -> Iterator[Finding]:
    """Installed distributions whose requirements are missing or at the wrong version (``pip check``)."""
    installed: dict[str, Package] = {}
    for package in snapshot.packages or ():
        installed.setdefault(canonicalize_name(package.name), package)
    environment = marker_environment(snapshot)
    evidence: list[Evidence] = []
    lines: list[str] = []
    wanted: list[str] = []
    for package in installed.values():
        for dependency in dependencies(package, environment):
            if is_bundled_cuda_pin(dependency) or is_companion_torch_pin(dependency):
                continue  # reported by the dedicated rules with better fixes
            requirement = dependency.requirement
            have = installed.get(canonicalize_name(requirement.name))
            if have is None:
                lines.append(
                    f"{package.name} {package.version} requires {requirement.name}, which is not installed"
                )
            elif not satisfied(requirement, have):
                lines.append(
                    f"{package.name} {package.version} has requirement "
                    f"{requirement.name}{requirement.specifier}, "
                    f"but you have {have.name} {have.version}"
                )
            else:
                continue
            evidence.append(ev(f"packages[{package.name}].requires", dependency.text))
            wanted.append(requirement_text(requirement))
    if not lines:
        return
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    yield finding(
        "broken-requirements",
        "warning",
        f"{len(lines)} unmet requirement{'s' if len(lines) > 1 else ''}: {lines[0]}{more}",
        f"Install what is missing or the versions required (`pip check` lists the same): "
        f"`pip install {' '.join(dict.fromkeys(wanted))}`.",
        PIP_CHECK_SOURCE,
        evidence,
    )
