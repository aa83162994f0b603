from . import utils
from .importance_processor_config import ImportanceProcessorConfig
from .feature_extractor import FeatureExtractor
from .elm_importance_processor import ELMImportanceProcessor
from .baseline_importance_processor import BaselineImportanceProcessor
from .elm import ELMRegressor
from .prune_processor import PruneProcessor
from .prune_config import PruneConfig
from .prune_config import PruneVerboseLevel
from .prune_pipeline import PrunePipeline


__all__ = ["utils", 
           "ImportanceProcessorConfig", 
           "FeatureExtractor", 
           "ELMImportanceProcessor",
           "BaselineImportanceProcessor", 
           "ELMRegressor", 
           "PruneProcessor", 
           "PruneConfig",
           "PruneVerboseLevel",
           "PrunePipeline"]