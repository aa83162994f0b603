from .flags import checkpointing, get_checkpointing
from .image_v1 import ImageDenoiserModelV1
from .image_transformer_v1 import ImageTransformerDenoiserModelV1
