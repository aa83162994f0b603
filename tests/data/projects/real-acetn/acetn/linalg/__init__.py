from .svd_lowrank import svd_lowrank
from .fused_matmul_svd_lowrank import fused_matmul_svd_lowrank
from .fused_3matmul_svd_lowrank import fused_3matmul_svd_lowrank

__all__ = ["svd_lowrank", "fused_matmul_svd_lowrank", "fused_3matmul_svd_lowrank"]
