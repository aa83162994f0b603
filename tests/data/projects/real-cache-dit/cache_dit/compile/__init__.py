from .utils import set_compile_configs
