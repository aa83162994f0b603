from .sentences import SentenceSegmenter
