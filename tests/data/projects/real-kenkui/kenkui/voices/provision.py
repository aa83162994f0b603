"""Explicit, user-initiated voice provisioning.

This module downloads model and voice assets; character analysis has a separate
LiteLLM network boundary. Nothing under
`kenkui._execution` or `kenkui._tts` may import it, and it never runs inside a
render: provisioning downloads and compiles, rendering only reads a manifest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

import yaml

from kenkui.errors import ErrorCode, ModelError, VoiceError
from kenkui.voices.manifest import (
    EngineRecord,
    FileRecord,
    ManifestStore,
    VoiceRecord,
    default_manifest_path,
)
from kenkui.voices.registry import CATALOG, asset_url, catalog_voice
from kenkui.voices.types import (
    Engine,
    PerceivedGender,
    Voice,
    VoiceVariety,
)

_HASH_CHUNK_BYTES: Final = 1024 * 1024
_IDENTIFIER = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")


def _identifier(value: str, *, code: ErrorCode) -> str:
    """Reject anything unfit to be a path component or a manifest key."""
    if type(value) is not str or _IDENTIFIER.fullmatch(value) is None or ".." in value:
        raise VoiceError(code)
    return value


def _language(value: str) -> str:
    """Validate a language against the config stems pocket-tts actually ships."""
    from pocket_tts.utils.config import CONFIGS_DIR  # noqa: PLC0415

    _identifier(value, code=ErrorCode.VOICE_VARIETY_INVALID)
    if not (CONFIGS_DIR / f"{value}.yaml").is_file():
        raise VoiceError(ErrorCode.VOICE_VARIETY_INVALID)
    return value


_SUFFIX_VARIETY: Final[dict[str, VoiceVariety]] = {
    ".wav": "wav",
    ".safetensors": "pre-compiled",
}


def _store(manifest: Path | None) -> ManifestStore:
    """Resolve the manifest the same way the renderer does.

    An explicit argument wins, then KENKUI_POCKET_MANIFEST, then the managed
    default. Ignoring the override made load_voice write one file while write()
    read another.
    """
    if manifest is not None:
        return ManifestStore(manifest)
    override = os.environ.get("KENKUI_POCKET_MANIFEST")
    if override:
        return ManifestStore(Path(override))
    return ManifestStore(default_manifest_path())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(_HASH_CHUNK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


def add_voice(  # noqa: PLR0913
    # The seven rights fields are deliberately separate required keyword
    # arguments: the spec forbids inferring any of them, and collapsing them
    # into a container would let a caller omit one by passing a partial object.
    path: str | os.PathLike[str],
    *,
    voice_id: str,
    name: str,
    language: str,
    provenance: str,
    license_id: str,
    commercial_use_allowed: bool,
    voice_rights: str,
    perceived_gender: PerceivedGender = None,
    manifest: Path | None = None,
) -> Voice:
    """Register a local WAV or safetensors voice with explicit rights metadata.

    Cheap and offline: hashes the source, records the rights fields verbatim,
    and writes a `registered` entry. Call `load_voice` to make it renderable.
    """
    if voice_id in CATALOG:
        raise VoiceError(ErrorCode.VOICE_VARIETY_INVALID)
    _identifier(voice_id, code=ErrorCode.VOICE_VARIETY_INVALID)
    _language(language)
    source = Path(path).resolve()
    variety = _SUFFIX_VARIETY.get(source.suffix.lower())
    if variety is None:
        raise VoiceError(ErrorCode.VOICE_VARIETY_INVALID)
    if not source.is_file():
        raise VoiceError(ErrorCode.POCKET_VOICE_INVALID)
    record = VoiceRecord(
        id=voice_id,
        variety=variety,
        state="registered",
        name=name,
        enabled=True,
        language=language,
        engine_id=language,
        provenance=provenance,
        license_id=license_id,
        commercial_use_allowed=commercial_use_allowed,
        voice_rights=voice_rights,
        perceived_gender=perceived_gender,
        source_path=str(source),
        source_sha256=_sha256(source),
    )
    store = _store(manifest)
    with store.lock():
        engines, voices = store.read()
        existing = voices.get(voice_id)
        if existing is not None and existing.state == "loaded":
            # Silently downgrading would orphan the compiled asset and leave an
            # unreferenced engine behind. Unload first, deliberately.
            raise VoiceError(ErrorCode.VOICE_VARIETY_INVALID)
        voices[voice_id] = record
        store.write(engines, voices)
    return Voice(
        id=voice_id,
        name=name,
        enabled=True,
        provenance=provenance,
        license_id=license_id,
        commercial_use_allowed=commercial_use_allowed,
        language=language,
        variety=variety,
        state="registered",
        perceived_gender=perceived_gender,
    )


def _fetch(url: str) -> Path:
    """Resolve one remote or local asset reference to a local file.

    The asset-download seam. Tests monkeypatch this symbol.
    """
    from pocket_tts.utils.utils import download_if_necessary  # noqa: PLC0415

    return Path(download_if_necessary(url))


def _assets_root(manifest_path: Path) -> Path:
    return manifest_path.parent


def _revision_of(url: str) -> str:
    return url.rsplit("@", 1)[-1] if "@" in url else "unpinned"


def _place(source: Path, destination: Path) -> FileRecord:
    """Copy one fetched asset into the engine root and record its identity."""
    destination.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copyfile(source, destination)
    destination.chmod(0o600)
    return FileRecord(
        relative_path=destination.name,
        size=destination.stat().st_size,
        sha256=_sha256(destination),
    )


def engine_id_for(language: str, *, cloning: bool) -> str:
    """Return the engine identity for one language and capability.

    Capability is part of the identity: the gated cloning weights and the
    ungated weights are different files with different revisions. Keying on
    language alone let provisioning a wav voice overwrite the ungated engine
    every already-loaded built-in in that language depended on.
    """
    return f"{language}-cloning" if cloning else language


def _provision_engine(language: str, *, cloning: bool, root: Path) -> EngineRecord:
    """Download one language engine and write a fully local derived config.

    The renderer replaces pocket-tts's `download_if_necessary` with an allowlist
    that accepts only absolute local paths, so a stock config full of `hf://`
    URLs would be rejected at load time. The derived config substitutes local
    paths for all three weight references.
    """
    from pocket_tts.utils.config import CONFIGS_DIR  # noqa: PLC0415

    engine_id = engine_id_for(language, cloning=cloning)
    model_root = root / "engines" / engine_id
    # Staged, then swapped into place. Overwriting the live directory meant a
    # failure part-way left manifest hashes disagreeing with the bytes on disk,
    # bricking a previously working engine.
    staging = root / "engines" / f".{engine_id}.staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o700, parents=True, exist_ok=True)
    stock: dict[str, Any] = yaml.safe_load(
        (CONFIGS_DIR / f"{language}.yaml").read_text(encoding="utf-8")
    )
    weights_url = (
        stock["weights_path"]
        if cloning
        else stock["weights_path_without_voice_cloning"]
    )
    try:
        weights = _fetch(weights_url)
    except VoiceError:
        raise
    except Exception:  # noqa: BLE001 — sanitize hub and auth failures
        # A gated-repo denial otherwise escapes as a huggingface_hub error
        # carrying repo URLs and local cache paths.
        shutil.rmtree(staging, ignore_errors=True)
        if cloning:
            raise VoiceError(ErrorCode.ENGINE_NOT_CLONING_CAPABLE) from None
        raise ModelError(ErrorCode.POCKET_MODEL_INVALID) from None
    files = [_place(weights, staging / "model.safetensors")]

    # Relative names, not absolute paths: _inspect_yaml rejects absolute paths,
    # and the renderer resolves these against its per-engine snapshot root,
    # which does not exist yet here.
    derived = dict(stock)
    derived["weights_path"] = "model.safetensors"
    derived.pop("weights_path_without_voice_cloning", None)
    derived["flow_lm"] = dict(stock["flow_lm"])
    derived["mimi"] = dict(stock["mimi"])

    # tokenizer and Mimi weights are optional: Mimi's are commented out upstream
    # for the distilled models, where they ride inside the main safetensors.
    lookup = stock["flow_lm"].get("lookup_table")
    if lookup is not None and lookup.get("tokenizer_path"):
        derived["flow_lm"]["lookup_table"] = dict(lookup)
        files.append(
            _place(_fetch(lookup["tokenizer_path"]), staging / "tokenizer.model")
        )
        derived["flow_lm"]["lookup_table"]["tokenizer_path"] = "tokenizer.model"
    if stock["mimi"].get("weights_path"):
        files.append(
            _place(_fetch(stock["mimi"]["weights_path"]), staging / "mimi.safetensors")
        )
        derived["mimi"]["weights_path"] = "mimi.safetensors"
    if stock["flow_lm"].get("weights_path"):
        files.append(
            _place(
                _fetch(stock["flow_lm"]["weights_path"]),
                staging / "flow_lm.safetensors",
            )
        )
        derived["flow_lm"]["weights_path"] = "flow_lm.safetensors"

    staged_config = staging / f"{language}.yaml"
    staged_config.write_text(yaml.safe_dump(derived, sort_keys=True), encoding="utf-8")
    staged_config.chmod(0o600)
    files.append(
        FileRecord(
            relative_path=staged_config.name,
            size=staged_config.stat().st_size,
            sha256=_sha256(staged_config),
        )
    )

    shutil.rmtree(model_root, ignore_errors=True)
    staging.replace(model_root)
    config_path = model_root / staged_config.name

    return EngineRecord(
        id=engine_id,
        language=language,
        model_root=str(model_root),
        config_path=str(config_path),
        model_revision=_revision_of(weights_url),
        package_version="2.1.0",
        files=tuple(files),
        sample_rate_hz=int(stock["mimi"]["sample_rate"]),
        device="cpu",
        timeout_seconds=300.0,
        cloning_capable=cloning,
    )


def _engine_view(record: EngineRecord) -> Engine:
    return Engine(
        id=record.id,
        language=record.language,
        model_revision=record.model_revision,
        cloning_capable=record.cloning_capable,
        size_bytes=sum(item.size for item in record.files),
    )


def _terms(record: VoiceRecord) -> tuple[str, bool, str]:
    """Return (license_id, commercial_use_allowed, voice_rights) for a record.

    A built-in voice's terms belong to its source dataset, so they are read
    from the catalog rather than from the copy a manifest recorded when the
    voice was loaded, which would go stale when the dataset table changes.
    An added voice keeps exactly what its owner declared.
    """
    entry = CATALOG.get(record.id) if record.variety == "built-in" else None
    if entry is not None:
        return entry.license_id, entry.commercial_use_allowed, entry.voice_rights
    return record.license_id, record.commercial_use_allowed, record.voice_rights


def _loaded_view(record: VoiceRecord, engine: EngineRecord) -> Voice:
    asset = Path(record.asset_path or "")
    license_id, commercial_use_allowed, voice_rights = _terms(record)
    return Voice(
        id=record.id,
        name=record.name,
        enabled=record.enabled,
        provenance=record.provenance,
        license_id=license_id,
        commercial_use_allowed=commercial_use_allowed,
        voice_rights=voice_rights,
        language=record.language,
        content_fingerprint=record.asset_sha256,
        compatible_model_revisions=record.compatible_model_revisions,
        variety=record.variety,
        state="loaded",
        asset_bytes=asset.stat().st_size if asset.is_file() else None,
        engine=_engine_view(engine),
        perceived_gender=_gender_for(record),
    )


def _registered_from_catalog(voice_id: str) -> VoiceRecord:
    entry = CATALOG[voice_id]
    return VoiceRecord(
        id=entry.id,
        variety="built-in",
        state="registered",
        name=entry.name,
        enabled=True,
        language=entry.language,
        engine_id=entry.language,
        provenance=entry.origin_url,
        license_id=entry.license_id,
        commercial_use_allowed=entry.commercial_use_allowed,
        voice_rights=entry.voice_rights,
        perceived_gender=entry.perceived_gender,
    )


def _absolute_config(engine: EngineRecord, work: Path) -> Path:
    """Write a copy of the engine config with every asset name made absolute.

    The stored config names assets relatively, because the renderer rejects
    absolute paths and resolves names against its own per-engine snapshot.
    Compilation runs outside the renderer and has no such resolver.
    """
    root = Path(engine.model_root)
    stock: dict[str, Any] = yaml.safe_load(
        Path(engine.config_path).read_text(encoding="utf-8")
    )
    derived = dict(stock)
    if derived.get("weights_path"):
        derived["weights_path"] = str(root / derived["weights_path"])
    flow = dict(stock.get("flow_lm", {}))
    lookup = flow.get("lookup_table")
    if lookup is not None and lookup.get("tokenizer_path"):
        flow["lookup_table"] = dict(lookup)
        flow["lookup_table"]["tokenizer_path"] = str(root / lookup["tokenizer_path"])
    if flow.get("weights_path"):
        flow["weights_path"] = str(root / flow["weights_path"])
    derived["flow_lm"] = flow
    mimi = dict(stock.get("mimi", {}))
    if mimi.get("weights_path"):
        mimi["weights_path"] = str(root / mimi["weights_path"])
    derived["mimi"] = mimi
    path = work / Path(engine.config_path).name
    path.write_text(yaml.safe_dump(derived, sort_keys=True), encoding="utf-8")
    return path


def _compile_wav(source: Path, engine: EngineRecord, destination: Path) -> None:
    """Compile one audio prompt into a speaker embedding via pocket-tts.

    Voice cloning needs the gated weights, so this runs only at provision time
    and never during a render.
    """
    from pocket_tts import export_model_state  # noqa: PLC0415
    from pocket_tts.models.tts_model import TTSModel  # noqa: PLC0415

    if not engine.cloning_capable:
        raise VoiceError(ErrorCode.ENGINE_NOT_CLONING_CAPABLE)
    try:
        with tempfile.TemporaryDirectory(dir=Path(engine.model_root)) as work:
            model = TTSModel.load_model(config=_absolute_config(engine, Path(work)))
            state = model.get_state_for_audio_prompt(
                audio_conditioning=source, truncate=True
            )
            export_model_state(state, destination)
    except VoiceError:
        raise
    except Exception:  # noqa: BLE001 — sanitize any torch/pocket-tts failure
        # Public errors are stable and must not leak third-party internals or
        # local paths, so every downstream failure collapses to one code.
        raise VoiceError(ErrorCode.POCKET_VOICE_LOAD_FAILED) from None


def _materialize(record: VoiceRecord, engine: EngineRecord, root: Path) -> VoiceRecord:
    """Produce the safetensors asset for one registered voice."""
    destination = root / "voices" / record.language / f"{record.id}.safetensors"
    destination.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if record.variety == "built-in":
        # Pack voices carry their own pinned URL; kyutai catalog names derive
        # theirs. Both are catalog voices fetched by URL, so one branch serves.
        fetched = _fetch(asset_url(record.id, record.language))
        shutil.copyfile(fetched, destination)
    else:
        source = Path(record.source_path or "")
        if not source.is_file() or _sha256(source) != record.source_sha256:
            raise VoiceError(ErrorCode.POCKET_VOICE_INVALID)
        if record.variety == "wav":
            _compile_wav(source, engine, destination)
        else:
            shutil.copyfile(source, destination)
    destination.chmod(0o600)
    return VoiceRecord(
        id=record.id,
        variety=record.variety,
        state="loaded",
        name=record.name,
        enabled=record.enabled,
        language=record.language,
        engine_id=engine.id,
        provenance=record.provenance,
        license_id=record.license_id,
        commercial_use_allowed=record.commercial_use_allowed,
        voice_rights=record.voice_rights,
        source_path=record.source_path,
        source_sha256=record.source_sha256,
        asset_path=str(destination),
        asset_sha256=_sha256(destination),
        compatible_model_revisions=(engine.model_revision,),
        perceived_gender=record.perceived_gender,
    )


def load_voice(voice_id: str, *, manifest: Path | None = None) -> Voice:
    """Make one voice renderable, downloading or compiling only if required.

    Idempotent: a voice whose asset is present and hash-verified performs no
    network access at all.
    """
    store = _store(manifest)
    root = _assets_root(store.path)
    with store.lock():
        engines, voices = store.read()
        record = voices.get(voice_id)
        if record is None and voice_id not in CATALOG:
            raise VoiceError(ErrorCode.VOICE_UNKNOWN)
        if record is not None and record.state == "loaded":
            asset = Path(record.asset_path or "")
            if asset.is_file() and _sha256(asset) == record.asset_sha256:
                return _loaded_view(record, engines[record.engine_id])
        if record is None:
            record = _registered_from_catalog(voice_id)
        else:
            record = _with_catalog_gender(record)
        cloning = record.variety == "wav"
        wanted = engine_id_for(record.language, cloning=cloning)
        engine = engines.get(wanted)
        if engine is None or engine.cloning_capable != cloning:
            engine = _provision_engine(record.language, cloning=cloning, root=root)
            engines[engine.id] = engine
        loaded = _materialize(record, engine, root)
        voices[voice_id] = loaded
        store.write(engines, voices)
        return _loaded_view(loaded, engine)


def _with_catalog_gender(record: VoiceRecord) -> VoiceRecord:
    """Adopt the catalog's trait for a record that predates the field.

    `_registered_from_catalog` stamps the trait on a first registration, so
    a fresh install never lacked it. An operator whose manifest was written
    before the field existed takes the `voices.get` path instead, and would
    otherwise keep writing the record back ungendered on every load. The
    manifest stays the authority wherever it has an answer of its own.
    """
    if record.perceived_gender is not None:
        return record
    entry = CATALOG.get(record.id)
    if entry is None or entry.perceived_gender is None:
        return record
    return dataclasses.replace(record, perceived_gender=entry.perceived_gender)


def _gender_for(record: VoiceRecord) -> PerceivedGender:
    """Prefer the manifest's own trait, else the catalog's for this id.

    A manifest written before the field existed carries no trait, but the
    catalog has always known it for the voices it ships. Reading the record
    alone discards that, which silently degrades every gendered cast to a
    random one: `candidates` finds no matching voice and falls back to the
    whole pool. The catalog is consulted as a fallback rather than ignored,
    so an old manifest heals on the next call instead of needing a migration.
    """
    if record.perceived_gender is not None:
        return record.perceived_gender
    entry = CATALOG.get(record.id)
    return entry.perceived_gender if entry is not None else None


def _registered_view(record: VoiceRecord) -> Voice:
    license_id, commercial_use_allowed, voice_rights = _terms(record)
    return Voice(
        id=record.id,
        name=record.name,
        enabled=record.enabled,
        provenance=record.provenance,
        license_id=license_id,
        commercial_use_allowed=commercial_use_allowed,
        voice_rights=voice_rights,
        language=record.language,
        variety=record.variety,
        state="registered",
        perceived_gender=_gender_for(record),
    )


def _unloaded(record: VoiceRecord) -> VoiceRecord:
    return VoiceRecord(
        id=record.id,
        variety=record.variety,
        state="registered",
        name=record.name,
        enabled=record.enabled,
        language=record.language,
        engine_id=record.engine_id,
        provenance=record.provenance,
        license_id=record.license_id,
        commercial_use_allowed=record.commercial_use_allowed,
        voice_rights=record.voice_rights,
        perceived_gender=record.perceived_gender,
        source_path=record.source_path,
        source_sha256=record.source_sha256,
    )


def _prune_engines(
    engines: dict[str, EngineRecord], voices: dict[str, VoiceRecord]
) -> None:
    """Delete engines no loaded voice references, reclaiming their files.

    An engine is roughly 225 MB against roughly 6.5 MB per embedding, so this
    is where unloading actually reclaims disk.
    """
    referenced = {
        record.engine_id for record in voices.values() if record.state == "loaded"
    }
    for engine_id in list(engines):
        if engine_id in referenced:
            continue
        shutil.rmtree(Path(engines[engine_id].model_root), ignore_errors=True)
        del engines[engine_id]


def _discard_asset(record: VoiceRecord) -> None:
    if record.asset_path is not None:
        Path(record.asset_path).unlink(missing_ok=True)


def unload_voice(voice_id: str, *, manifest: Path | None = None) -> Voice:
    """Delete a voice's asset, keep its rights metadata, and prune its engine."""
    store = _store(manifest)
    with store.lock():
        engines, voices = store.read()
        record = voices.get(voice_id)
        if record is None:
            if voice_id in CATALOG:
                return catalog_voice(voice_id)
            raise VoiceError(ErrorCode.VOICE_UNKNOWN)
        _discard_asset(record)
        reverted = _unloaded(record)
        voices[voice_id] = reverted
        _prune_engines(engines, voices)
        store.write(engines, voices)
        return _registered_view(reverted)


