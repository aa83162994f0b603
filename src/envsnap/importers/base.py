"""What every importer returns, and how it becomes a Snapshot that says where it came from."""

from __future__ import annotations

from dataclasses import dataclass

from envsnap._version import __version__
from envsnap.snapshot.model import (
    SCHEMA_VERSION,
    Accelerators,
    Environment,
    Frameworks,
    Host,
    Meta,
    Origin,
    Package,
    PythonEnv,
    Sample,
    Snapshot,
    Toolkits,
)


@dataclass(frozen=True)
class ImportedSections:
    """The sections a report provides; ``None`` means the report doesn't say (left out, not guessed)."""

    host: Host | None = None
    python: PythonEnv | None = None
    packages: tuple[Package, ...] | None = None
    environment: Environment | None = None
    accelerators: Accelerators | None = None
    toolkits: Toolkits | None = None
    frameworks: Frameworks | None = None
    telemetry: Sample | None = None


def to_snapshot(sections: ImportedSections, *, format_name: str, file: str, captured_at: str) -> Snapshot:
    """A snapshot recording that it was imported, from what, and when the import ran."""
    return Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(
            envsnap_version=__version__,
            captured_at=captured_at,
            origin=Origin(kind="import", format=format_name, file=file),
        ),
        host=sections.host,
        python=sections.python,
        packages=sections.packages,
        environment=sections.environment,
        accelerators=sections.accelerators,
        toolkits=sections.toolkits,
        frameworks=sections.frameworks,
        telemetry=sections.telemetry,
    )
