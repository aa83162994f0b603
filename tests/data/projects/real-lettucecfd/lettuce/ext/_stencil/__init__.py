from .d1q3 import D1Q3
from .d2q9 import D2Q9
from .d3q15 import D3Q15
from .d3q19 import D3Q19
from .d3q27 import D3Q27

__all__ = [
    'D1Q3',
    'D2Q9',
    'D3Q15',
    'D3Q19',
    'D3Q27'
]
