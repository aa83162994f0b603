"""SyntheticDataStage -- generates synthetic fish detections from known 3D geometry.

Replaces DetectionStage in synthetic mode. Generates 3D fish splines, projects
them through the real refractive calibration model, and produces Detection data
structures matching the format of the real pipeline stages.

Note: AnnotatedDetection and annotated_detections have been removed in Phase 81.
SyntheticDataStage now only populates detections. Synthetic midlines for
reconstruction will be handled in a future phase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from aquapose.calibration import RefractiveProjectionModel
from aquapose.calibration.loader import compute_undistortion_maps, load_calibration_data
from aquapose.core.context import PipelineContext
from aquapose.core.types.detection import Detection

if TYPE_CHECKING:
    from aquapose.engine.config import SyntheticConfig


def _generate_fish_splines(
    fish_count: int,
    n_points: int,
    rng: np.random.Generator,
    water_z: float = 1.03,
) -> list[np.ndarray]:
    """Generate 3D fish splines as straight or slightly curved midlines.

    Fish are placed in world coordinates below the water interface. The z
    coordinate must be greater than water_z (the air-water interface depth)
    for refractive projection to produce valid results.

    Args:
        fish_count: Number of fish to generate.
        n_points: Number of midline points per fish.
        rng: Numpy random generator for reproducibility.
        water_z: Z coordinate of the air-water interface (metres). Fish are
            placed at water_z + 0.05 to water_z + 0.35 (5-35 cm below
            the surface), within the visible portion of the tank.

    Returns:
        List of fish splines, each shape (n_points, 3).

    """
    splines = []
    for _i in range(fish_count):
        # Place fish within the visible region of the tank. The x/y range
        # of ±0.08 m keeps fish in view for all ring cameras and also works
        # for mock unit tests (640px image with 1000px/m scale factor).
        cx = rng.uniform(-0.08, 0.08)
        cy = rng.uniform(-0.08, 0.08)
        # Fish must be placed BELOW the air-water interface (z > water_z).
        # Typical tank depth: 5-35 cm below the water surface.
        cz = water_z + rng.uniform(0.05, 0.35)

        # Generate a midline as a slightly curved line
        t = np.linspace(-0.02, 0.02, n_points)
        heading = rng.uniform(0, 2 * np.pi)
        curvature = rng.uniform(-5.0, 5.0)

        x = cx + t * np.cos(heading) - curvature * t**2 * np.sin(heading)
        y = cy + t * np.sin(heading) + curvature * t**2 * np.cos(heading)
        z = np.full(n_points, cz)

        spline = np.stack([x, y, z], axis=-1).astype(np.float32)
        splines.append(spline)
    return splines


def _apply_frame_displacement(
    splines: list[np.ndarray],
    frame_index: int,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """Apply small per-frame displacement to simulate swimming.

    Args:
        splines: List of base fish splines, each shape (n_points, 3).
        frame_index: Current frame index (used for deterministic motion).
        rng: Numpy random generator for reproducibility.

    Returns:
        List of displaced splines for this frame.

    """
    displaced = []
    for spline in splines:
        # Small per-frame displacement (swimming motion)
        dx = 0.0005 * frame_index + rng.normal(0, 0.0002)
        dy = 0.0005 * frame_index * 0.3 + rng.normal(0, 0.0002)
        offset = np.array([dx, dy, 0.0], dtype=np.float32)
        displaced.append(spline + offset)
    return displaced


class SyntheticDataStage:
    """Stage that generates synthetic detections and midlines from known 3D geometry.

    Satisfies the Stage protocol. Replaces both DetectionStage and PoseStage
    in synthetic mode. Projects known 3D fish splines through the real refractive
    calibration model to produce realistic 2D detection data.

    Args:
        calibration_path: Path to AquaCal calibration JSON file.
        synthetic_config: Configuration for synthetic data generation.
        n_points: Number of midline points per fish per frame. Controlled by
            :attr:`~aquapose.engine.config.PipelineConfig.n_sample_points`.
            Defaults to 10 when not provided.

    """

    def __init__(
        self,
        calibration_path: str,
        synthetic_config: SyntheticConfig,
        n_points: int = 10,
    ) -> None:
        self._calibration_path = calibration_path
        self._config = synthetic_config
        self._n_points = n_points

    def run(self, context: PipelineContext) -> PipelineContext:
        """Generate synthetic fish data and populate context fields.

        Loads calibration, generates 3D fish splines, projects to 2D for each
        camera, and populates context with Detection data.

        Args:
            context: Pipeline context to populate.

        Returns:
            Context with detections, frame_count, and camera_ids populated.

        """
        rng = np.random.default_rng(self._config.seed)
        cal_data = load_calibration_data(self._calibration_path)
        camera_ids = cal_data.ring_cameras

        # Build projection models per camera using undistorted K_new to match
        # TriangulationBackend, which also uses K_new from compute_undistortion_maps.
        # Using the raw cam.K (distorted) would cause synthetic 2D points to be
        # projected in a different pixel space than what reconstruction expects,
        # leading to epipolar distances of 100-200px and failed triangulation.
        models: dict[str, RefractiveProjectionModel] = {}
        image_sizes: dict[str, tuple[int, int]] = {}
        for cam_name in camera_ids:
            cam = cal_data.cameras[cam_name]
            undist_maps = compute_undistortion_maps(cam)
            models[cam_name] = RefractiveProjectionModel(
                K=undist_maps.K_new,
                R=cam.R,
                t=cam.t,
                water_z=cal_data.water_z,
                normal=cal_data.interface_normal,
                n_air=cal_data.n_air,
                n_water=cal_data.n_water,
            )
            image_sizes[cam_name] = cam.image_size

        # Generate base 3D splines using the calibration water_z so fish
        # are placed below the air-water interface where refractive projection
        # produces valid pixel coordinates.
        n_points = self._n_points
        base_splines = _generate_fish_splines(
            self._config.fish_count,
            n_points,
            rng,
            water_z=cal_data.water_z,
        )

        all_detections: list[dict[str, list]] = []

        for frame_idx in range(self._config.frame_count):
            # Per-frame RNG for displacement (deterministic per frame)
            frame_rng = np.random.default_rng(self._config.seed + frame_idx + 1)
            frame_splines = _apply_frame_displacement(
                base_splines,
                frame_idx,
                frame_rng,
            )

            frame_dets: dict[str, list] = {cam: [] for cam in camera_ids}

            for _fish_id, spline_3d in enumerate(frame_splines):
                for cam_name in camera_ids:
                    model = models[cam_name]
                    img_w, img_h = image_sizes[cam_name]

                    # Project 3D points to 2D
                    pts_tensor = torch.from_numpy(spline_3d).float()
                    pixels, valid = model.project(pts_tensor)
                    pixels_np = pixels.cpu().numpy()
                    valid_np = valid.cpu().numpy()

                    # Check visibility: all points must be valid and within image
                    if not valid_np.all():
                        continue
                    if (
                        pixels_np[:, 0].min() < 0
                        or pixels_np[:, 0].max() >= img_w
                        or pixels_np[:, 1].min() < 0
                        or pixels_np[:, 1].max() >= img_h
                    ):
                        continue

                    # Add noise if configured
                    if self._config.noise_std > 0:
                        noise = rng.normal(
                            0,
                            self._config.noise_std,
                            size=pixels_np.shape,
                        ).astype(np.float32)
                        pixels_np = pixels_np + noise

                    # Create bounding box from projected points with padding
                    x_min = float(pixels_np[:, 0].min())
                    y_min = float(pixels_np[:, 1].min())
                    x_max = float(pixels_np[:, 0].max())
                    y_max = float(pixels_np[:, 1].max())
                    pad = 10
                    bbox_x = max(0, int(x_min - pad))
                    bbox_y = max(0, int(y_min - pad))
                    bbox_w = min(img_w, int(x_max + pad)) - bbox_x
                    bbox_h = min(img_h, int(y_max + pad)) - bbox_y

                    det = Detection(
                        bbox=(bbox_x, bbox_y, bbox_w, bbox_h),
                        mask=None,
                        area=bbox_w * bbox_h,
                        confidence=1.0,
                    )
                    frame_dets[cam_name].append(det)

            all_detections.append(frame_dets)

        context.frame_count = self._config.frame_count
        context.camera_ids = camera_ids
        context.detections = all_detections
        return context
