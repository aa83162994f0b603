from ccvfi.auto.config import AutoConfig  # noqa
from ccvfi.auto.model import AutoModel  # noqa
