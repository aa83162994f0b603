""".. _grammaticality:

Grammaticality:
--------------------------

Grammaticality constraints determine if a transformation is valid based on
syntactic properties of the perturbation.
"""

from . import language_models

from .language_tool import LanguageTool
from .part_of_speech import PartOfSpeech
from .cola import COLA
