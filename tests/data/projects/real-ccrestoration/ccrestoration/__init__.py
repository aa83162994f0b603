from ccrestoration.auto import AutoModel, AutoConfig  # noqa
from ccrestoration.type import BaseConfig, ConfigType, BaseModelInterface, ArchType, ModelType  # noqa
from ccrestoration.model import MODEL_REGISTRY, SRBaseModel, VSRBaseModel, AuxiliaryBaseModel  # noqa
from ccrestoration.arch import ARCH_REGISTRY  # noqa
from ccrestoration.config import CONFIG_REGISTRY  # noqa
