from .backbone import build_backbone
