from ankh.models.convbert_binary_classification import (
    ConvBertForBinaryClassification,
)
from ankh.models.convbert_multiclass_classification import (
    ConvBertForMultiClassClassification,
)
from ankh.models.convbert_multilabel_classification import (
    ConvBertForMultiLabelClassification,
)
from ankh.models.convbert_regression import ConvBertForRegression

from .ankh_transformers import (
    get_available_models,
    load_base_model,
    load_large_model,
    load_model,
)
