from . import hook_points
from . import utils
from . import evals
from .past_key_value_caching import (
    HookedTransformerKeyValueCache,
    HookedTransformerKeyValueCacheEntry,
)
from . import components
from . import factories
from .HookedTransformerConfig import HookedTransformerConfig
from .FactoredMatrix import FactoredMatrix
from .ActivationCache import ActivationCache
from .HookedTransformer import HookedTransformer
from .SVDInterpreter import SVDInterpreter
from .HookedEncoder import HookedEncoder
from .HookedEncoderDecoder import HookedEncoderDecoder
from .BertNextSentencePrediction import BertNextSentencePrediction
from . import head_detector
from . import loading_from_pretrained as loading
from . import patching
from . import train

from .past_key_value_caching import (
    HookedTransformerKeyValueCache as EasyTransformerKeyValueCache,
    HookedTransformerKeyValueCacheEntry as EasyTransformerKeyValueCacheEntry,
)
from .HookedTransformer import HookedTransformer as EasyTransformer
from .HookedTransformerConfig import HookedTransformerConfig as EasyTransformerConfig
