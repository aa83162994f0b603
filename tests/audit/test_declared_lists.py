"""What a project declares comes from its dependency lists only (build.py's ``declared`` facts).

A quoted string elsewhere in pyproject.toml or setup.py (a version, a linter's rule codes) is no
requirement: before, ``version = "0.1.0"`` and ``select = ["E", "F"]`` declared "0-1-0", "e" and "f",
so a project with no requirements at all looked like one that never names its guarded import, and
that import's risk was lowered twice (review of the round 9–11 change).
"""

from __future__ import annotations

from envsnap.audit.scanners.build import scan_build


def _declared(text: str, name: str = "pyproject.toml") -> list[str]:
    return [s.subject for s in scan_build(name, text, "build") if s.kind == "declared"]


def test_versions_and_linter_codes_declare_nothing() -> None:
    text = '[project]\nname = "x"\nversion = "0.1.0"\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
    assert _declared(text) == []


def test_a_dependencies_array_declares_each_package() -> None:
    text = (
        '[build-system]\nrequires = ["setuptools>=61"]\n\n[project]\nname = "x"\nversion = "0.1.0"\n'
        'dependencies = [\n  "numpy>=1.24",\n  "einops[torch]",\n]\nreadme = "README.md"\n'
        '[project.optional-dependencies]\ndocs = ["sphinx"]\n[tool.ruff.lint]\nselect = ["E"]\n'
    )
    assert _declared(text) == ["setuptools", "numpy", "einops", "sphinx"]


def test_setup_py_install_requires_and_a_requirements_variable_declare() -> None:
    text = (
        'REQUIREMENTS = [\n    "scipy",\n]\nsetup(\n    name="x",\n    version="1.2",\n'
        '    install_requires=["tqdm", "pyyaml"],\n    classifiers=["Programming Language :: Python"],\n)\n'
    )
    assert _declared(text, "setup.py") == ["scipy", "tqdm", "pyyaml"]
