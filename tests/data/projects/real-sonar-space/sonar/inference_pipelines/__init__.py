# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from sonar.inference_pipelines.speech import (
    SpeechInferenceParams as SpeechInferenceParams,
)
from sonar.inference_pipelines.speech import (
    SpeechToEmbeddingPipeline as SpeechToEmbeddingPipeline,
)
from sonar.inference_pipelines.speech import (
    SpeechToTextPipeline as SpeechToTextPipeline,
)
from sonar.inference_pipelines.text import (
    TextToEmbeddingModelPipeline as TextToEmbeddingModelPipeline,
)
from sonar.inference_pipelines.text import (
    TextToTextModelPipeline as TextToTextModelPipeline,
)
