from .modeling_biqwen3 import BiQwen3
from .processing_biqwen3 import BiQwen3Processor
