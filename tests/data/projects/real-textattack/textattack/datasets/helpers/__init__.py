"""

Dataset Helpers
---------------------------------------------------------------------
"""

from .ted_multi import TedMultiTranslationDataset
