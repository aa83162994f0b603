"""Host probe against recorded filesystem trees (tests/data/host/) and against this machine."""

from __future__ import annotations

import platform
from pathlib import Path

import psutil
import pytest

from envsnap.probes import host
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import Host
from tests.conftest import DATA

HOST_DATA = DATA / "host"


def _probe(scenario: str | Path, environ: dict[str, str] | None = None) -> Host:
    root = scenario if isinstance(scenario, Path) else HOST_DATA / scenario
    return host.probe(ProbeContext(root=root, environ=environ or {}))


def test_devbox_tree_reads_os_kernel_cpu_and_docker() -> None:
    section = _probe("devbox")
    assert section.status == "ok"
    assert (section.os_name, section.os_version, section.os_id) == ("Debian GNU/Linux", "12", "debian")
    assert section.kernel == "6.18.44-fc-v657"
    assert section.cpu_model == "AMD EPYC"
    # cgroup v2 shows "0::/" inside the container; /.dockerenv is what gives docker away.
    assert section.container == "docker"
    assert section.slurm is False
    assert section.wsl is False


def test_kubernetes_pod_is_recognised_from_its_cgroup_paths() -> None:
    section = _probe("k8s_pod")
    assert section.container == "kubernetes"
    assert (section.os_name, section.os_version, section.os_id) == ("Ubuntu", "24.04", "ubuntu")
    assert section.kernel == "5.15.0-185-generic"


def test_kubernetes_is_recognised_from_the_service_variable_alone() -> None:
    # On cgroup v2 the pod's paths are hidden; the API-server variable is always injected.
    section = _probe("devbox", {"KUBERNETES_SERVICE_HOST": "10.96.0.1"})
    assert section.container == "kubernetes"


def test_os_release_falls_back_to_usr_lib_and_podman_marker_is_seen() -> None:
    section = _probe("fedora_podman")
    assert (section.os_name, section.os_version, section.os_id) == ("Fedora Linux", "42", "fedora")
    assert section.container == "podman"


@pytest.mark.parametrize(
    ("scenario", "release"),
    [("wsl2", "5.4.91-microsoft-standard-WSL2"), ("wsl1", "4.4.0-19041-Microsoft")],
)
def test_wsl_kernels_are_recognised(scenario: str, release: str) -> None:
    section = _probe(scenario)
    assert section.kernel == release
    assert section.wsl is True
    assert section.container is None


def test_wsl_distro_variable_marks_wsl_even_with_a_custom_kernel() -> None:
    assert _probe("devbox", {"WSL_DISTRO_NAME": "Ubuntu-24.04"}).wsl is True


def test_slurm_job_variable_sets_slurm_but_the_job_id_is_not_recorded() -> None:
    section = _probe("devbox", {"SLURM_JOB_ID": "4242"})
    assert section.slurm is True
    assert "4242" not in repr(section)


def test_empty_root_reports_what_the_platform_module_knows(tmp_path: Path) -> None:
    section = _probe(tmp_path)
    assert section.status == "ok"
    assert section.os_name == (platform.system() or None)
    assert section.container is None
    assert section.kernel == platform.release()
    assert section.cpu_model == (platform.processor() or None)


def test_counts_and_memory_come_from_psutil() -> None:
    section = _probe("devbox")
    assert section.cpu_logical_cores == psutil.cpu_count(logical=True)
    assert section.cpu_physical_cores == psutil.cpu_count(logical=False)
    assert section.memory_total_bytes == psutil.virtual_memory().total
    assert section.arch == platform.machine()


def test_os_release_parser_matches_the_platform_module_on_this_machine() -> None:
    for name in ("/etc/os-release", "/usr/lib/os-release"):
        path = Path(name)
        if path.is_file():
            break
    else:
        pytest.fail("this Linux test machine has no os-release file")
    expected = platform.freedesktop_os_release()
    parsed = host.parse_os_release(path.read_text())
    # platform adds NAME/ID/PRETTY_NAME defaults only when missing; every real key must agree.
    assert {key: expected[key] for key in parsed} == parsed


def test_os_release_parser_handles_quotes_and_escapes() -> None:
    parsed = host.parse_os_release(
        'NAME="Fedora Linux"\nVERSION_ID=42\nCODENAME=""\nX=\'a\\"b\'\n# comment\n'
    )
    assert parsed == {"NAME": "Fedora Linux", "VERSION_ID": "42", "CODENAME": "", "X": 'a"b'}


def test_live_machine_twice_gives_identical_sections() -> None:
    assert host.probe(ProbeContext()) == host.probe(ProbeContext())
