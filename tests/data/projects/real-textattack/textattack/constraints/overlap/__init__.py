""".. _overlap:

Overlap Constraints
--------------------------

Overlap constraints determine if a transformation is valid based on character-level analysis.
"""

from .bleu_score import BLEU
from .chrf_score import chrF
from .levenshtein_edit_distance import LevenshteinEditDistance
from .meteor_score import METEOR
from .max_words_perturbed import MaxWordsPerturbed
