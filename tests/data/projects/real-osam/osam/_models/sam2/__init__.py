from ._models import Sam2BasePlus  # noqa: F401
from ._models import Sam2Large  # noqa: F401
from ._models import Sam2Small  # noqa: F401
from ._models import Sam2Tiny  # noqa: F401
