# LIDNeural5 now lives in olaverse.nlp — re-exported here for backward compatibility.
# `from olaverse.llm import LIDNeural5` continues to work unchanged.
from olaverse.nlp.language_detection import LIDNeural5

__all__ = ["LIDNeural5"]
