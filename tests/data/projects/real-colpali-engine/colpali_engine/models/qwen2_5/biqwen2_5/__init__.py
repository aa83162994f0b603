from .modeling_biqwen2_5 import BiQwen2_5
from .processing_biqwen2_5 import BiQwen2_5_Processor
