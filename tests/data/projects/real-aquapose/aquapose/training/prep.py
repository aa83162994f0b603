"""Calibration data preparation CLI for AquaPose training.

Provides the ``prep`` CLI group with subcommands for computing derived
configuration values from annotation data. Supports:

- ``calibrate-keypoints``: Compute keypoint t-values from COCO annotations.
- ``generate-luts``: Pre-generate forward and inverse lookup tables.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click
import numpy as np
import yaml
from PIL import Image, UnidentifiedImageError

from aquapose.cli_utils import get_config_path

from .common import _LutConfigFromDict

__all__ = ["prep_group"]

logger = logging.getLogger(__name__)


@click.group("prep")
def prep_group() -> None:
    """Prepare calibration data and derived configuration."""


def _parse_keypoints_coco(
    annotations_path: Path, n_keypoints: int
) -> list[list[tuple[float, float]]]:
    """Parse keypoint instances from a COCO JSON file.

    Returns a list of instances, each a list of (x, y) tuples with NaN for
    invisible keypoints.
    """
    with annotations_path.open() as fh:
        coco = json.load(fh)

    instances: list[list[tuple[float, float]]] = []
    for ann in coco.get("annotations", []):
        raw_kps = ann.get("keypoints")
        if not raw_kps:
            continue
        # COCO keypoints: [x, y, v, x, y, v, ...]
        points: list[tuple[float, float]] = []
        for k in range(n_keypoints):
            base = k * 3
            if base + 2 >= len(raw_kps):
                break
            x, y, v = raw_kps[base], raw_kps[base + 1], raw_kps[base + 2]
            if v > 0:
                points.append((float(x), float(y)))
            else:
                points.append((float("nan"), float("nan")))
        instances.append(points)
    return instances


def _resolve_sibling_image(txt_path: Path) -> Path | None:
    """Resolve a YOLO label file to its sibling image.

    Resolution order (deterministic):

    1. Rebuild the path with the RIGHTMOST path component equal to
       ``"labels"`` replaced by ``"images"``, trying extensions ``.jpg``,
       ``.jpeg``, ``.png`` in that order. This is what handles the real
       corpus layout, e.g. ``<root>/labels/train/<stem>.txt`` resolving to
       ``<root>/images/train/<stem>.jpg``.
    2. Failing that, try the same three extensions beside the label file
       itself. This is what handles a flat directory with labels and
       images mixed together.

    Args:
        txt_path: Path to a YOLO label ``.txt`` file.

    Returns:
        Path to the resolved sibling image, or ``None`` if nothing resolves.
    """
    parts = list(txt_path.parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "labels":
            swapped = parts.copy()
            swapped[i] = "images"
            base = Path(*swapped).with_suffix("")
            for ext in (".jpg", ".jpeg", ".png"):
                candidate = base.with_suffix(ext)
                if candidate.exists():
                    return candidate
            break

    for ext in (".jpg", ".jpeg", ".png"):
        candidate = txt_path.with_suffix(ext)
        if candidate.exists():
            return candidate

    return None


def _parse_keypoints_yolo(
    labels_dir: Path, n_keypoints: int
) -> list[list[tuple[float, float]]]:
    """Parse keypoint instances from a directory of YOLO label txt files.

    Recurses through subdirectories (e.g. train/, val/) to find all .txt
    files. YOLO pose format per line:
    ``class cx cy w h x1 y1 v1 x2 y2 v2 ...``
    where coordinates are normalized [0, 1]. Each label file's sibling image
    is resolved via :func:`_resolve_sibling_image` and its pixel dimensions
    (read via ``PIL.Image.open(...).size`` without a pixel decode) are used
    to scale keypoints to absolute pixel coordinates, matching the
    convention already used by :func:`_parse_keypoints_coco`. A label file
    with no resolvable sibling image is skipped with a warning.

    Args:
        labels_dir: Root directory to recurse for ``*.txt`` label files.
        n_keypoints: Expected number of keypoints per instance.

    Returns:
        List of keypoint instances, each a list of (x, y) tuples in
        absolute pixel coordinates, with NaN for invisible keypoints.

    Raises:
        click.ClickException: If one or more label files were found but
            none of them resolved a sibling image.
    """
    txt_files = sorted(labels_dir.rglob("*.txt"))
    instances: list[list[tuple[float, float]]] = []
    n_resolved = 0
    n_unresolved = 0
    n_open_failed = 0
    for txt_path in txt_files:
        img_path = _resolve_sibling_image(txt_path)
        if img_path is None:
            logger.warning("No sibling image found for label %s, skipping", txt_path)
            n_unresolved += 1
            continue

        try:
            with Image.open(img_path) as im:
                img_w, img_h = im.size
        except (OSError, UnidentifiedImageError):
            logger.warning(
                "Could not open image %s for label %s, skipping", img_path, txt_path
            )
            n_open_failed += 1
            continue

        n_resolved += 1

        for line in txt_path.read_text(encoding="utf-8").splitlines():
            parts = line.strip().split()
            if len(parts) < 5 + n_keypoints * 3:
                continue
            # Skip class + bbox (5 values), then parse keypoints
            kp_values = parts[5:]
            points: list[tuple[float, float]] = []
            for k in range(n_keypoints):
                base = k * 3
                x, y, v = (
                    float(kp_values[base]),
                    float(kp_values[base + 1]),
                    float(kp_values[base + 2]),
                )
                if v > 0:
                    points.append((x * img_w, y * img_h))
                else:
                    points.append((float("nan"), float("nan")))
            instances.append(points)

    if txt_files and n_resolved == 0:
        if n_open_failed and not n_unresolved:
            # Every candidate image path resolved but failed to open --
            # the directory layout is fine, the image files are the problem.
            raise click.ClickException(
                f"No images resolved for any label file in {labels_dir}. "
                f"All {n_open_failed} sibling image(s) found could not be "
                "opened (corrupt or unreadable file); the 'images/' "
                "directory layout looks correct."
            )
        if n_unresolved and not n_open_failed:
            # Nothing resolved a sibling path at all -- the classic
            # missing/mismatched 'images/' directory case.
            raise click.ClickException(
                f"No images resolved for any label file in {labels_dir}. "
                "Images are expected under a sibling 'images/' directory "
                "mirroring 'labels/'."
            )
        # A mix of both failure modes.
        raise click.ClickException(
            f"No images resolved for any label file in {labels_dir}. "
            "Images are expected under a sibling 'images/' directory "
            "mirroring 'labels/', and/or the resolved images could not be "
            "opened (corrupt or unreadable)."
        )

    return instances


def _compute_t_values(
    instances: list[list[tuple[float, float]]], n_keypoints: int
) -> tuple[list[float], int]:
    """Compute mean arc-length t-values from keypoint instances.

    Args:
        instances: List of keypoint instances (each a list of (x, y) tuples).
        n_keypoints: Expected number of keypoints per instance.

    Returns:
        Tuple of (t_values_list, n_processed).
    """
    all_t_values: list[list[float]] = []
    n_processed = 0

    for points in instances:
        if len(points) < 2:
            continue

        visible_indices = [i for i, (x, _) in enumerate(points) if not np.isnan(x)]
        if len(visible_indices) < 2:
            continue

        visible_pts = np.array([points[i] for i in visible_indices], dtype=np.float64)
        diffs = np.diff(visible_pts, axis=0)
        dists = np.sqrt((diffs**2).sum(axis=1))
        cumulative = np.concatenate([[0.0], np.cumsum(dists)])
        total_length = cumulative[-1]

        if total_length < 1e-6:
            continue

        t_per_annotation = [float("nan")] * n_keypoints
        for j, idx in enumerate(visible_indices):
            t_per_annotation[idx] = cumulative[j] / total_length

        all_t_values.append(t_per_annotation)
        n_processed += 1

    if n_processed == 0:
        return [], 0

    t_array = np.array(all_t_values, dtype=np.float64)
    mean_t = np.nanmean(t_array, axis=0)
    mean_t = np.clip(mean_t, 0.0, 1.0)
    return [round(float(t), 4) for t in mean_t], n_processed


@prep_group.command("calibrate-keypoints")
@click.option(
    "--annotations",
    required=True,
    type=click.Path(exists=True),
    help="Path to COCO JSON file or directory of YOLO label txt files.",
)
@click.option(
    "--n-keypoints",
    default=6,
    type=int,
    help="Number of anatomical keypoints.",
)
@click.pass_context
def calibrate_keypoints(ctx: click.Context, annotations: str, n_keypoints: int) -> None:
    """Compute keypoint t-values from keypoint annotations.

    Auto-detects annotation format: if ``--annotations`` points to a JSON
    file, reads COCO format. If it points to a directory, reads YOLO-format
    txt labels (recursing through subdirectories like train/ and val/).

    Computes the arc-length fraction (t-value) for each anatomical keypoint,
    averaged across all annotated instances. The resulting t-values represent
    each keypoint's position along the fish body curve (0.0 = nose, 1.0 = tail).

    Updates the pipeline config YAML in place, setting
    ``pose.keypoint_t_values`` to the computed values. If the config carries
    a stale legacy ``midline.keypoint_t_values``, that key is removed.

    Args:
        ctx: Click context for project resolution.
        annotations: Path to COCO JSON file or directory of YOLO label txts.
        n_keypoints: Number of anatomical keypoints expected per annotation.
    """
    annotations_path = Path(annotations)
    config_path = get_config_path(ctx)

    if annotations_path.is_dir():
        click.echo(f"Detected YOLO label directory: {annotations_path}")
        instances = _parse_keypoints_yolo(annotations_path, n_keypoints)
    elif annotations_path.suffix.lower() == ".json":
        click.echo(f"Detected COCO JSON file: {annotations_path}")
        instances = _parse_keypoints_coco(annotations_path, n_keypoints)
    else:
        raise click.ClickException(
            f"Cannot detect annotation format for {annotations_path}. "
            "Provide a .json file (COCO) or a directory (YOLO labels)."
        )

    t_values_list, n_processed = _compute_t_values(instances, n_keypoints)

    if n_processed == 0:
        raise click.ClickException(
            f"No valid keypoint annotations found in {annotations_path}. "
            "Ensure annotations have keypoints with visibility > 0."
        )

    # Update pipeline config YAML in place
    with config_path.open() as fh:
        config_data = yaml.safe_load(fh) or {}

    if not isinstance(config_data.get("pose"), dict):
        config_data["pose"] = {}
    config_data["pose"]["keypoint_t_values"] = t_values_list

    # Remove a stale legacy value so the config doesn't carry two
    # contradictory sources of truth (pose: wins the merge either way).
    legacy_midline = config_data.get("midline")
    if isinstance(legacy_midline, dict) and "keypoint_t_values" in legacy_midline:
        del legacy_midline["keypoint_t_values"]
        click.echo(
            f"Removed legacy midline.keypoint_t_values from {config_path} "
            "(superseded by pose.keypoint_t_values)."
        )

    with config_path.open("w") as fh:
        yaml.dump(config_data, fh, default_flow_style=False, sort_keys=False)

    click.echo(f"Processed {n_processed} annotations.")
    click.echo(f"Computed t-values: {t_values_list}")
    click.echo(f"Updated config: {config_path}")


@prep_group.command("generate-luts")
@click.option(
    "--force",
    is_flag=True,
    default=False,
    help="Regenerate even if LUTs already exist.",
)
@click.pass_context
def generate_luts_cmd(ctx: click.Context, force: bool) -> None:
    """Pre-generate forward and inverse lookup tables for association.

    Reads the pipeline config to determine calibration path and LUT
    parameters, then generates and saves forward and inverse LUTs to
    the luts/ directory next to the calibration file.

    Args:
        ctx: Click context for project resolution.
        force: If True, regenerate even when cached LUTs already exist.
    """
    from aquapose.calibration.loader import (
        compute_undistortion_maps,
        load_calibration_data,
    )
    from aquapose.calibration.luts import (
        generate_forward_luts,
        generate_inverse_lut,
        load_forward_luts,
        load_inverse_luts,
        save_forward_luts,
        save_inverse_luts,
    )

    config_path = get_config_path(ctx)

    with config_path.open() as fh:
        raw = yaml.safe_load(fh) or {}

    calibration_path = raw.get("calibration_path")
    if not calibration_path:
        raise click.ClickException(
            "calibration_path is not set in the pipeline config."
        )

    # Resolve calibration_path relative to config file's parent
    cal_path = Path(calibration_path)
    if not cal_path.is_absolute():
        cal_path = config_path.parent / cal_path
    calibration_path_str = str(cal_path)

    # Build LUT config from YAML (satisfies LutConfigLike protocol)
    lut_raw = raw.get("lut", {})
    lut_config = _LutConfigFromDict(lut_raw)

    # Check for existing LUTs (skip unless --force)
    if not force:
        fwd = load_forward_luts(calibration_path_str, lut_config)
        inv = load_inverse_luts(calibration_path_str, lut_config)
        if fwd is not None and inv is not None:
            lut_dir = cal_path.parent / "luts"
            click.echo(f"LUTs already exist at {lut_dir}. Use --force to regenerate.")
            return

    if not cal_path.exists():
        raise click.ClickException(f"Calibration file not found: {cal_path}")

    # Load calibration and compute undistortion maps
    calibration = load_calibration_data(calibration_path_str)
    undistortion_maps = {
        cam_id: compute_undistortion_maps(calibration.cameras[cam_id])
        for cam_id in calibration.ring_cameras
    }

    # Generate forward LUTs
    click.echo("Generating forward LUTs...")
    forward_luts = generate_forward_luts(
        calibration, lut_config, undistortion_maps=undistortion_maps
    )
    save_forward_luts(forward_luts, calibration_path_str, lut_config)
    click.echo(f"Saved forward LUTs for {len(forward_luts)} cameras.")

    # Generate inverse LUT
    click.echo("Generating inverse LUT...")
    inverse_lut = generate_inverse_lut(
        calibration, lut_config, undistortion_maps=undistortion_maps
    )
    save_inverse_luts(inverse_lut, calibration_path_str, lut_config)

    lut_dir = cal_path.parent / "luts"
    click.echo(f"LUT generation complete. Saved to: {lut_dir}")
