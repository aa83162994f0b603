"""jax-plugin-version-mismatch."""

from __future__ import annotations

from envsnap.rules import jax
from envsnap.snapshot.model import Frameworks, JaxInfo, Package
from tests.rules.conftest import package, snapshot

# jax 0.10.2 is the newest release compat-rules.md saw; plugins follow jaxlib's version.
MATCHED = (
    package("jax", "0.10.2"),
    package("jaxlib", "0.10.2"),
    package("jax-cuda13-plugin", "0.10.2"),
    package("jax-cuda13-pjrt", "0.10.2"),
)


def _with(version: str, *names: str) -> tuple[Package, ...]:
    return tuple(package(p.name, version) if p.name in names else p for p in MATCHED)


def test_matching_releases_are_fine() -> None:
    assert list(jax.jax_plugins(snapshot(packages=MATCHED))) == []


def test_plugin_newer_than_jax() -> None:
    (found,) = jax.jax_plugins(snapshot(packages=_with("0.10.3", "jax-cuda13-plugin", "jax-cuda13-pjrt")))
    assert found.id == "jax-plugin-version-mismatch"
    assert found.severity == "error"
    assert "jax-cuda13-plugin 0.10.3 is outside the range" in found.title
    assert "pip install 'jax[cuda13]==0.10.2'" in found.fix


def test_jaxlib_newer_than_jax() -> None:
    found = list(jax.jax_plugins(snapshot(packages=_with("0.10.3", "jaxlib"))))
    assert "jaxlib 0.10.3 is newer than and incompatible with jax 0.10.2" in found[0].title


def test_pjrt_of_another_release() -> None:
    (found,) = jax.jax_plugins(snapshot(packages=_with("0.10.1", "jax-cuda13-pjrt")))
    assert "jax-cuda13-pjrt 0.10.1 does not match jax-cuda13-plugin 0.10.2" in found.title


def test_versions_from_the_framework_section_when_packages_are_absent() -> None:
    info = JaxInfo(status="ok", version="0.10.2", jaxlib_version="0.10.3")
    (found,) = jax.jax_plugins(snapshot(frameworks=Frameworks(jax=info)))
    assert "jaxlib 0.10.3" in found.title
    assert list(jax.jax_plugins(snapshot())) == []
