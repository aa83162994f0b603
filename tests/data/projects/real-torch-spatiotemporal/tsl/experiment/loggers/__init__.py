from .neptune_logger import NeptuneLogger

__all__ = ['NeptuneLogger']

logger_classes = __all__
