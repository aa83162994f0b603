from .shaders import PREBUILT_SHADER_CONFIGS, ShaderConfig, set_shader_pack
from .version import SAPIEN_RENDER_SYSTEM
