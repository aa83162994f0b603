from . import config, data, modeling
from .containers import (
    FastResultHeapq,
    MaterializedQRel,
    MaterializedQRelConfig,
    ResultHeapq,
    RowsByKey,
    RowsByKeySingleSource,
)
from .data import (
    BinaryDataset,
    DataArguments,
    EncodingDataset,
    MultiLevelDataset,
    RetrievalCollator,
    available_loaders,
    register_loader,
)
from .evaluation import (
    EvaluationArguments,
    IRMetrics,
    RelevanceEvaluatorPlus,
    RetrievalEvaluator,
)
from .modeling import (
    BiEncoderRetriever,
    ModelArguments,
    PretrainedEncoder,
    PretrainedRetriever,
    RetrievalLoss,
    RetrieverOutput,
)
from .trainer import RetrievalTrainer, RetrievalTrainingArguments

__version__ = "0.0.2"
