from .modeling_colqwen3 import ColQwen3
from .processing_colqwen3 import ColQwen3Processor
