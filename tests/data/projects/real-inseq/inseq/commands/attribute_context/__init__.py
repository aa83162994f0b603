from .attribute_context import AttributeContextCommand
from .attribute_context_args import AttributeContextArgs
from .attribute_context_helpers import AttributeContextOutput, CCIOutput
from .attribute_context_viz_helpers import visualize_attribute_context

__all__ = [
    "AttributeContextCommand",
    "AttributeContextArgs",
    "AttributeContextOutput",
    "CCIOutput",
    "visualize_attribute_context",
]
