from .utils import augment_llama
from .utils import augment_generate
from .utils import augment_all
from .utils import config_lade
