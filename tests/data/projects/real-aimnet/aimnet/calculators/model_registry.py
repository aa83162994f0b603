import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Any

import click
import requests
import yaml

from aimnet.models.artifact_validation import is_explicit_local_path

logging.basicConfig(level=logging.INFO)


@dataclass(frozen=True)
class FamilyPolicy:
    """Calculator-side policy for a released model family.

    Sourced from the ``families:`` section of ``model_registry.yaml``. The neutral
    policy (all fields None/empty) applies no defaults and is returned for unknown
    or undeclared families, so raw ``nn.Module`` loads and third-party checkpoints
    are unaffected.

    Attributes
    ----------
    family : str | None
        Canonical family tag, or None for the neutral policy.
    supports_charged_systems : bool | None
        Required charge-support declaration for the family. The calculator defaults
        undeclared model metadata to this value and rejects conflicting declarations.
        None means the family imposes no constraint.
    posthoc_d3_params : dict[str, float] | None
        DFT-D3(BJ) parameters applied post-hoc when the model does not embed
        dispersion. None means no post-hoc dispersion policy.
    members : tuple[str, ...]
        Registry model keys belonging to the family, in ensemble-member order.
    """

    family: str | None = None
    supports_charged_systems: bool | None = None
    posthoc_d3_params: dict[str, float] | None = None
    members: tuple[str, ...] = field(default_factory=tuple)


_NEUTRAL_FAMILY_POLICY = FamilyPolicy()


def get_family_policy(family: str | None) -> FamilyPolicy:
    """Return the calculator-side policy for a model family.

    Unknown or missing families return the neutral policy (no defaults applied)
    rather than raising, so calculators built from raw ``nn.Module`` inputs or
    third-party checkpoints keep working.
    """
    if family is None:
        return _NEUTRAL_FAMILY_POLICY
    model_registry = load_model_registry()
    block = model_registry.get("families", {}).get(family)
    if block is None:
        return _NEUTRAL_FAMILY_POLICY
    members = tuple(name for name, cfg in model_registry["models"].items() if cfg.get("family") == family)
    posthoc_d3_params = block.get("posthoc_d3_params")
    return FamilyPolicy(
        family=family,
        supports_charged_systems=block.get("supports_charged_systems"),
        posthoc_d3_params=dict(posthoc_d3_params) if posthoc_d3_params is not None else None,
        members=members,
    )


def load_model_registry(registry_file: str | None = None) -> dict[str, Any]:
    registry_file = registry_file or os.path.join(os.path.dirname(__file__), "model_registry.yaml")
    with open(registry_file) as f:
        return yaml.load(f, Loader=yaml.SafeLoader)


def get_cache_dir() -> str:
    """Return the model cache directory.

    ``AIMNET_CACHE_DIR`` has priority. Otherwise AIMNet uses
    ``~/.cache/aimnet``. The directory is created on demand.
    """
    cache_dir = os.environ.get("AIMNET_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(Path.home(), ".cache", "aimnet")
    os.makedirs(cache_dir, exist_ok=True)
    return cache_dir


def create_assets_dir():
    return get_cache_dir()


def try_resolve_registry_model_name(model_name: str) -> str | None:
    """Resolve a registry name or alias without raising for unknown names."""
    model_registry = load_model_registry()
    if model_name in model_registry["aliases"]:
        model_name = model_registry["aliases"][model_name]  # type: ignore
    if model_name not in model_registry["models"]:
        return None
    return model_name


def resolve_registry_model_name(model_name: str) -> str:
    resolved = try_resolve_registry_model_name(model_name)
    if resolved is None:
        raise ValueError(f"Model {model_name} not found in the registry.")
    return resolved


def get_registry_model_family(model_name: str) -> str:
    """Return the canonical family tag for a registered model name or alias."""
    model_name = resolve_registry_model_name(model_name)
    model_registry = load_model_registry()
    family = model_registry["models"][model_name].get("family")
    if family is None:
        raise ValueError(f"Model {model_name} does not declare a family in the registry.")
    return family


def get_registry_model_path(model_name: str) -> str:
    """Return a verified local path for a registered model artifact.

    The registry entry must contain a lowercase 64-character SHA-256 digest.
    Cached, bundled, and downloaded bytes are verified against that digest
    before the path is returned.
    """
    model_registry = load_model_registry()
    model_name = resolve_registry_model_name(model_name)
    cfg = model_registry["models"][model_name]  # type: ignore
    expected_sha256 = cfg.get("sha256")
    if not isinstance(expected_sha256, str) or re.fullmatch(r"[0-9a-f]{64}", expected_sha256) is None:
        raise ValueError(f"Registry model {model_name!r} has no valid SHA-256 digest; refusing artifact access.")
    model_path = _maybe_download_asset(
        file=cfg["file"],
        url=cfg["url"],
        expected_sha256=expected_sha256,
    )
    return model_path


def _hash_file(filename: str) -> str:
    h = sha256()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1024 * 1024), b""):
            h.update(chunk)
    return h.hexdigest()


