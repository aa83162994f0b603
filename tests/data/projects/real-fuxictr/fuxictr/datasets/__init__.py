from . import criteo
from . import avazu
from . import kkbox
