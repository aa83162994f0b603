from .fits_dict import FitsDict
from .inverse_kinematics import batch_inverse_kinematics_transform
from .res_layer import ResLayer, SimplifiedBasicBlock
from .SMPLX import (
    SMPLXFaceCropFunc,
    SMPLXFaceMergeFunc,
    SMPLXHandCropFunc,
    SMPLXHandMergeFunc,
)

__all__ = [
    'FitsDict', 'ResLayer', 'SimplifiedBasicBlock',
    'batch_inverse_kinematics_transform', 'SMPLXHandCropFunc',
    'SMPLXFaceMergeFunc', 'SMPLXFaceCropFunc', 'SMPLXHandMergeFunc'
]
