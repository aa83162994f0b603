from .modeling_biqwen2 import BiQwen2
from .processing_biqwen2 import BiQwen2Processor
