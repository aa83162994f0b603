"""6. Secrets that leaked before (the shapes gitleaks/detect-secrets know) stay out of every output.

Outputs checked: the saved file, ``show``, ``show --json``, ``diff`` (text and JSON), a run report
(YAML and JSON), and ``rollback`` in every format and with ``--apply --dry-run``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envsnap.snapshot.redact import redact_argv, redact_text
from envsnap.snapshot.scrub import scrub_report
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli, url_package, with_package, write

# (text as planted, the secret part that must disappear, a part that must stay)
SHAPES: list[tuple[str, str, str]] = [
    ("redis://:r3disPw0rd@cache.internal:6379/0", "r3disPw0rd", "cache.internal"),
    ("postgresql://:pgPassw0rd@db.internal/metrics", "pgPassw0rd", "db.internal"),
    ("https://s3cr3tTokenOnly@host.example/simple", "s3cr3tTokenOnly", "host.example"),
    (
        "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAXXXX%2F2026&X-Amz-Signature=9f8e7d6c5b4a",
        "9f8e7d6c5b4a",
        "amazonaws",
    ),
    (
        "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=Zm9vYmFyYmF6%3D&se=2026",
        "Zm9vYmFyYmF6",
        "windows.net",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=QWNjb3VudEtleVZhbHVl==;",
        "QWNjb3VudEtleVZhbHVl",
        "AccountName=acct",
    ),
    ("Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "Authorization"),
    ("mysql -u root -pMyS3cretPass metrics", "MyS3cretPass", "mysql -u root"),
    ("curl -u deploy:curlS3cret https://api.example", "curlS3cret", "deploy"),
    ("docker login -u bot -p d0ckerPass registry.example", "d0ckerPass", "registry.example"),
    (
        "sh -c 'gpg --batch --passphrase=gpgPhrase1 -d x.gpg && tool --pw=toolPw22'",
        "gpgPhrase1",
        "gpg --batch",
    ),
    ("sh -c 'tool --pw=toolPw22 run'", "toolPw22", "tool"),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGXfakeKeyMaterial\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBGXfakeKeyMaterial",
        "",
    ),
    ("https://user:p@ssw0rdTail@host.example/x", "ssw0rdTail", "host.example"),
]


@pytest.mark.parametrize(("text", "secret", "kept"), SHAPES)
def test_each_shape_is_redacted_and_the_rest_kept(text: str, secret: str, kept: str) -> None:
    redacted = redact_text(text)
    assert secret not in redacted
    assert kept in redacted


def test_command_line_forms_are_redacted_as_argv() -> None:
    argv = [
        "mysql",
        "-u",
        "root",
        "-pMyS3cretPass",
        "curl",
        "-u",
        "deploy:curlS3cret",
        "login",
        "-p",
        "d0ckerPass",
    ]
    joined = " ".join(redact_argv(argv))
    for secret in ("MyS3cretPass", "curlS3cret", "d0ckerPass"):
        assert secret not in joined


def _planted_snapshot_file(tmp_path: Path, name: str = "planted.yaml") -> Path:
    variables = {f"PLANTED_{i}": text for i, (text, _, _) in enumerate(SHAPES)}
    snapshot = make(variables=variables)
    snapshot = with_package(
        url_package("https://ci-bot:pkgIndexPw9@pypi.internal.example/foo-1.0.whl"), snapshot
    )
    snapshot = with_package(
        url_package("https://tok3nOnlyShort@pypi.fury.example/bar-1.0.whl", name="bar"), snapshot
    )
    path = tmp_path / name
    # written raw (a hand-edited file): store.save would not redact what the model holds
    from envsnap.snapshot import store

    path.write_text(store.dumps(snapshot))
    return path


SECRETS = [secret for _, secret, _ in SHAPES] + ["pkgIndexPw9", "tok3nOnlyShort"]


def _assert_clean(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into {where}"


def test_show_and_diff_never_print_a_planted_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _planted_snapshot_file(tmp_path)
    other = write(tmp_path, make(), "clean.yaml")
    for argv in (
        ["show", str(path)],
        ["show", str(path), "--json"],
        ["diff", str(other), str(path)],
        ["diff", str(other), str(path), "--json"],
        ["diff", str(other), str(path), "--format", "markdown"],
        ["check", str(path), "--json"],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code in (0, 1), (argv, err)
        _assert_clean(" ".join(argv[:1] + argv[3:]), out + err)


@pytest.mark.parametrize("fmt", ["requirements", "conda", "script"])
def test_rollback_never_prints_credentials_of_package_urls(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _planted_snapshot_file(tmp_path)
    code, out, err = run_cli(capsys, "rollback", str(path), "--no-live", "--format", fmt)
    assert code == 0, err
    _assert_clean(f"rollback --format {fmt}", out + err)
    assert "pypi.internal.example" in out  # listed as a manual step, credentials removed


@pytest.mark.slow
def test_rollback_dry_run_never_prints_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _planted_snapshot_file(tmp_path)
    code, out, err = run_cli(
        capsys, "rollback", str(path), "--apply", "--python", sys.executable, "--dry-run"
    )
    assert code in (0, 1, 2), err
    _assert_clean("rollback --apply --dry-run", out + err)


def test_run_reports_never_hold_a_planted_secret() -> None:
    import msgspec

    from tests.fakes.run_reports import fallback_on_t4

    report = msgspec.structs.replace(
        fallback_on_t4(),
        command=("sh", "-c", SHAPES[10][0], "mysql", "-pMyS3cretPass"),
        summary=" ".join(t for t, _, _ in SHAPES),
        evidence=tuple(t for t, _, _ in SHAPES),
    )
    scrubbed = scrub_report(report)
    _assert_clean("run report YAML", scrubbed.to_yaml())
    _assert_clean("run report JSON", scrubbed.to_json())
