from .patterns import reasons
from .reason import ReasonMatcher
