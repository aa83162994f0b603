# ruff: noqa: F401
from .abstract import Conformal
from .aps import ConformalClsAPS
from .cqr import ConformalRegCQR
from .raps import ConformalClsRAPS
from .thr import ConformalClsTHR
