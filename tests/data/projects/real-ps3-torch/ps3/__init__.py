from .modeling_ps3 import PS3VisionEncoder, PS3VisionModel, PS3TextModel, PS3Model
from .image_processing_ps3 import PS3ImageProcessor
from .configuration_ps3 import PS3VisionConfig, PS3TextConfig, PS3Config
from .tokenization_ps3 import PS3Tokenizer