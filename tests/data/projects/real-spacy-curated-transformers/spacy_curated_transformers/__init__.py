from .util import registry  # noqa: F401
