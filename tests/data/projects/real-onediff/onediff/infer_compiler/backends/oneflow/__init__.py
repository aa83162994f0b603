from ..env_var import OneflowCompileOptions
from . import oneflow as _oneflow_backend
from .deployable_module import OneflowDeployableModule
