from .crafted import Crafted
from .euclidean import Euclidean
from .oks import Oks
