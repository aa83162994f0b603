from surya.inference.backends.base import Backend as Backend
from surya.inference.backends.base import ServerHandle as ServerHandle
