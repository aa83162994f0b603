# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from torchcodec._core._metadata import (
    AudioStreamHeaderMetadata,
    ContainerMetadata,
    DemuxerMetadata,
    StreamMetadata,
    VideoStreamHeaderMetadata,
)

from ._audio_converter import AudioConverter
from ._color_converter import ColorConverter
from ._demuxer import (
    AudioStream,
    Demuxer,
    FrameIndex,
    get_container_metadata,
    VideoStream,
)
from ._frame import Packet, RawAudioSamples, RawFrame
from ._packet_decoder import AudioPacketDecoder, VideoPacketDecoder

__all__ = [
    "Demuxer",
    "get_container_metadata",
    "VideoStream",
    "AudioStream",
    "VideoPacketDecoder",
    "AudioPacketDecoder",
    "ColorConverter",
    "AudioConverter",
    "Packet",
    "RawFrame",
    "RawAudioSamples",
    "FrameIndex",
    "DemuxerMetadata",
    "ContainerMetadata",
    "StreamMetadata",
    "VideoStreamHeaderMetadata",
    "AudioStreamHeaderMetadata",
]
