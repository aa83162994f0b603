from __future__ import annotations

import argparse
import json
from pathlib import Path

from .api import CervicalSeg


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Binary cervical lesion segmentation")
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--repo-id", type=str, default=None)
    parser.add_argument("--revision", type=str, default="main")
    parser.add_argument("--device", type=str, default="auto")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--alpha", type=float, default=0.55)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    segmenter = CervicalSeg(
        weights_path=args.weights,
        config_path=args.config,
        repo_id=args.repo_id,
        revision=args.revision,
        device=args.device,
    )
    results = segmenter.predict_batch(
        args.inputs,
        batch_size=args.batch_size,
        overlay_alpha=args.alpha,
    )
    manifest = []
    for index, (source, result) in enumerate(zip(args.inputs, results)):
        prefix = f"{index:04d}_{source.stem}"
        mask_path = args.output / f"{prefix}_mask.png"
        overlay_path = args.output / f"{prefix}_overlay.jpg"
        result.save_mask(mask_path)
        result.save_overlay(overlay_path)
        manifest.append(
            {
                "input": source.as_posix(),
                "mask": mask_path.as_posix(),
                "overlay": overlay_path.as_posix(),
            }
        )
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
