"""4. ``git+ssh://-oProxyCommand=...`` never reaches git: no host or user starting with "-".

Schemes are allowlisted too.
"""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.rollback.plan import plan
from envsnap.snapshot.model import Package, PackageSource
from tests.security.conftest import url_package, with_package


@pytest.mark.parametrize(
    "url",
    [
        "git+ssh://-oProxyCommand=touch${IFS}/tmp/pwned/x",
        "git+ssh://-oProxyCommand=id@github.com/org/repo",
        "git+https://-evil/org/repo",
        "git+ext::sh -c touch% /tmp/pwned",
        "ext::sh -c touch /tmp/pwned",
        "javascript:alert(1)",
        "gopher://evil.example/",
    ],
)
def test_an_option_host_or_unknown_scheme_is_refused(url: str) -> None:
    if url.startswith("git"):
        source = PackageSource(kind="vcs", url=url, vcs="git", commit_id="a" * 40)
    else:
        source = PackageSource(kind="url", url=url)
    package = Package(name="foo", version="1.0", source=source)
    with pytest.raises(BadInput, match="refusing to restore"):
        plan(with_package(package))


def test_ordinary_git_urls_still_pin() -> None:
    package = url_package("git+https://github.com/org/repo@" + "a" * 40, kind="url")
    restore = plan(with_package(package))
    assert any(pin.requirement.startswith("foo @ git+https://github.com/org/repo") for pin in restore.pins)
