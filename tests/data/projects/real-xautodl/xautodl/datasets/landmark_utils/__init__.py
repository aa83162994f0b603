from .point_meta import PointMeta2V, apply_affine2point, apply_boundary
