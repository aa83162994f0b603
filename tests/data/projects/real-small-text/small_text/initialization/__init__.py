from small_text.initialization.strategies import (
    random_initialization,
    random_initialization_balanced,
    random_initialization_stratified
)


__all__ = [
    'random_initialization',
    'random_initialization_balanced',
    'random_initialization_stratified'
]
