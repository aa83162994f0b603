"""
Auto-Calibration Hub: community-driven profile repository.

Manages a local cache of pre-calibrated compression profiles for popular models.
Profiles can be shared, imported, and automatically selected based on model ID.

Usage:
    from zerokv.calibration_hub import CalibrationHub

    hub = CalibrationHub()
    profile = hub.get_profile("Qwen/Qwen2.5-7B-Instruct")
    if profile is None:
        profile = hub.calibrate_and_save("Qwen/Qwen2.5-7B-Instruct")
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List, Optional

from zerokv.profiles import ZerokvProfile


@dataclass
class HubEntry:
    """A single profile entry in the calibration hub."""
    model_id: str
    profile: Dict[str, Any]
    created_at: str
    source: str = "auto"
    quality_score: float = 0.0
    compression_ratio: float = 0.0
    tags: List[str] = None

    def __post_init__(self):
        if self.tags is None:
            self.tags = []


class CalibrationHub:
    """Local hub for managing and sharing ZeroKV compression profiles."""

    def __init__(self, hub_dir: Optional[str] = None):
        if hub_dir is None:
            hub_dir = os.path.join(
                os.path.expanduser("~"), ".cache", "zerokv", "hub"
            )
        self.hub_dir = Path(hub_dir)
        self.hub_dir.mkdir(parents=True, exist_ok=True)
        self._index_path = self.hub_dir / "index.json"
        self._index: Dict[str, HubEntry] = self._load_index()

    def _load_index(self) -> Dict[str, HubEntry]:
        if self._index_path.exists():
            with open(self._index_path, "r") as f:
                data = json.load(f)
            return {k: HubEntry(**v) for k, v in data.items()}
        return {}

    def _save_index(self) -> None:
        data = {k: asdict(v) for k, v in self._index.items()}
        with open(self._index_path, "w") as f:
            json.dump(data, f, indent=2)

    def _model_key(self, model_id: str) -> str:
        return hashlib.sha256(model_id.encode()).hexdigest()[:16]

    def get_profile(self, model_id: str) -> Optional[ZerokvProfile]:
        key = self._model_key(model_id)
        if key not in self._index:
            return None

        entry = self._index[key]
        profile_path = self.hub_dir / f"{key}.json"
        if profile_path.exists():
            with open(profile_path, "r") as f:
                return ZerokvProfile.from_dict(json.load(f))
        return None

    def save_profile(
        self,
        model_id: str,
        profile: ZerokvProfile,
        quality_score: float = 0.0,
        compression_ratio: float = 0.0,
        source: str = "auto",
        tags: Optional[List[str]] = None,
    ) -> str:
        key = self._model_key(model_id)
        profile_path = self.hub_dir / f"{key}.json"

        profile_dict = profile.to_dict() if hasattr(profile, "to_dict") else asdict(profile)
        with open(profile_path, "w") as f:
            json.dump(profile_dict, f, indent=2)

        entry = HubEntry(
            model_id=model_id,
            profile=profile_dict,
            created_at=datetime.now().isoformat(),
            source=source,
            quality_score=quality_score,
            compression_ratio=compression_ratio,
            tags=tags or [],
        )
        self._index[key] = entry
        self._save_index()

        return str(profile_path)

    def list_profiles(self) -> List[Dict[str, Any]]:
        results = []
        for key, entry in self._index.items():
            results.append({
                "model_id": entry.model_id,
                "quality_score": entry.quality_score,
                "compression_ratio": entry.compression_ratio,
                "source": entry.source,
                "created_at": entry.created_at,
                "tags": entry.tags,
            })
        return sorted(results, key=lambda x: -x["quality_score"])

    def find_best_profile(
        self,
        model_id: str,
        min_quality: float = 0.8,
    ) -> Optional[ZerokvProfile]:
        candidates = []
        for key, entry in self._index.items():
            if entry.quality_score >= min_quality:
                if model_id.lower() in entry.model_id.lower() or entry.model_id.lower() in model_id.lower():
                    candidates.append((entry.quality_score, key))

        if not candidates:
            return None

        candidates.sort(key=lambda x: -x[0])
        best_key = candidates[0][1]
        profile_path = self.hub_dir / f"{best_key}.json"
        if profile_path.exists():
            with open(profile_path, "r") as f:
                return ZerokvProfile.from_dict(json.load(f))
        return None

    def export_hub(self, output_path: str) -> str:
        export_dir = Path(output_path)
        export_dir.mkdir(parents=True, exist_ok=True)

        for key, entry in self._index.items():
            profile_path = export_dir / f"{entry.model_id.replace('/', '_')}.json"
            with open(profile_path, "w") as f:
                json.dump(entry.profile, f, indent=2)

        with open(export_dir / "hub_index.json", "w") as f:
            json.dump(self.list_profiles(), f, indent=2)

        return str(export_dir)

    def import_hub(self, input_path: str) -> int:
        import_dir = Path(input_path)
        if not import_dir.exists():
            return 0

        index_path = import_dir / "hub_index.json"
        if not index_path.exists():
            return 0

        with open(index_path, "r") as f:
            profiles = json.load(f)

        count = 0
        for profile_info in profiles:
            model_id = profile_info["model_id"]
            profile_file = import_dir / f"{model_id.replace('/', '_')}.json"
            if profile_file.exists():
                with open(profile_file, "r") as f:
                    profile_dict = json.load(f)

                try:
                    profile = ZerokvProfile.from_dict(profile_dict)
                    self.save_profile(
                        model_id,
                        profile,
                        quality_score=profile_info.get("quality_score", 0),
                        compression_ratio=profile_info.get("compression_ratio", 0),
                        source="imported",
                        tags=profile_info.get("tags", []),
                    )
                    count += 1
                except Exception:
                    pass

        return count
