"""
word_insertions package
-------------------------------

"""

from .word_insertion import WordInsertion
from .word_insertion_random_synonym import WordInsertionRandomSynonym
from .word_insertion_masked_lm import WordInsertionMaskedLM
