from .absolute import absolute_pattern, absolute_pattern_with_time
from .current import current_pattern
from .duration import duration_pattern
from .false_positive import false_positive_pattern
from .relative import relative_pattern
