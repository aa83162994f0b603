# Copyright (c) OpenMMLab. All rights reserved.
from .base import BaseInferencer
from .feature_extractor import FeatureExtractor
from .image_caption import ImageCaptionInferencer
from .image_classification import ImageClassificationInferencer
from .image_retrieval import ImageRetrievalInferencer
from .model import (ModelHub, get_model, inference_model, init_model,
                    list_models)
from .multimodal_retrieval import (ImageToTextRetrievalInferencer,
                                   TextToImageRetrievalInferencer)
from .nlvr import NLVRInferencer
from .visual_grounding import VisualGroundingInferencer
from .visual_question_answering import VisualQuestionAnsweringInferencer

__all__ = [
    'init_model', 'inference_model', 'list_models', 'get_model', 'ModelHub',
    'ImageClassificationInferencer', 'ImageRetrievalInferencer',
    'FeatureExtractor', 'ImageCaptionInferencer',
    'TextToImageRetrievalInferencer', 'VisualGroundingInferencer',
    'VisualQuestionAnsweringInferencer', 'ImageToTextRetrievalInferencer',
    'BaseInferencer', 'NLVRInferencer'
]