def remove_voice(voice_id: str, *, manifest: Path | None = None) -> None:
    """Delete a voice entry entirely, including hand-entered rights metadata.

    Equivalent to `unload_voice` for a built-in, whose catalog registration
    cannot be deleted.
    """
    store = _store(manifest)
    with store.lock():
        engines, voices = store.read()
        record = voices.pop(voice_id, None)
        if record is None:
            if voice_id in CATALOG:
                return
            raise VoiceError(ErrorCode.VOICE_UNKNOWN)
        _discard_asset(record)
        _prune_engines(engines, voices)
        store.write(engines, voices)


def list_voices(*, manifest: Path | None = None) -> tuple[Voice, ...]:
    """Return every known voice, unioning the catalog with the manifest.

    No network and no hashing: asset presence is a stat. This is the only
    enumeration primitive, so multi-voice work composes over it.
    """
    engines, voices = _store(manifest).read()
    known: dict[str, Voice] = {
        voice_id: catalog_voice(voice_id) for voice_id in CATALOG
    }
    for voice_id, record in voices.items():
        if record.state != "loaded":
            known[voice_id] = _registered_view(record)
            continue
        asset = Path(record.asset_path or "")
        engine = engines.get(record.engine_id)
        if not asset.is_file() or engine is None:
            known[voice_id] = dataclasses.replace(
                _registered_view(record), state="missing"
            )
            continue
        known[voice_id] = _loaded_view(record, engine)
    return tuple(known[key] for key in sorted(known))
