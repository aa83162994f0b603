
from .metamodule import MetaModule
from .parameter_transform import ParameterTransform
