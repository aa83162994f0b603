from .fno import TFNO, FNO

# only import SFNO if torch_harmonics is built locally
try:
    from .sfno import SFNO
    from .local_no import LocalNO
except:
    pass
from .uno import UNO
from .uqno import UQNO
from .fnogno import FNOGNO
from .gino import GINO
from .codano import CODANO
from .base_model import get_model
