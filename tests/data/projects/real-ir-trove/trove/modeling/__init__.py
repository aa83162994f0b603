from . import encoder_contriever, encoder_default, losses
from .loss_base import RetrievalLoss
from .model_args import ModelArguments
from .pretrained_encoder import PretrainedEncoder
from .pretrained_retriever import PretrainedRetriever, RetrieverOutput
from .retriever_biencoder import BiEncoderRetriever
