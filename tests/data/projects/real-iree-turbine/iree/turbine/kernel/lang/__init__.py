from .prims import *
from .types import *
from .kernel_buffer import *
from .grid import *

# Include publics from the _support library.
from .._support.indexing import (
    IndexExpr,
    IndexSymbol,
    sym,
)

from .._support.dtype import (
    DataType,
    bf16,
    bool,
    i4,
    i8,
    i16,
    i32,
    i64,
    f16,
    f32,
    f64,
    f8e5m2,
    f8e5m2fnuz,
    f8e4m3fn,
    f8e4m3fnuz,
    f8e8m0fnu,
    f6e2m3fn,
    f4e2m1fn,
    index,
)
