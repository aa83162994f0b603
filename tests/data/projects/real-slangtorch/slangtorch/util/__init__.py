from .compile import jit_compile, run_ninja, NinjaResult
from .wrapper import wrapModule