from .distance import CharacterErrorRate, Levenshtein

__all__ = ["Levenshtein", "CharacterErrorRate"]
