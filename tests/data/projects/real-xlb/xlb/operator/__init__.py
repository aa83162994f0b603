from xlb.operator.operator import Operator
from xlb.operator.parallel_operator import ParallelOperator
