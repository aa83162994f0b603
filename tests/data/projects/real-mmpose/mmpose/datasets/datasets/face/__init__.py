# Copyright (c) OpenMMLab. All rights reserved.
from .aflw_dataset import AFLWDataset
from .coco_wholebody_face_dataset import CocoWholeBodyFaceDataset
from .cofw_dataset import COFWDataset
from .face_300vw_dataset import Face300VWDataset
from .face_300w_dataset import Face300WDataset
from .face_300wlp_dataset import Face300WLPDataset
from .lapa_dataset import LapaDataset
from .wflw_dataset import WFLWDataset

__all__ = [
    'Face300WDataset', 'WFLWDataset', 'AFLWDataset', 'COFWDataset',
    'CocoWholeBodyFaceDataset', 'LapaDataset', 'Face300WLPDataset',
    'Face300VWDataset'
]
