# flake8: noqa
from catalyst.metrics.functional._misc import (
    check_consistent_length,
    process_multilabel_components,
    process_recsys_components,
    get_binary_statistics,
    get_multiclass_statistics,
    get_multilabel_statistics,
    get_default_topk,
)

from catalyst.metrics.functional._accuracy import accuracy, multilabel_accuracy
from catalyst.metrics.functional._auc import auc, binary_auc
from catalyst.metrics.functional._average_precision import (
    average_precision,
    mean_average_precision,
    binary_average_precision,
)
from catalyst.metrics.functional._classification import precision_recall_fbeta_support
from catalyst.metrics.functional._cmc_score import (
    cmc_score,
    cmc_score_count,
    masked_cmc_score,
)
from catalyst.metrics.functional._f1_score import f1_score, fbeta_score
from catalyst.metrics.functional._focal import (
    sigmoid_focal_loss,
    reduced_focal_loss,
)
from catalyst.metrics.functional._hitrate import hitrate
from catalyst.metrics.functional._mrr import reciprocal_rank, mrr
from catalyst.metrics.functional._ndcg import dcg, ndcg
from catalyst.metrics.functional._precision import precision
from catalyst.metrics.functional._r2_squared import r2_squared
from catalyst.metrics.functional._recall import recall
from catalyst.metrics.functional._segmentation import (
    iou,
    dice,
    trevsky,
    get_segmentation_statistics,
)
