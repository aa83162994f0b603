from .modeling_colpali import ColPali
from .processing_colpali import ColPaliProcessor
