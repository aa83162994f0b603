from __future__ import absolute_import

from torchreid.reid.engine.video.softmax import VideoSoftmaxEngine
from torchreid.reid.engine.video.triplet import VideoTripletEngine
