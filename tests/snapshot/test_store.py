"""store.py: deterministic YAML out, distrustful YAML in, atomic replacement."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from envsnap.errors import BadInput
from envsnap.snapshot import files, store, yaml_text
from envsnap.snapshot.model import SCHEMA_VERSION, Snapshot
from envsnap.snapshot.normalize import normalize
from tests.factories import make_snapshot


def test_round_trip_is_lossless() -> None:
    snapshot = normalize(make_snapshot())
    assert store.loads(store.dumps(snapshot)) == snapshot


def test_dump_is_deterministic_and_in_contract_order() -> None:
    snapshot = make_snapshot()
    first, second = store.dumps(snapshot), store.dumps(snapshot)
    assert first == second
    keys = [line.split(":")[0] for line in first.splitlines() if line and line[0] not in " #-"]
    assert keys == [
        "schema",
        "meta",
        "host",
        "python",
        "packages",
        "environment",
        "accelerators",
        "toolkits",
        "frameworks",
    ]


def test_dump_never_writes_anchors_for_shared_objects() -> None:
    shared = make_snapshot().packages
    assert shared is not None
    twice = msgspec.structs.replace(make_snapshot(), packages=shared + shared)
    text = store.dumps(twice)
    assert "&id" not in text
    assert "*id" not in text
    assert store.loads(text).packages == shared + shared


def test_multiline_text_is_a_block_scalar() -> None:
    snapshot = make_snapshot()
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    torch = msgspec.structs.replace(snapshot.frameworks.torch, config={"blas": "line one\nline two\n"})
    text = store.dumps(
        msgspec.structs.replace(
            snapshot, frameworks=msgspec.structs.replace(snapshot.frameworks, torch=torch)
        )
    )
    assert "blas: |" in text
    assert store.loads(text).frameworks == msgspec.structs.replace(snapshot.frameworks, torch=torch)


def test_versions_and_timestamps_survive_as_strings() -> None:
    # "1.10" would load as the float 1.1 and the capture time as a datetime if written plain.
    snapshot = make_snapshot()
    meta = msgspec.structs.replace(snapshot.meta, envsnap_version="1.10")
    loaded = store.loads(store.dumps(msgspec.structs.replace(snapshot, meta=meta)))
    assert loaded.meta.envsnap_version == "1.10"
    assert loaded.meta.captured_at == "2026-11-29T12:00:00Z"


# ---------------------------------------------------------------------------- hostile input

ALIAS_BOMB = textwrap.dedent(
    """\
    schema: 1
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    """
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(ALIAS_BOMB, r":2: YAML anchors are not allowed", id="alias-bomb"),
        pytest.param(
            "schema: 1\nmeta: !!python/object:os.system {}\n", "YAML tags are not allowed", id="python-tag"
        ),
        pytest.param("schema: 1\nmeta: !custom x\n", "YAML tags are not allowed", id="custom-tag"),
        pytest.param(
            "schema: 1\nmeta: {envsnap_version: x, captured_at: [\n", "not valid YAML", id="truncated"
        ),
        pytest.param("", "the document is empty", id="empty"),
        pytest.param("- a\n- b\n", "the document is a YAML list", id="top-level-list"),
        pytest.param("meta: {}\n", "no 'schema' version", id="no-schema"),
        pytest.param("schema: '1'\n", "unknown snapshot schema '1'", id="schema-as-string"),
        pytest.param(
            f"schema: {SCHEMA_VERSION + 1}\n", "written by a newer envsnap", id="schema-from-future"
        ),
        pytest.param(
            "schema: 1\nmeta: {envsnap_version: '0.1', captured_at: 'x'}\n"
            "packages:\n- {name: torch, version: 2}\n",
            r":4: invalid snapshot: Expected `str`, got `int` - at `\$.packages\[0\].version`",
            id="wrong-type",
        ),
        pytest.param(
            "schema: 1\nmeta: {envsnap_version: '0.1', captured_at: 'x', evil: 1}\n",
            "Object contains unknown field `evil`",
            id="unknown-field",
        ),
        pytest.param(
            "schema: 1\n" + "x: " + "[" * 5000 + "]" * 5000 + "\n", "nesting depth", id="deep-nesting"
        ),
    ],
)
def test_hostile_text_is_refused_with_one_line(text: str, expected: str) -> None:
    with pytest.raises(BadInput, match=expected) as caught:
        store.loads(text, "evil.yaml")
    message = str(caught.value)
    assert message.startswith("evil.yaml")
    assert "\n" not in message


def test_alias_bomb_is_refused_before_anything_is_constructed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The event scan stops at the first anchor: no node is composed, nothing is expanded.
    def must_not_construct(*args: object, **kwargs: object) -> object:
        raise AssertionError("the YAML was constructed")

    monkeypatch.setattr(yaml, "load", must_not_construct)
    monkeypatch.setattr(yaml, "compose", must_not_construct)
    with pytest.raises(BadInput, match="anchors are not allowed"):
        store.loads(ALIAS_BOMB, "bomb.yaml")


def test_oversized_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:
        handle.write(b"schema: 1\n")
        handle.seek(300 * 1024 * 1024)
        handle.write(b"\n")
    with pytest.raises(BadInput, match="larger than 256 MB"):
        store.load(big)


def test_the_snapshot_cap_is_an_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 33 MB: over the small-input cap, a normal big snapshot for the default snapshot cap.
    text = store.dumps(make_snapshot())
    padded = tmp_path / "padded.yaml"
    padded.write_text(text + "#" * (33 * 1024 * 1024) + "\n", encoding="utf-8")
    assert store.load(padded).fingerprint == make_snapshot().fingerprint
    monkeypatch.setenv(store.SNAPSHOT_MAX_MB_ENV, "32")
    with pytest.raises(BadInput, match="larger than 32 MB"):
        store.load(padded)
    monkeypatch.setenv(store.SNAPSHOT_MAX_MB_ENV, "lots")
    with pytest.raises(BadInput, match="expected a positive number of MiB"):
        store.load(padded)


def test_the_collector_is_off_while_loading_and_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real_load = yaml.load

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real_load(*args, **kwargs)

    monkeypatch.setattr(yaml, "load", spy)
    text = store.dumps(make_snapshot())
    assert gc.isenabled()
    store.loads(text)
    assert seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that turned it off keeps it off
        store.loads(text)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(BadInput):
        store.loads("schema: [\n")
    assert gc.isenabled()  # restored on failure too


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (bytes(range(256)) * 64, "binary data"),
        (b"schema: 1\nmeta: \xff\xfe\n", ":2: not UTF-8 text"),
    ],
)
def test_binary_files_are_refused(tmp_path: Path, payload: bytes, expected: str) -> None:
    path = tmp_path / "garbage.yaml"
    path.write_bytes(payload)
    with pytest.raises(BadInput, match=expected):
        store.load(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no such file"):
        store.load(tmp_path / "absent.yaml")
    with pytest.raises(BadInput, match="is a directory"):
        store.load(tmp_path)


def test_quoted_ampersands_and_stars_are_not_mistaken_for_aliases() -> None:
    snapshot = make_snapshot(environment=None)
    snapshot = msgspec.structs.replace(
        snapshot,
        meta=msgspec.structs.replace(snapshot.meta, host_alias="a &b *c !d"),
    )
    assert store.loads(store.dumps(snapshot)).meta.host_alias == "a &b *c !d"


@pytest.mark.parametrize(
    "text",
    [
        "schema: 1\nx: &a 1\n",
        "schema: 1\nx: [1, *a]\n",
        "schema: 1\nx: {k:!t v}\n",
        "schema: 1\nx:\n  - - !t v\n",
        "--- !t\nschema: 1\n",
        "schema: 1\n? !t k\n: v\n",
    ],
)
def test_every_node_start_position_is_suspected(text: str) -> None:
    assert yaml_text._suspect(text), text


def test_requirement_markers_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # "!=" inside Requires-Dist lines is not a tag: no event-level scan is needed for them.
    def must_not_scan(text: str, name: str) -> None:
        raise AssertionError("slow path taken")

    monkeypatch.setattr(yaml_text, "_refuse_anchors_and_tags", must_not_scan)
    snapshot = make_snapshot()
    assert snapshot.packages is not None
    torch = msgspec.structs.replace(
        snapshot.packages[0], requires=('numpy>=1.22,!=1.24.0; python_version != "3.8"', "a, !b")
    )
    text = store.dumps(msgspec.structs.replace(snapshot, packages=(torch, *snapshot.packages[1:])))
    assert store.loads(text).packages is not None


def test_older_schema_goes_through_migrations(monkeypatch: pytest.MonkeyPatch) -> None:
    # A schema-1 file (before meta.origin.sections/partial/messages) passes through MIGRATIONS[1] once.
    seen: list[object] = []
    real = store.MIGRATIONS[1]

    def one_to_two(data: dict[str, object]) -> dict[str, object]:
        seen.append(data["schema"])
        return real(data)

    monkeypatch.setitem(store.MIGRATIONS, 1, one_to_two)
    text = store.dumps(make_snapshot()).replace(f"schema: {SCHEMA_VERSION}", "schema: 1", 1)
    loaded = store.loads(text)
    assert seen == [1]
    assert loaded.schema == SCHEMA_VERSION == 2


def test_schema_zero_never_existed() -> None:
    text = store.dumps(make_snapshot()).replace(f"schema: {SCHEMA_VERSION}", "schema: 0", 1)
    with pytest.raises(BadInput, match="unknown snapshot schema 0"):
        store.loads(text)


# ---------------------------------------------------------------------------- atomic writes

_KILLED_WRITER = textwrap.dedent(
    """\
    import os, sys, time
    from pathlib import Path
    from envsnap.snapshot import files, store, yaml_text

    target, ready = Path(sys.argv[1]), Path(sys.argv[2])
    real_fsync = os.fsync

    def slow_fsync(fd):
        ready.write_text("writing")
        time.sleep(60)  # the parent kills us here, mid-save
        real_fsync(fd)

    os.fsync = slow_fsync
    files.write_atomic(target, "schema: 1\\n" + "x" * 5_000_000)
    """
)


@pytest.mark.parametrize("had_old_file", [True, False])
def test_killed_save_leaves_old_file_or_none(tmp_path: Path, had_old_file: bool) -> None:
    target, ready = tmp_path / "snap.yaml", tmp_path / "ready"
    if had_old_file:
        target.write_text("old content\n")
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target), str(ready)])
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert child.poll() is None, "writer exited before reaching the kill point"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    if had_old_file:
        assert target.read_text() == "old content\n"
    else:
        assert not target.exists()
    visible = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert visible == (["ready", "snap.yaml"] if had_old_file else ["ready"])


def test_write_atomic_replaces_and_cleans_up(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "snap.yaml"
    store.save(make_snapshot(), target, create_folder=True)
    store.save(make_snapshot(), target)
    assert isinstance(store.load(target), Snapshot)
    assert [p.name for p in target.parent.iterdir()] == ["snap.yaml"]


@pytest.mark.parametrize("check_first", [True, False])
def test_a_missing_folder_is_refused_and_not_created(tmp_path: Path, check_first: bool) -> None:
    target = tmp_path / "typo-dir" / "deeper" / "x.yaml"
    with pytest.raises(BadInput, match=r"x\.yaml: cannot write: no such folder .*typo-dir/deeper \("):
        files.check_writable(target) if check_first else store.save(make_snapshot(), target)
    assert list(tmp_path.iterdir()) == []


def test_a_file_in_place_of_the_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(BadInput, match=r"x\.yaml: cannot write: .*/file is not a folder$"):
        files.write_atomic(tmp_path / "file" / "x.yaml", "y")


def test_write_new_never_replaces_and_numbers_the_next(tmp_path: Path) -> None:
    target = tmp_path / "snapshots" / "host-20260101T000000Z.yaml"
    written = [files.write_new(target, f"{n}\n", create_folder=True) for n in range(3)]
    assert [p.name for p in written] == [
        "host-20260101T000000Z.yaml",
        "host-20260101T000000Z-1.yaml",
        "host-20260101T000000Z-2.yaml",
    ]
    assert [p.read_text() for p in written] == ["0\n", "1\n", "2\n"]
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(p.name for p in written)  # no temp files


def test_c_loader_is_used_when_available() -> None:
    assert yaml.__with_libyaml__, "LibYAML is part of the PyYAML wheels CI installs"
    assert yaml_text._Loader.__name__ == "CSafeLoader"


def test_symlinks_stay_links_and_devices_are_written_through(tmp_path: Path) -> None:
    target = tmp_path / "real.yaml"
    target.write_text("old\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    store.save(make_snapshot(), link)
    assert link.is_symlink()
    assert store.load(target).schema == SCHEMA_VERSION
    fifo_like = Path("/dev/null")
    store.save(make_snapshot(), fifo_like)  # written through: /dev/null stays a device
    assert fifo_like.is_char_device()
    with pytest.raises(BadInput, match="No space left on device"):
        store.save(make_snapshot(), Path("/dev/full"))
    assert Path("/dev/full").is_char_device()


def test_existing_permissions_are_kept_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "shared.yaml"
    existing.write_text("old\n")
    existing.chmod(0o664)
    store.save(make_snapshot(), existing)
    assert existing.stat().st_mode & 0o777 == 0o664
    fresh = store.save(make_snapshot(), tmp_path / "fresh.yaml")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~files._UMASK


def test_check_writable_refuses_before_any_work(tmp_path: Path) -> None:
    files.check_writable(tmp_path / "new" / "dir" / "snap.yaml", create_folder=True)
    with pytest.raises(BadInput, match="is a directory"):
        files.check_writable(tmp_path)
    with pytest.raises(BadInput, match="cannot write"):
        files.check_writable(Path("/proc/envsnap-test.yaml"))
    assert [p.name for p in (tmp_path / "new" / "dir").iterdir()] == []
