from outformer.core.jsonformer import Jsonformer
from outformer.core.token_processors import (
    NumberStoppingCriteria,
    OutputCommaAndBracketTokens,
    OutputNumbersTokens,
    StringStoppingCriteria,
)

__all__ = [
    "Jsonformer",
    "StringStoppingCriteria",
    "NumberStoppingCriteria",
    "OutputNumbersTokens",
    "OutputCommaAndBracketTokens",
]
