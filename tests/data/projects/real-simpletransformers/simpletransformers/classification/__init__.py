from simpletransformers.classification.classification_model import ClassificationModel
from simpletransformers.classification.multi_label_classification_model import (
    MultiLabelClassificationModel,
)
from simpletransformers.classification.multi_modal_classification_model import (
    MultiModalClassificationModel,
)
from simpletransformers.config.model_args import (
    ClassificationArgs,
    MultiLabelClassificationArgs,
    MultiModalClassificationArgs,
)
