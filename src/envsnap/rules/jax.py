"""jax, jaxlib and the CUDA/ROCm plugins must come from matching releases (docs/compat-rules.md B6.4).

JAX refuses a jaxlib newer than itself ("jaxlib version X is newer than and incompatible with jax
version Y"); ``jax[cuda12]`` pins ``jax-cuda12-plugin>=<jaxlib>,<=<jax>``, and each plugin pins its
PJRT wheel to exactly its own version. A plugin from another release fails to load, and JAX then
falls back to the CPU with only a log line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rules import facts
from envsnap.rules.base import ev, finding, rule, version
from envsnap.snapshot.model import Evidence, Finding, Snapshot

ID = "jax-plugin-version-mismatch"
SOURCE = "https://docs.jax.dev/en/latest/installation.html"

_PLUGIN = re.compile(r"^jax-(cuda|rocm)(\d+)-(plugin|pjrt)$")


def _versions(snapshot: Snapshot) -> tuple[Version | None, Version | None]:
    jax_dist, jaxlib_dist = facts.package(snapshot, "jax"), facts.package(snapshot, "jaxlib")
    info = snapshot.frameworks.jax if snapshot.frameworks else None
    jax_v = version(jax_dist.version if jax_dist else info.version if info and info.ok else None)
    jaxlib_v = version(
        jaxlib_dist.version if jaxlib_dist else info.jaxlib_version if info and info.ok else None
    )
    # jax compares releases: a local tag ("0.4.26+cuda12.cudnn89", jaxlib's CUDA wheels before 0.4.30)
    # names the build, and PEP 440 would sort it above the same release of jax
    return _public(jax_v), _public(jaxlib_v)


def _public(parsed: Version | None) -> Version | None:
    return Version(parsed.public) if parsed is not None and parsed.local else parsed


@rule(ID)
def jax_plugins(snapshot: Snapshot) -> Iterator[Finding]:
    """jaxlib newer than jax, a plugin outside [jaxlib, jax], or a PJRT wheel of another version."""
    jax_v, jaxlib_v = _versions(snapshot)
    if jax_v is None:
        return
    base: list[Evidence] = [ev("packages[jax].version", str(jax_v))]
    if jaxlib_v is not None:
        base.append(ev("packages[jaxlib].version", str(jaxlib_v)))
        if jaxlib_v > jax_v:
            yield finding(
                ID,
                "error",
                f"jaxlib {jaxlib_v} is newer than and incompatible with jax {jax_v}",
                f"Install matching releases: `pip install 'jax=={jaxlib_v}' 'jaxlib=={jaxlib_v}'`.",
                SOURCE,
                base,
            )
    plugins: dict[tuple[str, str], dict[str, Version]] = {}
    for package in snapshot.packages or ():
        match = _PLUGIN.match(canonicalize_name(package.name))
        parsed = version(package.version)
        if match and parsed is not None:
            plugins.setdefault((match.group(1), match.group(2)), {})[match.group(3)] = parsed
    for (vendor, major), parts in sorted(plugins.items()):
        name = f"jax-{vendor}{major}-plugin"
        plugin = parts.get("plugin")
        pjrt = parts.get("pjrt")
        if plugin is not None and (plugin > jax_v or (jaxlib_v is not None and plugin < jaxlib_v)):
            low = f"{jaxlib_v}" if jaxlib_v is not None else "jaxlib"
            yield finding(
                ID,
                "error",
                f"{name} {plugin} is outside the range jax {jax_v} accepts ({low} ≤ plugin ≤ {jax_v}): "
                "JAX falls back to the CPU",
                f"Reinstall the plugin with jax: `pip install 'jax[{vendor}{major}]=={jax_v}'`.",
                SOURCE,
                [*base, ev(f"packages[{name}].version", str(plugin))],
            )
        if plugin is not None and pjrt is not None and pjrt != plugin:
            pjrt_name = f"jax-{vendor}{major}-pjrt"
            yield finding(
                ID,
                "error",
                f"{pjrt_name} {pjrt} does not match {name} {plugin} (each plugin needs its own PJRT release)",
                f"`pip install '{name}=={plugin}' '{pjrt_name}=={plugin}'`.",
                SOURCE,
                [
                    ev(f"packages[{name}].version", str(plugin)),
                    ev(f"packages[{pjrt_name}].version", str(pjrt)),
                ],
            )
