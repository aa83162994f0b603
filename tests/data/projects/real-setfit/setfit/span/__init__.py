from .aspect_extractor import AspectExtractor
from .modeling import AbsaModel, AspectModel, PolarityModel
from .trainer import AbsaTrainer
