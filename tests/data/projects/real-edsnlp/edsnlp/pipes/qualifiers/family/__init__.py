from .family import FamilyContextQualifier

FamilyContext = FamilyContextQualifier
