from small_text.classifiers.classification import (
    Classifier,
    SklearnClassifier,
    EmbeddingMixin,
    ConfidenceEnhancedLinearSVC
)
from small_text.classifiers.factories import (
    AbstractClassifierFactory,
    SklearnClassifierFactory
)


__all__ = [
    'Classifier',
    'SklearnClassifier',
    'EmbeddingMixin',
    'ConfidenceEnhancedLinearSVC',
    'AbstractClassifierFactory',
    'SklearnClassifierFactory'
]
