from small_text.integrations.pytorch.query_strategies.strategies import (
    BADGE,
    ExpectedGradientLength,
    ExpectedGradientLengthLayer,
    ExpectedGradientLengthMaxWord
)


__all__ = [
    'BADGE',
    'ExpectedGradientLength',
    'ExpectedGradientLengthLayer',
    'ExpectedGradientLengthMaxWord'
]
