from .modeling_biqwen3_5 import BiQwen3_5
from .processing_biqwen3_5 import BiQwen3_5Processor