def _validate_sha256(filename: str, expected: str) -> None:
    digest = _hash_file(filename)
    if digest != expected:
        raise ValueError(f"Checksum mismatch for {filename}: expected {expected}, got {digest}")


def _maybe_copy_bundled_asset(filename: str, file: str, expected_sha256: str) -> bool:
    bundled = os.path.join(os.path.dirname(__file__), "assets", file)
    if not os.path.exists(bundled):
        return False
    dirname = os.path.dirname(filename)
    fd, tmp = tempfile.mkstemp(prefix=".bundled-", suffix=".tmp", dir=dirname)
    digest = sha256()
    try:
        with os.fdopen(fd, "wb") as output, open(bundled, "rb") as source:
            for chunk in iter(lambda: source.read(1024 * 1024), b""):
                digest.update(chunk)
                output.write(chunk)
        if digest.hexdigest() != expected_sha256:
            raise ValueError(f"Checksum mismatch for {bundled}: expected {expected_sha256}, got {digest.hexdigest()}")
        os.replace(tmp, filename)
        return True
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _download_asset_atomic(filename: str, url: str, expected_sha256: str) -> None:
    dirname = os.path.dirname(filename)
    fd, tmp = tempfile.mkstemp(prefix=".download-", suffix=".tmp", dir=dirname)
    h = sha256()
    try:
        with os.fdopen(fd, "wb") as f, requests.get(url, timeout=(10, 120), stream=True) as response:
            response.raise_for_status()
            for chunk in response.iter_content(chunk_size=1024 * 1024):
                if not chunk:
                    continue
                h.update(chunk)
                f.write(chunk)
        if h.hexdigest() != expected_sha256:
            raise ValueError(f"Checksum mismatch for {url}: expected {expected_sha256}, got {h.hexdigest()}")
        os.replace(tmp, filename)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _acquire_asset(filename: str, file: str, url: str, expected_sha256: str) -> None:
    if not _maybe_copy_bundled_asset(filename, file, expected_sha256):
        _download_asset_atomic(filename, url, expected_sha256)


def _acquire_asset_with_recovery(filename: str, file: str, url: str, expected_sha256: str) -> None:
    try:
        _acquire_asset(filename, file, url, expected_sha256)
    except Exception as acquisition_error:
        try:
            _validate_sha256(filename, expected_sha256)
        except (FileNotFoundError, ValueError):
            raise acquisition_error from None


def _maybe_download_asset(file: str, url: str, expected_sha256: str) -> str:
    filename = os.path.join(get_cache_dir(), file)
    if not os.path.exists(filename):
        print(f"Downloading {url} -> {filename}")
        _acquire_asset_with_recovery(filename, file, url, expected_sha256)
        return filename

    try:
        _validate_sha256(filename, expected_sha256)
    except ValueError:
        logging.warning("Checksum mismatch in cached model artifact %s; replacing it once.", filename)
        _acquire_asset_with_recovery(filename, file, url, expected_sha256)
    return filename


def get_model_path(s: str) -> str:
    """Resolve a model name or explicit local path.

    Bare registry names and aliases take precedence over same-named implicit
    local files. Absolute paths and paths beginning with ``./`` or ``../`` are
    always treated as explicit local paths.
    """
    explicit_local = is_explicit_local_path(s)
    if not explicit_local and try_resolve_registry_model_name(s) is not None:
        return get_registry_model_path(s)
    if os.path.isfile(s):
        return s
    return get_registry_model_path(s)


@click.command(short_help="Clear assets directory.")
def clear_assets():
    from glob import glob

    for fil in glob(os.path.join(get_cache_dir(), "*")):
        if os.path.isfile(fil):
            logging.warning(f"Removing {fil}")
            os.remove(fil)


@click.command(short_help="Download model weights into the local cache.")
@click.argument("models", nargs=-1)
@click.option("--all", "download_all", is_flag=True, default=False, help="Download every model in the registry.")
def download_assets(models: tuple[str, ...], download_all: bool):
    """Prefetch registry model weights for offline use.

    MODELS are registry names or aliases (e.g. ``aimnet2``). With ``--all``,
    every registered model is fetched. Files are stored in the cache directory
    (``$AIMNET_CACHE_DIR`` or ``~/.cache/aimnet``) and verified against their
    registry SHA-256 digests, so a pre-seeded cache works fully offline.
    """
    registry = load_model_registry()
    if download_all:
        names = sorted(registry["models"])
    elif models:
        names = [resolve_registry_model_name(m) for m in models]
    else:
        known = "\n  ".join(sorted(registry["models"]))
        raise click.UsageError(f"Specify model names or --all. Known models:\n  {known}")
    failed = []
    for name in names:
        try:
            path = get_registry_model_path(name)
        except Exception as exc:
            click.echo(f"{name}: FAILED ({exc})", err=True)
            failed.append(name)
            continue
        click.echo(f"{name}: {path}")
    if failed:
        raise click.ClickException(f"{len(failed)} of {len(names)} downloads failed: {', '.join(failed)}")
