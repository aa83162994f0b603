from .modeling import BertForMultiLabelSequenceClassification

# from .data import BertDataBunch, InputExample, InputFeatures, MultiLabelTextProcessor, convert_examples_to_features
from .data_cls import (
    BertDataBunch,
    InputExample,
    InputFeatures,
    MultiLabelTextProcessor,
    convert_examples_to_features,
)


from .learner_cls import BertLearner


# from .prediction import BertClassificationPredictor
from .utils.spellcheck import BingSpellCheck



from .onnx_helper import *
