"""The command-line contract: exit codes, stdout vs stderr, one-line errors, fast --help/--version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import msgspec
import pytest

from envsnap import __version__, cli
from envsnap.errors import ExitCode
from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import SCHEMA_VERSION
from tests.factories import make_snapshot
from tests.snapshot.test_store import ALIAS_BOMB

ENVSNAP = [sys.executable, "-m", "envsnap"]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVSNAP, *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=300
    )


def test_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"envsnap, version {__version__}"


def test_help_has_an_example_for_every_command() -> None:
    ctx = click.Context(cli.cli)
    assert cli.cli.list_commands(ctx) == sorted(
        [
            "save",
            "show",
            "check",
            "diff",
            "rollback",
            "import",
            "run",
            "watch",
            "tui",
            "audit",
            "fleet",
            "verify",
            "report",
            "gpus",
            "export",
            "serve",
        ]
    )
    for name in cli.cli.list_commands(ctx):
        command = cli.cli.get_command(ctx, name)
        assert command is not None
        done = run_cli(name, "--help")
        assert done.returncode == 0, name
        assert "Examples:" in done.stdout or "Example:" in done.stdout, (
            f"`envsnap {name} --help` has no example"
        )
        assert command.help


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["save", "--help"], ["diff", "--help"]])
def test_fast_paths_import_no_heavy_module(args: list[str]) -> None:
    probe = (
        "import sys\n"
        "from envsnap.cli import run\n"
        f"code = run({args!r})\n"
        "heavy = {'textual', 'torch', 'pynvml', 'amdsmi', 'yaml'}\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & heavy)\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert "HEAVY=\n" in done.stdout, done.stdout + done.stderr


def test_no_arguments_off_a_terminal_prints_help() -> None:
    done = run_cli()
    assert done.returncode == 0
    assert "Usage: envsnap" in done.stdout


def test_unknown_command_is_a_usage_error() -> None:
    done = run_cli("frobnicate")
    assert done.returncode == ExitCode.BAD_INPUT
    assert "No such command" in done.stderr


def _hostile_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "alias-bomb": ALIAS_BOMB.encode(),
        "python-tag": b"schema: 1\nmeta: !!python/object/apply:os.system ['echo pwned']\n",
        "binary": bytes(range(256)) * 100,
        "truncated": store.dumps(make_snapshot()).encode()[:700],
        "wrong-types": b"schema: 1\nmeta: {envsnap_version: 1, captured_at: now}\n",
        "future-schema": b"schema: 99\nmeta: {}\n",
        "not-a-mapping": b"just a string\n",
    }
    paths = {}
    for name, payload in files.items():
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(payload)
        paths[name] = path
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:
        handle.seek(100 * 1024 * 1024)
        handle.write(b"\n")
    paths["100MB"] = huge
    return paths


def test_hostile_files_give_exit_2_and_one_clear_line(tmp_path: Path) -> None:
    for name, path in _hostile_files(tmp_path).items():
        done = run_cli("show", str(path))
        assert done.returncode == ExitCode.BAD_INPUT, (name, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (name, done.stderr)
        assert lines[0].startswith(f"envsnap: error: {path}"), (name, lines[0])
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "pwned").exists()


def test_show_json_is_the_snapshot(tmp_path: Path) -> None:
    path = store.save(make_snapshot(), tmp_path / "s.yaml")
    done = run_cli("show", str(path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema"] == SCHEMA_VERSION
    assert data["accelerators"]["nvidia"]["devices"][0]["compute_capability"] == "9.0"


def test_show_text_names_the_layers(tmp_path: Path) -> None:
    path = store.save(make_snapshot(), tmp_path / "s.yaml")
    done = run_cli("show", str(path))
    assert done.returncode == 0, done.stderr
    for expected in (
        "gpu-node-01",
        "590.48.01",
        "NVIDIA H100 80GB HBM3",
        "torch 2.13.0+cpu (CPU build)",
        "13.0.88",
    ):
        assert expected in done.stdout


def test_internal_errors_are_one_line_with_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from envsnap import api

    def broken(**kwargs: object) -> object:
        raise RuntimeError("probe exploded")

    monkeypatch.setattr(api, "collect", broken)
    assert cli.run(["show"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert (
        err.strip()
        == "envsnap: internal error: RuntimeError: probe exploded (set ENVSNAP_DEBUG=1 for a traceback)"
    )


@pytest.mark.slow
def test_save_default_path_stdout_and_summary(tmp_path: Path) -> None:
    done = run_cli("save", "--no-frameworks", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = Path(tmp_path, done.stdout.strip())
    assert written.parent.name == "snapshots"
    assert written.suffix == ".yaml"
    assert store.load(written).schema == SCHEMA_VERSION
    assert done.stderr.startswith("saved: ")


@pytest.mark.slow
def test_save_to_stdout() -> None:
    done = run_cli("save", "-o", "-", "--no-frameworks")
    assert done.returncode == 0, done.stderr
    assert store.loads(done.stdout).schema == SCHEMA_VERSION


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["save", "--python", "/nonexistent/python", "-o", "-"],
            "--python /nonexistent/python: no such file",
        ),
        (["check", "--python", "/"], "--python /: is a directory"),
        (["save", "-o", "/proc/envsnap-cannot-write.yaml"], "cannot write"),
    ],
)
def test_bad_targets_fail_before_probing(args: list[str], expected: str) -> None:
    done = run_cli(*args)
    assert done.returncode == ExitCode.BAD_INPUT
    assert expected in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stdout == ""


def test_live_only_options_are_refused_with_a_file(tmp_path: Path) -> None:
    path = store.save(make_snapshot(), tmp_path / "s.yaml")
    done = run_cli("check", str(path), "--no-frameworks")
    assert done.returncode == ExitCode.BAD_INPUT
    assert "--no-frameworks only applies to the live machine" in done.stderr


def test_snapshot_from_stdin(tmp_path: Path) -> None:
    text = store.dumps(make_snapshot())
    done = subprocess.run(
        [*ENVSNAP, "show", "-", "--json"], input=text, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["host"]["hostname"] == "gpu-node-01"


def test_unwritable_or_closed_stdout_is_a_clear_error(tmp_path: Path) -> None:
    path = store.save(make_snapshot(), tmp_path / "s.yaml")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*ENVSNAP, "show", str(path)], stdout=full, stderr=subprocess.PIPE, text=True, check=False
        )
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr == "envsnap: error: cannot write the output: No space left on device\n"
    closed = subprocess.run(
        [*ENVSNAP, "show", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == ExitCode.BAD_INPUT
    assert closed.stderr == "envsnap: error: standard output is closed\n"


def test_piped_output_has_no_trailing_padding(tmp_path: Path) -> None:
    path = store.save(make_snapshot(), tmp_path / "s.yaml")
    done = run_cli("show", str(path))
    assert done.stdout
    assert all(line == line.rstrip() for line in done.stdout.splitlines())
    # Long values (paths, fingerprints) are folded, never cut with an ellipsis.
    assert "…" not in done.stdout


def test_snapshot_text_cannot_drive_the_terminal_or_inject_markup(tmp_path: Path) -> None:
    import msgspec

    snapshot = make_snapshot()
    assert snapshot.host is not None
    hostile_host = msgspec.structs.replace(
        snapshot.host, hostname="gpu\x1b]0;pwned\x07[/bold][link=http://evil]x"
    )
    path = store.save(msgspec.structs.replace(snapshot, host=hostile_host), tmp_path / "s.yaml")
    done = run_cli("show", str(path))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "gpu\\x1b]0;pwned\\x07[/bold][link=http://evil]x" in done.stdout


def test_save_to_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    # A typo must not create folders: only envsnap's default snapshots/ is created.
    target = tmp_path / "nonexistent-dir" / "deeper" / "x.yaml"
    done = run_cli("save", "-o", str(target), "--no-frameworks", cwd=tmp_path)
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr == (
        f"envsnap: error: {target}: cannot write: no such folder {target.parent} "
        "(envsnap does not create folders you name)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_two_saves_in_the_same_second_keep_both_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from envsnap import api

    snapshot = make_snapshot()  # one capture time: both saves want the same default name
    monkeypatch.setattr(api, "collect", lambda **kwargs: snapshot)
    monkeypatch.chdir(tmp_path)
    assert cli.run(["save"]) == ExitCode.OK
    assert cli.run(["save"]) == ExitCode.OK
    first, second = (Path(line) for line in capsys.readouterr().out.splitlines())
    assert first.parent == second.parent == Path("snapshots")
    assert second.name == first.name.replace(".yaml", "-1.yaml")
    assert store.load(tmp_path / first) == store.load(tmp_path / second)
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == sorted([first.name, second.name])


@pytest.mark.parametrize("command", ["show", "check"])
def test_piped_reports_never_wrap_identifiers(tmp_path: Path, command: str) -> None:
    snapshot = make_snapshot()
    assert snapshot.python is not None
    deep = "/home/someone/" + "/".join(["very-long-folder-name"] * 6) + "/bin/python"
    python = msgspec.structs.replace(snapshot.python, executable=deep)
    path = store.save(finalize(msgspec.structs.replace(snapshot, python=python)), tmp_path / "s.yaml")
    done = subprocess.run(
        [*ENVSNAP, command, str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="40"),
        timeout=120,
        check=False,
    )
    assert done.stdout, done.stderr
    fingerprint = store.load(path).fingerprint
    assert fingerprint is not None
    if command == "show":
        assert fingerprint in done.stdout  # whole, on one line
        assert deep in done.stdout
    else:
        from envsnap.rules import evaluate

        finding = evaluate(store.load(path))[0]
        assert fingerprint[:19] in done.stdout  # check names the short form
        assert finding.title in done.stdout  # longer than 40 columns, still one line
    assert all(line == line.rstrip() for line in done.stdout.splitlines())
