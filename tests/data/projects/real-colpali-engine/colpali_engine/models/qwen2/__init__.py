from .biqwen2 import BiQwen2, BiQwen2Processor
from .colqwen2 import ColQwen2, ColQwen2Processor
