"""

Custom goal functions
---------------------------------------------------------------------

"""

from .logit_sum import LogitSum
from .targeted_strict import TargetedStrict
from .targeted_bonus import TargetedBonus
from .named_entity_recognition import NamedEntityRecognition
