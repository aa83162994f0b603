from .inference_class import InstanSeg
