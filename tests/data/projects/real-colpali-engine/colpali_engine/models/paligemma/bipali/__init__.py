from .modeling_bipali import BiPali, BiPaliProj
from .processing_bipali import BiPaliProcessor
