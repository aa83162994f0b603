from mmhuman3d.core.evaluation import mesh_eval
from mmhuman3d.core.evaluation.eval_hooks import DistEvalHook, EvalHook
from mmhuman3d.core.evaluation.eval_utils import (
    fg_vertices_to_mesh_distance,
    keypoint_3d_auc,
    keypoint_3d_pck,
    keypoint_accel_error,
    keypoint_mpjpe,
    vertice_pve,
)
from mmhuman3d.core.evaluation.mesh_eval import compute_similarity_transform

__all__ = [
    'compute_similarity_transform', 'keypoint_mpjpe', 'mesh_eval',
    'DistEvalHook', 'EvalHook', 'vertice_pve', 'keypoint_3d_pck',
    'keypoint_3d_auc', 'keypoint_accel_error', 'fg_vertices_to_mesh_distance'
]
