from .biqwen3_5 import BiQwen3_5, BiQwen3_5Processor
from .colqwen3_5 import ColQwen3_5, ColQwen3_5Processor
