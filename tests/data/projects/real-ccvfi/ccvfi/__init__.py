from ccvfi.auto import AutoModel, AutoConfig  # noqa
from ccvfi.type import BaseConfig, ConfigType, BaseModelInterface, ArchType, ModelType  # noqa
from ccvfi.model import MODEL_REGISTRY, VFIBaseModel  # noqa
from ccvfi.arch import ARCH_REGISTRY  # noqa
from ccvfi.config import CONFIG_REGISTRY  # noqa
