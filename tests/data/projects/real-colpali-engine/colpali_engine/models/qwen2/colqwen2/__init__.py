from .modeling_colqwen2 import ColQwen2
from .processing_colqwen2 import ColQwen2Processor
