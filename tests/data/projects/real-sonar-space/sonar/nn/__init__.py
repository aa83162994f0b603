# Copyright (c) Meta Platforms, Inc. and affiliates
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.

from sonar.nn.conditional_decoder_model import (
    ConditionalTransformerDecoderModel as ConditionalTransformerDecoderModel,
)
from sonar.nn.encoder_pooler import (
    AttentionEncoderOutputPooler as AttentionEncoderOutputPooler,
)
from sonar.nn.encoder_pooler import EncoderOutputPooler as EncoderOutputPooler
from sonar.nn.laser_lstm_encoder import LaserLstmEncoder as LaserLstmEncoder
from sonar.nn.sequence import SequenceModelOutput as SequenceModelOutput
