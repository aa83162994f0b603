# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.


from sonar.models.sonar_translation.factory import (
    create_sonar_speech_to_text_model as create_sonar_speech_to_text_model,
)
from sonar.models.sonar_translation.factory import (
    create_sonar_text_encoder_decoder_model as create_sonar_text_encoder_decoder_model,
)
from sonar.models.sonar_translation.model import (
    SonarEncoderDecoderModel as SonarEncoderDecoderModel,
)
