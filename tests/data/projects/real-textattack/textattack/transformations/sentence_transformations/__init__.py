"""
sentence_transformations package
-----------------------------------

"""

from .sentence_transformation import SentenceTransformation
from .back_translation import BackTranslation
from .back_transcription import BackTranscription
