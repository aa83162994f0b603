"""The role of a path in a project: core code, or tests/examples/benchmarks/docs/scratch/vendored code.

A finding in ``tests/`` or a community example is real, but it does not decide whether the project
runs on the target: the verdict is set by core code (``--include-tests`` counts the rest too), and the
report lists the others by role. Roles come from the path's folders and the file name, the layout
conventions of Python, C++ and CMake projects (``tests/``, ``test_*.py``, ``examples/``, ``benchmarks/``,
``docs/``, ``third_party/``).
"""

from __future__ import annotations

import functools
import re
from typing import Literal

Role = Literal["core", "tests", "examples", "benchmarks", "docs", "scratch", "vendored"]
ROLES: tuple[Role, ...] = ("core", "tests", "examples", "benchmarks", "docs", "scratch", "vendored")

_FOLDERS: dict[str, Role] = {
    # `_test/`, `_testing/`: test helpers shipped inside a package, private by name (`_tests/`, as
    # cuequivariance_torch has, #22 blind round 141, is one of the _SUFFIXED names below).
    **dict.fromkeys(
        ("tests", "test", "testing", "unittests", "unit_tests", "conftest", "_test", "_testing"), "tests"
    ),
    **dict.fromkeys(
        (
            "examples",
            "example",
            "demo",
            "demos",
            "samples",
            "sample",
            "tutorials",
            "tutorial",
            "notebooks",
            "recipes",
            "community",
            "research_projects",
            "cookbook",
        ),
        "examples",
    ),
    **dict.fromkeys(("benchmarks", "benchmark", "bench", "benches", "perf", "profiling"), "benchmarks"),
    **dict.fromkeys(("docs", "doc", "documentation", "website"), "docs"),
    **dict.fromkeys(
        ("dev", "scratch", "sandbox", "playground", "attic", "archive", "legacy", "old"), "scratch"
    ),
    **dict.fromkeys(
        (
            "third_party",
            "thirdparty",
            "3rdparty",
            "third-party",
            "external",
            "extern",
            "vendor",
            "vendored",
            "deps",
            "submodules",
            "_vendor",
            "contrib_vendor",
        ),
        "vendored",
    ),
}
# `torch_sparse/testing.py` (#22 blind round 212): the devices and dtypes the package's own tests run on.
_TEST_FILE = re.compile(
    r"^(?:test_.*|.*_test|.*_tests|tests?|_?testing|conftest)\.[a-z]+$|^test[A-Z].*\.\w+$"
)
_FILES: tuple[tuple[re.Pattern[str], Role], ...] = (
    (_TEST_FILE, "tests"),
    # `smplpytorch/demo.py` (#22 blind round 103), `example_usage.py`: a script that shows the package in use.
    (re.compile(r"^(?:(?:demo|example)(?:_.*)?|demos|examples|.*_demo|.*_example)\.[a-z]+$"), "examples"),
    # `torch_pruning/utils/benchmark.py` (round 58): latency and memory measurement, not the package's path.
    (re.compile(r"^(?:(?:bench|benchmarks?)(?:_.*)?|.*_benchmark)\.[a-z]+$"), "benchmarks"),
)


def role_of(relative: str) -> Role:
    """The role of a project-relative POSIX path (the first folder that names a role wins)."""
    folder, _, name = relative.rpartition("/")
    role = _folder_role(folder)
    if role is not None:
        return role
    for pattern, file_role in _FILES:
        if pattern.match(name):
            return file_role
    return "core"


_SUFFIXED: tuple[tuple[str, Role], ...] = (
    ("_examples", "examples"),
    ("_example", "examples"),
    ("_demos", "examples"),
    ("_tests", "tests"),
    ("_benchmarks", "benchmarks"),
)
"""Folders named for what they hold: ParaAttention 0.3.38's ``parallel_examples/`` and
``first_block_cache_examples/`` (#22 blind round 157) are example scripts, as ``examples/`` is."""


@functools.lru_cache(maxsize=4096)
def _folder_role(folder: str) -> Role | None:
    """The role the first role-naming folder on this path gives (a tree's files share folders)."""
    for part in folder.lower().split("/"):
        role = _FOLDERS.get(part) or next((r for suffix, r in _SUFFIXED if part.endswith(suffix)), None)
        if role is not None:
            return role
    return None
