from hurricore import trainers  # noqa: F401
from hurricore import hooks  # noqa: F401
from hurricore import utils  # noqa: F401
