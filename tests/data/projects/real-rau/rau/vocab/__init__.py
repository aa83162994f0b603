r"""This module provides tools for mapping token types to integer IDs."""

from .base import Vocabulary, VocabularyBuilder
from .to_int import build_to_int_vocabulary, ToIntVocabulary, ToIntVocabularyBuilder
from .to_string import build_to_string_vocabulary, ToStringVocabulary, ToStringVocabularyBuilder
