# SPDX-License-Identifier: Apache-2.0
"""heads subpackage — see blueprint section 7 layout."""

from lucid_yolo.models.heads.detect import (
    DualDetectionHead,
    DualHeadOutput,
    decode_ltrb,
    o2o_topk,
)
from lucid_yolo.models.heads.keypoint import decode_keypoints
from lucid_yolo.models.heads.obb import RBOX_DET_WIDTH, decode_rboxes, o2o_rotated_topk
from lucid_yolo.models.heads.proto import ProtoFusion, ProtoNet, assemble_masks
from lucid_yolo.models.heads.semantic import SemanticAux

__all__ = [
    "RBOX_DET_WIDTH",
    "DualDetectionHead",
    "DualHeadOutput",
    "ProtoFusion",
    "ProtoNet",
    "SemanticAux",
    "assemble_masks",
    "decode_keypoints",
    "decode_ltrb",
    "decode_rboxes",
    "o2o_rotated_topk",
    "o2o_topk",
]
