from .metric import eval_average_precision
from .metric import eval_f1
from .metric import eval_precision_at_k
from .metric import eval_recall_at_k
from .metric import eval_roc_auc

__all__ = ['eval_average_precision', 'eval_f1', 'eval_precision_at_k',
           'eval_recall_at_k', 'eval_roc_auc']
