from .ngram import DetectRepeatingNgramCriteria


__all__ = ["DetectRepeatingNgramCriteria"]
