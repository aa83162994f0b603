"""The name and wheel tables, checked whole: every row reachable, none shadowed, every variant covered.

The tables are searched first-match-wins, so a new row with a loose pattern can silently steal
names from a row below it. Each name row therefore lists the product names it exists for, and
every one of them must resolve, through the whole table and the code rules use, to that row.
The real reports in tests/data/reports are used as a second, independent check: wherever a
report states a GPU's compute capability or gfx target next to its name, the table must agree.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envsnap.rules import compat, facts, knowledge
from envsnap.snapshot.model import NvidiaDevice

REPORTS = Path(__file__).resolve().parents[1] / "data" / "reports"


def _nvidia_row(name: str) -> knowledge.NamedCapability | None:
    return next((row for row in knowledge.compute_capabilities() if row.regex.search(name)), None)


def _gfx_row(name: str) -> knowledge.NamedGfx | None:
    return next((row for row in knowledge.gfx_targets() if row.regex.search(name)), None)


# ------------------------------------------------------------------------- NVIDIA names


NVIDIA_ROWS = list(enumerate(knowledge.compute_capabilities()))


@pytest.mark.parametrize(("position", "row"), NVIDIA_ROWS, ids=[f"{r.cc}:{i}" for i, r in NVIDIA_ROWS])
def test_every_nvidia_product_resolves_to_its_own_row(position: int, row: knowledge.NamedCapability) -> None:
    assert row.products, "a row without products cannot be checked for shadowing"
    for product in row.products:
        found = _nvidia_row(product)
        assert found is row, f"{product!r} resolves to {found and found.cc} (row {found and found.pattern!r})"
        # the same answer through the function the rules call, flagged as inferred from the name
        cc, inferred = facts.compute_capability(NvidiaDevice(index=0, name=product))
        assert (cc, inferred) == (Version(row.cc), True), product


def test_nvidia_rows_are_sourced_from_nvidias_pages() -> None:
    pages = {"https://developer.nvidia.com/cuda-gpus", "https://developer.nvidia.com/cuda-legacy-gpus"}
    assert {row.source for row in knowledge.compute_capabilities()} <= pages
    patterns = [row.pattern for row in knowledge.compute_capabilities()]
    assert len(patterns) == len(set(patterns))


def test_nvidia_table_spans_kepler_to_blackwell() -> None:
    ccs = {row.cc for row in knowledge.compute_capabilities()}
    assert {"3.0", "3.5", "3.7", "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5"} <= ccs
    assert {"8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"} <= ccs


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce RTX 3070 Laptop GPU", "8.6"),
        ("NVIDIA GeForce RTX 2050", "8.6"),  # an Ampere part named like Turing
        ("GeForce GTX TITAN X", "5.2"),  # Maxwell, not the Pascal TITAN X
        ("TITAN X (Pascal)", "6.1"),
        ("Jetson Orin Nano", "8.7"),  # not the Maxwell Jetson Nano
        ("GeForce GTX 670M", "2.1"),  # Fermi, not the Kepler desktop GTX 670
        ("GeForce GTX 670", "3.0"),
        ("Quadro M5000M", "5.0"),  # not the desktop Quadro M5000
        ("Quadro M5000", "5.2"),
        ("NVIDIA RTX 5000 Ada Generation", "8.9"),  # not a GeForce RTX 50
        ("NVIDIA RTX A4000", "8.6"),
        ("Quadro RTX 4000", "7.5"),
        ("NVIDIA RTX PRO 4000 Blackwell", "12.0"),
        ("Jetson T4000", "11.0"),  # not a Tesla T4
        ("NVIDIA H20", "9.0"),
        ("NVIDIA H200", "9.0"),
    ],
)
def test_names_that_contain_other_names(name: str, cc: str) -> None:
    row = _nvidia_row(name)
    assert row is not None
    assert row.cc == cc


@pytest.mark.parametrize(
    "name",
    [
        "GeForce GTX 860M",  # Kepler or Maxwell depending on the board
        "GeForce GT 730",  # Fermi or Kepler
        "NVIDIA GeForce ...",  # nvidia-smi cut the name
        "AMD Radeon RX 6800",
        "Device 66a1",
        "",
    ],
)
def test_ambiguous_or_foreign_names_resolve_to_nothing(name: str) -> None:
    assert _nvidia_row(name) is None


# ------------------------------------------------------------------------------ AMD names


AMD_ROWS = list(enumerate(knowledge.gfx_targets()))


@pytest.mark.parametrize(("position", "row"), AMD_ROWS, ids=[f"{r.gfx}:{i}" for i, r in AMD_ROWS])
def test_every_amd_product_resolves_to_its_own_row(position: int, row: knowledge.NamedGfx) -> None:
    assert row.products
    for product in row.products:
        found = _gfx_row(product)
        assert found is row, f"{product!r} resolves to {found and found.gfx}"


def test_amd_rows_are_sourced_and_named() -> None:
    sources = {"https://llvm.org/docs/AMDGPUUsage.html#processors"}
    sources.add("https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html")
    names = knowledge.gfx_names()
    for row in knowledge.gfx_targets():
        assert row.source in sources
        assert re.fullmatch(r"gfx[0-9]{3,4}[a-f]?|gfx9[0-9a-f]{2}", row.gfx), row.gfx
        assert row.gfx in names, f"{row.gfx} has no gfx_names row for messages"
    targets = {row.gfx for row in knowledge.gfx_targets()}
    assert {"gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950"} <= targets
    assert {"gfx1010", "gfx1030", "gfx1031", "gfx1032", "gfx1100", "gfx1101", "gfx1102", "gfx1103"} <= targets
    assert {"gfx1150", "gfx1151", "gfx1200", "gfx1201"} <= targets


@pytest.mark.parametrize(
    ("name", "gfx"),
    [
        ("AMD Radeon RX 6800M", "gfx1031"),  # Navi 22, not the Navi 21 desktop RX 6800
        ("AMD Radeon RX 6800", "gfx1030"),
        ("AMD Radeon RX 7700S", "gfx1102"),  # Navi 33, not the Navi 32 RX 7700
        ("AMD Radeon RX 7700 XT", "gfx1101"),
        ("AMD Instinct MI250X/MI250", "gfx90a"),
        ("AMD Radeon PRO W7800", "gfx1100"),
    ],
)
def test_amd_names_that_contain_other_names(name: str, gfx: str) -> None:
    row = _gfx_row(name)
    assert row is not None
    assert row.gfx == gfx


@pytest.mark.parametrize("name", ["AMD Radeon Graphics", "NVIDIA GeForce RTX 3090", "Device 66a1"])
def test_generic_amd_names_resolve_to_nothing(name: str) -> None:
    assert _gfx_row(name) is None


# ------------------------------------------------------------------------ wheel arch lists


def _arch_rows(release: str, variant: str, machine: str = "x86_64") -> list[knowledge.ArchList]:
    base = Version(Version(release).base_version)  # nightlies and source builds: their release line
    return [
        row
        for row in knowledge.arch_lists()
        if row.variant == variant and row.machine == machine and SpecifierSet(row.torch).contains(base)
    ]


RELEASE_VARIANTS = [(row.torch, variant) for row in knowledge.torch_releases() for variant in row.cuda]


@pytest.mark.parametrize(("release", "variant"), RELEASE_VARIANTS)
def test_every_published_cuda_variant_has_exactly_one_arch_list(release: str, variant: str) -> None:
    rows = _arch_rows(f"{release}.0", variant)
    assert len(rows) == 1, [row.torch for row in rows]
    entries = compat.expand_arch_list(rows[0].list)
    assert entries
    assert all(re.fullmatch(r"(sm|compute)_\d{2,3}", e) for e in entries), entries


def test_releases_reach_back_to_1_0_and_every_rocm_variant_has_a_gfx_list() -> None:
    releases = {row.torch for row in knowledge.torch_releases()}
    assert {f"1.{minor}" for minor in range(14)} | {f"2.{minor}" for minor in range(15)} <= releases
    for row in knowledge.torch_releases():
        if row.rocm is None:
            continue
        rocm = Version(".".join(row.rocm.split(".")[:2]))
        matches = [r for r in knowledge.rocm_arch_lists() if SpecifierSet(r.rocm).contains(rocm)]
        assert len(matches) == 1, (row.torch, row.rocm)


@pytest.mark.parametrize(
    ("version", "variant", "expected_first"),
    [
        ("2.6.0.dev20241112", "cu124", "sm_50"),  # a nightly uses its release line's list
        ("2.1.0a0+git7bcf7da", "cu121", "sm_50"),  # a source-build version string
        ("1.4.0", "cu101", "sm_37"),
        ("1.2.0", "cu100", "sm_35"),
    ],
)
def test_prerelease_and_old_versions_find_their_row(version: str, variant: str, expected_first: str) -> None:
    (row,) = _arch_rows(version, variant)
    assert compat.expand_arch_list(row.list)[0] == expected_first


def test_a_pasted_arch_list_matches_the_table() -> None:
    """DeepPrep#233 pasted torch 2.0.1 (CUDA 11.8)'s own list; the table must give the same one."""
    text = (REPORTS / "deepprep-233-rtx5090-torch2.0.1-cu118-sm37.txt").read_text(encoding="utf-8")
    pasted = re.search(r"supports CUDA capabilities ((?:sm_\d+ ?)+)\.", text)
    assert pasted is not None
    found = compat.wheel_arch_list(Version("2.0.1"), "cu118", "x86_64")
    assert found is not None
    assert found[0] == tuple(pasted.group(1).split())


