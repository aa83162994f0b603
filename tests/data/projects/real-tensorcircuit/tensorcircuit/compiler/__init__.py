"""
Experimental module, no software agnostic unified interface for now,
only reserve for internal use
"""

from .composed_compiler import Compiler, DefaultCompiler, default_compile
from . import simple_compiler
from . import qiskit_compiler
