"""Per-session seat manager: the piece every serving app actually calls.

Encapsulates what mira_vm/app.py used to inline: the per-seat publisher dict,
the fan-out frame sink, engine sink attach/reset, and the never-kill-the-session
error contract. One RtcSeatManager per WS session.

Engine contract: the engine object exposes a settable `frame_sink` attribute.
When at least one seat subscribes, the manager sets it to a fan-out callable
(invoked from the producer thread with HWC uint8 RGB); when the last seat
unsubscribes (or the session closes) it resets it to None. Producers should
detach the sink on exception (see fd_mira/engine_fd.py) — RTC must never
break the primary stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Optional

from .config import RtcConfig
from .publisher import RtcPublisher, rtc_available

log = logging.getLogger("wm-transport-rtc")


class RtcSeatManager:
    def __init__(self, config: Optional[RtcConfig] = None,
                 enabled_env: str = "MIRA_RTC") -> None:
        self.config = config or RtcConfig.from_env()
        self.enabled_env = enabled_env
        self.publishers: dict[int, RtcPublisher] = {}

    # -- gates ---------------------------------------------------------------
    def enabled(self, engine) -> bool:
        return (
            os.environ.get(self.enabled_env, "1") == "1"
            and rtc_available()
            and getattr(engine, "frame_sink", "absent") != "absent"
        )

    # -- sink plumbing ---------------------------------------------------------
    def _fan_sink(self):
        pubs = self.publishers

        def _sink(frame):
            for p_ in list(pubs.values()):
                try:
                    p_.frame_sink(frame)
                except Exception:  # noqa: BLE001
                    pass

        return _sink

    # -- WS message handlers ---------------------------------------------------
    async def handle_offer(self, engine, seat: int, sdp: str) -> str:
        """Returns the answer SDP; raises on failure (caller sends rtc_unavailable)."""
        old_pub = self.publishers.pop(seat, None)
        if old_pub is not None:
            await old_pub.close()
        pub = RtcPublisher(asyncio.get_running_loop(), self.config)
        try:
            answer_sdp = await pub.handle_offer(sdp)
        except Exception:
            await pub.close()  # publisher self-closes on failure; belt-and-braces
            if not self.publishers:
                # A failed re-offer may have popped the seat's only publisher —
                # don't leave the engine compositing frames for zero tracks.
                if getattr(engine, "frame_sink", "absent") != "absent":
                    engine.frame_sink = None
            raise
        self.publishers[seat] = pub
        engine.frame_sink = self._fan_sink()
        log.info("rtc answer sent (seat %d, %d live tracks)",
                 seat, len(self.publishers))
        return answer_sdp

    async def handle_off(self, engine, seat: int) -> None:
        old_pub = self.publishers.pop(seat, None)
        if old_pub is not None:
            await old_pub.close()
            if not self.publishers:
                engine.frame_sink = None

    async def close_all(self, engine=None) -> None:
        for pub in list(self.publishers.values()):
            await pub.close()
        self.publishers.clear()
        if engine is not None and getattr(engine, "frame_sink", "absent") != "absent":
            engine.frame_sink = None
