from .materialized_qrel import MaterializedQRel
from .materialized_qrel_config import MaterializedQRelConfig
from .result_heapq import ResultHeapq
from .result_heapq_fast import FastResultHeapq
from .rows_by_key import RowsByKey, RowsByKeySingleSource
