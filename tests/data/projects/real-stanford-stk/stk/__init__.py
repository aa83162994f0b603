import stk.random
import stk.ops
from stk.matrix import Matrix
