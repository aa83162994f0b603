from rlcard.utils.logger import Logger
from rlcard.utils import seeding
from rlcard.utils.utils import *
from rlcard.utils.pettingzoo_utils import *
