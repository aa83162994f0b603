from .config import ALBERTConfig, ALBERTLayerConfig
from .encoder import ALBERTEncoder, ALBERTLayerGroup
