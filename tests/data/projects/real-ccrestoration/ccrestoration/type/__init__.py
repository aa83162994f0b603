from ccrestoration.type.arch import ArchType  # noqa
from ccrestoration.type.base_config import BaseConfig  # noqa
from ccrestoration.type.base_model import BaseModelInterface  # noqa
from ccrestoration.type.config import ConfigType  # noqa
from ccrestoration.type.model import ModelType  # noqa
