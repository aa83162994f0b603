from ._audio_encoder import AudioEncoder  # noqa
from ._image_encoders import JpegEncoder, PngEncoder  # noqa
from ._multi_stream_encoder import AudioStream, Encoder, VideoStream  # noqa
from ._video_encoder import VideoEncoder  # noqa
