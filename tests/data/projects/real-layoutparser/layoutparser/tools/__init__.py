from .shape_operations import (
    generalized_connected_component_analysis_1d,
    simple_line_detection,
    group_textblocks_based_on_category,
)
