"""A second reader's levels (tests/data/projects/second-reader.yaml) against the index's and envsnap's.

Two careful readers, the same scale and trees, agree on most cells but not all; the share they agree on is
the most any audit can score against one of them, and envsnap's agreement with a reader whose answers it
was never fixed on is a check the corpus's own truths cannot give. docs/usage/audit.md ("Two readers")
reports the numbers this prints.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from envsnap.audit.model import RISKS
from tests.audit.conftest import PROJECTS
from tests.audit.test_ports import INDEX, verdict

TARGETS = ("rocm:gfx942", "xpu", "mps")
SECOND: list[dict[str, Any]] = yaml.safe_load((PROJECTS / "second-reader.yaml").read_text(encoding="utf-8"))[
    "projects"
]
FIRST = {row["project"]: row for row in INDEX["projects"]}
AGREEMENT_FLOOR = 0.78
"""envsnap's share of cells equal to the second reader's (231/288 = 80.2% when they were written)."""


def _share(pairs: list[tuple[str, str]]) -> float:
    return sum(a == b for a, b in pairs) / len(pairs)


def test_the_second_reading_covers_held_out_projects_of_the_index() -> None:
    names = [row["project"] for row in SECOND]
    assert len(names) == len(set(names)) == 96
    for row in SECOND:
        first = FIRST[row["project"]]
        assert first["held_out"], f"{row['project']} was drawn from the held-out part"
        assert set(row["expect"]) == set(TARGETS) == set(first["expect"])
        for cell in row["expect"].values():
            assert cell["level"] in RISKS
            assert cell["reason"].strip()


def test_envsnap_agrees_with_a_reader_it_was_never_fixed_on(capsys: pytest.CaptureFixture[str]) -> None:
    first_second: list[tuple[str, str]] = []
    envsnap_first: list[tuple[str, str]] = []
    envsnap_second: list[tuple[str, str]] = []
    per_project: list[tuple[int, int, int]] = []
    for row in SECOND:
        name = row["project"]
        counts = [0, 0, 0]
        for target in TARGETS:
            a = FIRST[name]["expect"][target]["level"]
            b = row["expect"][target]["level"]
            e = verdict(name, target).verdict.risk
            first_second.append((a, b))
            envsnap_first.append((e, a))
            envsnap_second.append((e, b))
            counts[0] += a == b
            counts[1] += e == a
            counts[2] += e == b
            # Two readers never sat two levels apart; neither may envsnap from either.
            assert abs(RISKS.index(e) - RISKS.index(b)) < 2, f"{name} on {target}: {e}, reader said {b}"
        per_project.append((counts[0], counts[1], counts[2]))
    # A 95% interval over projects (cells of one project are not independent draws).
    rng = random.Random(0)
    cells = 3 * len(per_project)
    bounds = []
    for column in range(3):
        shares = sorted(
            sum(rng.choice(per_project)[column] for _ in per_project) / cells for _ in range(2000)
        )
        bounds.append((shares[50], shares[1949]))
    with capsys.disabled():
        for label, pairs, (low, high) in zip(
            ("index truth vs second reader", "envsnap vs index truth", "envsnap vs second reader"),
            (first_second, envsnap_first, envsnap_second),
            bounds,
            strict=True,
        ):
            right = sum(x == y for x, y in pairs)
            print(f"\n{label}: {right}/{len(pairs)} ({right / len(pairs):.1%}, 95% {low:.1%}-{high:.1%})")
    assert _share(envsnap_second) >= AGREEMENT_FLOOR
