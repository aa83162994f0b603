"""Import ``nvidia-smi -q -x`` output: the same parser the NVIDIA probe falls back to."""

from __future__ import annotations

from envsnap.importers.base import ImportedSections
from envsnap.probes.nvidia import smi_xml as nvidia_smi_xml
from envsnap.snapshot.model import Accelerators, Sample


def parse(text: str, name: str = "<nvidia-smi -q -x>", *, captured_at: str) -> ImportedSections:
    """The NVIDIA section and the telemetry the XML recorded.

    Raises:
        BadInput: not well-formed, not nvidia-smi output, or carrying DTD/entity declarations.
    """
    report = nvidia_smi_xml.parse(text, source="import")
    telemetry = Sample(captured_at=captured_at, devices=report.samples) if report.samples else None
    return ImportedSections(accelerators=Accelerators(nvidia=report.info), telemetry=telemetry)
