from .automatic_mask_generator import (
    SamAutomaticMaskGenerator as SamAutomaticMaskGenerator,
)
from .build_sam import build_sam as build_sam
from .build_sam import build_sam_vit_b as build_sam_vit_b
from .build_sam import build_sam_vit_h as build_sam_vit_h
from .build_sam import build_sam_vit_l as build_sam_vit_l
from .build_sam import sam_model_registry as sam_model_registry
from .predictor import SamPredictor as SamPredictor
