from .attribute import AttributeCommand, aggregate_attribution_scores
from .attribute_args import AttributeBaseArgs, AttributeExtendedArgs, AttributeWithInputsArgs

__all__ = [
    "AttributeCommand",
    "aggregate_attribution_scores",
    "AttributeBaseArgs",
    "AttributeExtendedArgs",
    "AttributeWithInputsArgs",
]