# ---------------------------------------------------------------------- driver API versions


def test_driver_api_versions_decode_and_join_the_driver_minimums() -> None:
    table = knowledge.driver_api_versions()
    minimum_cudas = {row.cuda for row in knowledge.driver_minimums()}
    for api, row in table.items():
        major, minor = (int(part) for part in row.cuda.split("."))
        assert api == 1000 * major + 10 * minor
        if Version(row.cuda) >= Version("7.0"):
            assert row.cuda in minimum_cudas, f"CUDA {row.cuda} has no driver minimum row"
    # the versions torch printed in the corpus reports
    assert [table[v].cuda for v in (6050, 9000, 10010, 11000, 11040, 11060)] == [
        "6.5",
        "9.0",
        "10.1",
        "11.0",
        "11.4",
        "11.6",
    ]


# ---------------------------------------------------------- the corpus agrees with the tables

_NVIDIA_STATED = [
    # "Found GPU0 GeForce GTX 670M which is of cuda capability 2.1." (torch on ROCm prints the same line
    # for an AMD GPU with a made-up capability: "Found GPU0 Ellesmere [Radeon RX 470/...] ... 3.0")
    re.compile(
        r"Found GPU\d+ (?P<name>(?![^%\n]*\b(?:Radeon|AMD|Ellesmere)\b)[^%\n]+?) "
        r"which is of cuda capability (?P<cc>\d+\.\d+)"
    ),
    # "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible"
    re.compile(
        r"(?P<name>(?:NVIDIA )?(?:GeForce|RTX|Tesla|Quadro)[^\n]*?) with CUDA capability sm_(?P<sm>\d+)"
    ),
]
_NVIDIA_NAMED = [
    re.compile(r"^(?:> )?\s*GPU \d+: (?P<name>.+?)\s*$", re.MULTILINE),  # collect_env
    re.compile(r"^\s*Product Name\s*: (?P<name>.+?)\s*$", re.MULTILINE),  # nvidia-smi -q
    re.compile(r"^\s*\|\s+\d+\s+(?P<name>\S.*?\S)\s{2,}(?:On|Off)\s+\|", re.MULTILINE),  # nvidia-smi table
]


