# hyperimpute relative
from . import cast  # noqa: F401,E402
from . import metrics  # noqa: F401,E402
from . import simulate  # noqa: F401,E402
