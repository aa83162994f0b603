"""Environment wrappers for mjlab."""

from mjlab.utils.wrappers.video_recorder import VideoRecorder as VideoRecorder
