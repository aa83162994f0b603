from jax_dataclasses._copy_and_mutate import _Mutability as Mutability

from .jaxsim_dataclass import JaxsimDataclass
from .tracing import not_tracing, tracing
from .wrappers import HashedNumpyArray, HashlessObject
