"""7. Out-of-range numbers are bad input (exit 2), never an OverflowError; 8. duplicate keys are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.snapshot import store, yaml_text
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli

GOOD = store.dumps(make())


@pytest.mark.parametrize(
    "number",
    ["1" + "0" * 400, "-" + "9" * 30, "9223372036854775808", "1.0e+400", "-1.0e+999", ".inf", ".nan"],
)
def test_an_out_of_range_number_is_refused_with_exit_2(
    number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = GOOD.replace("memory_total_bytes: ", f"memory_total_bytes: {number} #", 1)
    path = tmp_path / "big.yaml"
    path.write_text(text)
    for argv in (["show", str(path)], ["check", str(path)], ["diff", str(path), str(path)]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 2, (argv, err)
        assert "out of range" in err
        assert len(err.strip().splitlines()) == 1


def test_an_absurd_reading_in_nvidia_smi_xml_is_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = sorted(Path("tests/data/nvidia").glob("*.xml"))[0]
    text = fixture.read_text()
    import re

    hostile = re.sub(r"<total>[^<]*</total>", "<total>" + "9" * 400 + " MiB</total>", text, count=1)
    path = tmp_path / "gpus.xml"
    path.write_text(hostile)
    code, out, err = run_cli(capsys, "import", "nvidia-smi-xml", str(path))
    assert code in (0, 2), err
    assert "9" * 50 not in out


@pytest.mark.parametrize(
    ("first", "second"),
    [("version: 8.5.1", "version: '7.0'"), ("schema: 1", "schema: 1"), ("name: torch", '"name": torch')],
)
def test_a_duplicate_key_is_refused_with_its_line(first: str, second: str) -> None:
    text = f"a:\n  {first}\n  other: 1\n  {second}\n"
    with pytest.raises(BadInput, match=r":4: .*duplicate key"):
        yaml_text.parse_yaml(text, "dup.yaml")


def test_a_duplicate_package_version_in_a_snapshot_fails_to_load(tmp_path: Path) -> None:
    lines = GOOD.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip().startswith("version:") and i > 20)
    lines.insert(index + 1, lines[index].replace(lines[index].strip(), "version: '7.0'"))
    path = tmp_path / "dup.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BadInput, match="duplicate key 'version'"):
        store.load(path)


def test_only_measurement_reports_may_hold_infinite_floats() -> None:
    # A verify report's SQNR of identical outputs is .inf; a snapshot never holds one.
    from envsnap.snapshot.yaml_text import parse_yaml

    with pytest.raises(BadInput, match="out of range"):
        parse_yaml("sqnr_db: .inf\n", "snap.yaml")
    assert parse_yaml("sqnr_db: .inf\n", "report.yaml", infinite_floats=True) == {"sqnr_db": float("inf")}
    with pytest.raises(BadInput, match="duplicate key"):  # the other refusals stay
        parse_yaml("a: 1\na: 2\n", "report.yaml", infinite_floats=True)
