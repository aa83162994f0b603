from .biqwen2_5 import BiQwen2_5, BiQwen2_5_Processor
from .colqwen2_5 import ColQwen2_5, ColQwen2_5_Processor
