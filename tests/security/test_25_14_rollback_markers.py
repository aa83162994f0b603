"""25.14. A rollback URL cannot carry an environment marker.

pip reads ``name @ URL;python_version<'3'`` (in a requirements file and as an argument) as a URL
and a marker: the pin is then "not for this Python" and silently never installed, while envsnap's
own parse (packaging) took the ``;...`` as part of the URL and let it through. A ``;`` in a URL is
refused with the rest of the snapshot, before anything is written or run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.rollback.plan import check_url, plan
from tests.security.conftest import run_cli, url_package, with_package, write

MARKED = [
    "https://files.example/foo-1.0-py3-none-any.whl;python_version<'3'",
    "https://files.example/foo-1.0.tar.gz;sys_platform=='nonexistent'",
    "git+https://git.example/foo.git@v1.0;os_name=='xx'",
]


@pytest.mark.parametrize("url", MARKED)
def test_a_url_with_a_marker_is_refused(url: str) -> None:
    with pytest.raises(BadInput, match="URL"):
        check_url(url, "packages[foo]")


@pytest.mark.parametrize("url", MARKED)
def test_the_whole_snapshot_is_refused_and_nothing_is_written(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kind = "vcs" if url.startswith("git+") else "url"
    snapshot = with_package(url_package(url, kind=kind))
    path = write(tmp_path, snapshot)
    with pytest.raises(BadInput):
        plan(snapshot)
    out_file = tmp_path / "requirements.txt"
    code, out, err = run_cli(capsys, "rollback", str(path), "--no-live", "-o", str(out_file))
    assert code == 2, err
    assert err.count("\n") == 1
    assert not out_file.exists()
    assert "python_version" not in out


def test_plain_urls_are_still_pinned() -> None:
    assert check_url("https://files.example/foo-1.0-py3-none-any.whl", "x").endswith(".whl")
