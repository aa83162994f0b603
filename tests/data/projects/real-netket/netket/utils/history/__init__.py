from netket.utils.history.history import History
from netket.utils.history.accum import (
    accum_histories,
    accum_in_tree,
    accum_histories_in_tree,
)
from netket.utils.history.history_dict import HistoryDict
