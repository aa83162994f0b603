"""One WebRTC peer per subscribing seat (generalized from fd_mira/rtc.py).

The GPU container terminates WebRTC itself — Modal's documented pattern
(modal.com/docs/examples/webrtc_yolo). Signaling rides the app's existing
session WebSocket as two message types (rtc_offer -> rtc_answer, non-trickle);
media leaves over ICE-punched UDP (STUN, optional TURN via RtcConfig). B200
has no NVENC (verified), so aiortc's libx264 path encodes — measured 38.9x
realtime at 512x288@20fps.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Optional

from .config import RtcConfig
from .track import WMVideoTrack

log = logging.getLogger("wm-transport-rtc")


class RtcPublisher:
    """Owns one RTCPeerConnection + one outbound video track."""

    def __init__(self, loop: asyncio.AbstractEventLoop,
                 config: Optional[RtcConfig] = None) -> None:
        self.loop = loop
        self.config = config or RtcConfig.from_env()
        self.pc = None
        self.track = None

    def frame_sink(self, frame_rgb_hwc) -> None:
        """Called from the engine/pipeline thread with (H, W, 3) uint8 RGB."""
        track = self.track
        if track is None:
            return

        def _push() -> None:
            q = track.queue
            if q.full():
                try:
                    q.get_nowait()  # drop-oldest: freshness over completeness
                except asyncio.QueueEmpty:
                    pass
            q.put_nowait(frame_rgb_hwc)

        try:
            self.loop.call_soon_threadsafe(_push)
        except RuntimeError:
            pass  # loop shutting down

    async def handle_offer(self, offer_sdp: str) -> str:
        """Accept a browser offer, return the answer SDP (candidates gathered)."""
        from aiortc import (
            RTCConfiguration,
            RTCPeerConnection,
            RTCSessionDescription,
        )
        from aiortc.rtcrtpsender import RTCRtpSender

        await self.close()
        self.pc = RTCPeerConnection(
            RTCConfiguration(iceServers=self.config.ice_servers())
        )
        try:
            @self.pc.on("iceconnectionstatechange")
            async def _on_ice() -> None:
                log.info("rtc ice state: %s", self.pc.iceConnectionState)

            # Answerer order matters: set the remote offer FIRST, then attach
            # our track to the transceiver the browser offered (recvonly on its
            # side). addTrack-before-setRemote mints a fresh transceiver the
            # client never offered, and its own track ends immediately
            # (MediaStreamError).
            await self.pc.setRemoteDescription(
                RTCSessionDescription(offer_sdp, "offer"))
            self.track = WMVideoTrack(fps=self.config.fps, clock=self.config.clock)
            attached = False
            for tr in self.pc.getTransceivers():
                if tr.kind == "video" and not attached:
                    tr.sender.replaceTrack(self.track)
                    tr.direction = "sendonly"
                    try:
                        caps = RTCRtpSender.getCapabilities("video")
                        h264 = [c for c in caps.codecs if "H264" in c.mimeType]
                        rest = [c for c in caps.codecs if "H264" not in c.mimeType]
                        tr.setCodecPreferences(h264 + rest)
                    except Exception:  # noqa: BLE001 — optimization only
                        log.warning("codec preference setup failed", exc_info=True)
                    attached = True
            if not attached:
                raise RuntimeError("offer contained no video transceiver")

            answer = await self.pc.createAnswer()
            await self.pc.setLocalDescription(answer)  # waits for ICE gathering
            return self.pc.localDescription.sdp
        except Exception:
            # Never leak a live RTCPeerConnection on a failed offer (bad SDP,
            # audio-only m-lines, ICE failure): aiortc pcs hold ICE/DTLS
            # transports that nothing GCs, so a client retrying malformed
            # offers would accumulate them for the container's lifetime.
            await self.close()
            raise

    async def close(self) -> None:
        if self.pc is not None:
            try:
                await self.pc.close()
            except Exception:  # noqa: BLE001
                pass
        self.pc = None
        self.track = None


def rtc_available() -> bool:
    try:
        import aiortc  # noqa: F401

        return True
    except Exception:  # noqa: BLE001
        return False
