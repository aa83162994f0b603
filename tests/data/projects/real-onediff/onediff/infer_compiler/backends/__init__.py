from .compiler import compile, oneflow_compile
from .deployable_module import DeployableModule
from .env_var import OneflowCompileOptions
