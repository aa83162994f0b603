"""
Data utilities for FOMO.

Provides dataset configuration loading, auto-download, and path resolution.
Supports YAML configs with .txt file paths.
"""

from .pose_dataset import YOLOPoseDataset, parse_yolo_pose_label_line, pose_collate_fn
from .utils import (
    DATASETS_DIR,
    check_dataset,
    get_img_files,
    img2label_paths,
    load_data_config,
)
from .yolo_coco_api import YOLOCocoAPI, create_yolo_coco_api, parse_yolo_label_line

__all__ = [
    "DATASETS_DIR",
    "check_dataset",
    "get_img_files",
    "img2label_paths",
    "load_data_config",
    "YOLOCocoAPI",
    "create_yolo_coco_api",
    "parse_yolo_label_line",
    "YOLOPoseDataset",
    "parse_yolo_pose_label_line",
    "pose_collate_fn",
]
