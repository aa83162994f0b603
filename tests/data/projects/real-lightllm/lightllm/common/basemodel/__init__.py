from .layer_weights.base_layer_weight import BaseLayerWeight
from .layer_weights.pre_and_post_layer_weight import PreAndPostLayerWeight
from .layer_weights.transformer_layer_weight import TransformerLayerWeight
from .layer_infer.base_layer_infer import BaseLayerInfer
from .layer_infer.pre_layer_infer import PreLayerInfer
from .layer_infer.post_layer_infer import PostLayerInfer
from .layer_infer.transformer_layer_infer import TransformerLayerInfer
from .layer_infer.template.transformer_layer_infer_template import TransformerLayerInferTpl
from .layer_infer.template.transformer_layer_infer_template_wquant import TransformerLayerInferWeightQuantTpl
from .layer_infer.template.transformer_layer_infer_template_awquant import TransformerLayerInferActivationWeightQuantTpl
from .layer_infer.template.pre_layer_infer_template import PreLayerInferTpl
from .layer_infer.template.post_layer_infer_template import PostLayerInferTpl
from .infer_struct import InferStateInfo
from .splitfuse_infer_struct import SplitFuseInferStateInfo
from .basemodel import TpPartBaseModel


__all__ = [
    "BaseLayerWeight",
    "PreAndPostLayerWeight",
    "TransformerLayerWeight",
    "BaseLayerInfer",
    "PreLayerInfer",
    "PostLayerInfer",
    "TransformerLayerInfer",
    "TransformerLayerInferTpl",
    "InferStateInfo",
    "TpPartBaseModel",
    "PreLayerInferTpl",
    "PostLayerInferTpl",
    "TransformerLayerInferWeightQuantTpl",
    "SplitFuseInferStateInfo",
    "TransformerLayerInferActivationWeightQuantTpl"
]