"""
JSON profiles for per-layer ZeroKV overrides (domain / calibration output).

``layers`` may be sparse: only listed ``layer_idx`` entries override the baseline
( user / GQA-adjusted ) parameters.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional


@dataclass
class LayerOverride:
    layer_idx: int
    r_bits: Optional[int] = None
    theta_bits: Optional[int] = None
    qjl_dim: Optional[int] = None
    outlier_fraction: Optional[float] = None
    sliding_window: Optional[int] = None


@dataclass
class ZerokvProfile:
    version: str = "1"
    domain: str = "default"
    model_id: Optional[str] = None
    notes: str = ""
    layers: List[LayerOverride] = field(default_factory=list)

    def layer_map(self) -> Dict[int, LayerOverride]:
        return {x.layer_idx: x for x in self.layers}

    def to_dict(self) -> Dict[str, Any]:
        return {
            "version": self.version,
            "domain": self.domain,
            "model_id": self.model_id,
            "notes": self.notes,
            "layers": [asdict(lo) for lo in self.layers],
        }

    def save_json(self, path: str | Path) -> None:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2, ensure_ascii=False)
            f.write("\n")

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "ZerokvProfile":
        raw_layers = d.get("layers") or []
        layers: List[LayerOverride] = []
        for item in raw_layers:
            if not isinstance(item, dict):
                continue
            layers.append(
                LayerOverride(
                    layer_idx=int(item["layer_idx"]),
                    r_bits=item.get("r_bits"),
                    theta_bits=item.get("theta_bits"),
                    qjl_dim=item.get("qjl_dim"),
                    outlier_fraction=item.get("outlier_fraction"),
                    sliding_window=item.get("sliding_window"),
                )
            )
        return cls(
            version=str(d.get("version", "1")),
            domain=str(d.get("domain", "default")),
            model_id=d.get("model_id"),
            notes=str(d.get("notes", "")),
            layers=layers,
        )

    @classmethod
    def load_json(cls, path: str | Path) -> "ZerokvProfile":
        with open(path, encoding="utf-8") as f:
            return cls.from_dict(json.load(f))


def load_profile_optional(path: Optional[str | Path]) -> Optional[ZerokvProfile]:
    if path is None or str(path).strip() == "":
        return None
    return ZerokvProfile.load_json(path)
