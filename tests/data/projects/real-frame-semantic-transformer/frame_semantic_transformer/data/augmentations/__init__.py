from .chain_augmentations import chain_augmentations
from .DataAugmentation import DataAugmentation
from .LowercaseAugmentation import LowercaseAugmentation
from .UppercaseAugmentation import UppercaseAugmentation
from .SimpleMisspellingAugmentation import SimpleMisspellingAugmentation
from .KeyboardAugmentation import KeyboardAugmentation
from .SynonymAugmentation import SynonymAugmentation
from .DoubleQuotesAugmentation import DoubleQuotesAugmentation
from .RemoveEndPunctuationAugmentation import RemoveEndPunctuationAugmentation
from .StripPunctuationAugmentation import StripPunctuationAugmentation

__all__ = (
    "chain_augmentations",
    "DataAugmentation",
    "DoubleQuotesAugmentation",
    "LowercaseAugmentation",
    "UppercaseAugmentation",
    "KeyboardAugmentation",
    "SimpleMisspellingAugmentation",
    "StripPunctuationAugmentation",
    "SynonymAugmentation",
    "RemoveEndPunctuationAugmentation",
)
