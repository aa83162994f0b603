"""
non-pre Language Models:
-----------------------------

"""

from .language_model_constraint import LanguageModelConstraint

from .google_language_model import Google1BillionWordsLanguageModel
from .gpt2 import GPT2
from .learning_to_write import LearningToWriteLanguageModel
