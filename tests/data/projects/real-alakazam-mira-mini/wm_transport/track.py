"""Queue-fed aiortc video track (generalized from fd_mira's MiraVideoTrack).

The producer (engine/pipeline thread) pushes raw HWC uint8 RGB frames; recv()
paces them onto the RTP clock. Queue is drop-oldest depth 4: freshness over
completeness — a world model stream must never build latency debt.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction

from .config import VIDEO_CLOCK


def WMVideoTrack(fps: int = 20, clock: int = VIDEO_CLOCK):
    """Factory (lazy aiortc import, mirrors the original MiraVideoTrack shape)."""
    from aiortc.mediastreams import MediaStreamTrack

    pts_step = clock // max(1, fps)

    class _Track(MediaStreamTrack):
        kind = "video"

        def __init__(self) -> None:
            super().__init__()
            self.queue: asyncio.Queue = asyncio.Queue(maxsize=4)
            self._pts = 0

        async def recv(self):
            from av import VideoFrame

            frame_nd = await self.queue.get()
            frame = VideoFrame.from_ndarray(frame_nd, format="rgb24")
            self._pts += pts_step
            frame.pts = self._pts
            frame.time_base = Fraction(1, clock)
            return frame

    return _Track()
