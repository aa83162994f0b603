from .bipali import BiPali, BiPaliProcessor, BiPaliProj
from .colpali import ColPali, ColPaliProcessor