def _report_texts() -> list[tuple[str, str]]:
    return [(p.name, p.read_text(encoding="utf-8")) for p in sorted(REPORTS.glob("*.txt"))]


def test_every_nvidia_gpu_named_in_the_corpus_resolves() -> None:
    seen = 0
    for file, text in _report_texts():
        for pattern in _NVIDIA_NAMED:
            for match in pattern.finditer(text):
                name = match.group("name")
                if "..." in name or name.startswith(("AMD", "Device")):
                    continue  # a cut table name, or not an NVIDIA name
                seen += 1
                assert _nvidia_row(name) is not None, (file, name)
    assert seen >= 30


def test_capabilities_stated_in_the_corpus_agree_with_the_table() -> None:
    seen = 0
    for file, text in _report_texts():
        for pattern in _NVIDIA_STATED:
            for match in pattern.finditer(text):
                stated = match.groupdict()
                cc = stated.get("cc") or f"{int(stated['sm']) // 10}.{int(stated['sm']) % 10}"
                row = _nvidia_row(match.group("name"))
                assert row is not None, (file, match.group(0))
                assert Version(row.cc) == Version(cc), (file, match.group(0))
                seen += 1
    assert seen >= 7


def test_gfx_targets_stated_in_the_corpus_agree_with_the_table() -> None:
    stated = re.compile(r"(?P<name>AMD [^\n(]+?) \((?P<gfx>gfx[0-9a-f]+)[:)]")
    market = re.compile(
        r"MARKET_NAME: (?P<name>.+)\n(?:.*\n){0,12}?\s*TARGET_GRAPHICS_VERSION: (?P<gfx>gfx\w+)"
    )
    seen = 0
    for file, text in _report_texts():
        for match in [*stated.finditer(text), *market.finditer(text)]:
            row = _gfx_row(match.group("name"))
            if row is None:
                # a generic APU name: "AMD Radeon Graphics", or the processor's own name for its iGPU
                # ("AMD Ryzen 3 PRO 2300U w (gfx902)", rocm-arch/python-pytorch-rocm#26)
                generic = "Radeon Graphics" in match.group("name") or "Ryzen" in match.group("name")
                assert generic, (file, match.group(0))
                continue
            assert row.gfx == match.group("gfx"), (file, match.group(0))
            seen += 1
    assert seen >= 6
