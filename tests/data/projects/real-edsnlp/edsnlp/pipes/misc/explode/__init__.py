from .explode import Explode
