from .matcher import GenericMatcher
