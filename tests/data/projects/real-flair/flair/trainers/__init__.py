from .language_model_trainer import LanguageModelTrainer, TextCorpus
from .trainer import ModelTrainer

__all__ = ["ModelTrainer", "LanguageModelTrainer", "TextCorpus"]
