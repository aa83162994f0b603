__version__ = "1.1post2"

from .pruners import VocabularyPruner, TransformerPruner, PipelinePruner
from .configurations import GeneralConfig, VocabularyPruningConfig, TransformerPruningConfig
from .utils import summary, inference_time
