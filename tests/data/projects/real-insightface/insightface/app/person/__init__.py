"""Values and options for the single-image PersonAnalysis interface."""
from .config import PersonConfig
from .types import Face, Person, MatchResult, UpdateResult, RegistrationResult

__all__ = ['PersonConfig', 'Face', 'Person', 'MatchResult', 'UpdateResult', 'RegistrationResult']
