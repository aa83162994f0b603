from ccvfi.type.arch import ArchType  # noqa
from ccvfi.type.base_config import BaseConfig  # noqa
from ccvfi.type.base_model import BaseModelInterface  # noqa
from ccvfi.type.config import ConfigType  # noqa
from ccvfi.type.model import ModelType  # noqa
