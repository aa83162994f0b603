from .biqwen3 import BiQwen3, BiQwen3Processor
from .colqwen3 import ColQwen3, ColQwen3Processor
