from .modeling.meta_arch import grit
from .modeling.roi_heads import grit_roi_heads
from .modeling.backbone import vit

from .data.datasets import object365
from .data.datasets import vg
from .data.datasets import grit_coco