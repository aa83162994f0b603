from ccrestoration.auto.config import AutoConfig  # noqa
from ccrestoration.auto.model import AutoModel  # noqa
