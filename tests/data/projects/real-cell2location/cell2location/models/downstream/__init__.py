from .ArchetypalAnalysis import ArchetypalAnalysis
from .CoLocatedGroupsSklearnNMF import CoLocatedGroupsSklearnNMF

__all__ = ["CoLocatedGroupsSklearnNMF", "ArchetypalAnalysis"]
