from .entity_linker_model import SpanClassifier
from .entity_mention_linking import EntityMentionLinker
from .language_model import LanguageModel
from .lemmatizer_model import Lemmatizer
from .multitask_model import MultitaskModel
from .pairwise_classification_model import TextPairClassifier
from .pairwise_regression_model import TextPairRegressor
from .prefixed_tagger import PrefixedSequenceTagger  # This import has to be after SequenceTagger!
from .regexp_tagger import RegexpTagger
from .relation_classifier_model import RelationClassifier
from .relation_extractor_model import RelationExtractor
from .sequence_tagger_model import SequenceTagger
from .tars_model import FewshotClassifier, TARSClassifier, TARSTagger
from .text_classification_model import TextClassifier
from .text_regression_model import TextRegressor
from .triple_classification_model import TextTripleClassifier
from .word_tagger_model import TokenClassifier, WordTagger

__all__ = [
    "EntityMentionLinker",
    "SpanClassifier",
    "LanguageModel",
    "Lemmatizer",
    "TextPairClassifier",
    "TextTripleClassifier",
    "TextPairRegressor",
    "RelationClassifier",
    "RelationExtractor",
    "RegexpTagger",
    "SequenceTagger",
    "PrefixedSequenceTagger",
    "TokenClassifier",
    "WordTagger",
    "FewshotClassifier",
    "TARSClassifier",
    "TARSTagger",
    "TextClassifier",
    "TextRegressor",
    "MultitaskModel",
]
