from .hierarchical_model import (
    instantiate_textline_encoder,
    instantiate_textline_model,
    SimpleHierarchicalModel,
    HierarchicalModelForTokenClassification,
)

from .configuration_hierarchical_model import HierarchicalModelConfig