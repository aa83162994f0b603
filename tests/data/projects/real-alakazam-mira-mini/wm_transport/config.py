"""ICE/track configuration for the generalized WebRTC egress.

Everything is env-overridable so serving apps configure transport at deploy
time without code changes:

    WM_RTC_STUN_URLS        comma-separated (default: stun:stun.l.google.com:19302)
    WM_RTC_TURN_URLS        comma-separated turn:/turns: URLs (optional)
    WM_RTC_TURN_USERNAME    TURN credential pair (required if TURN_URLS set)
    WM_RTC_TURN_CREDENTIAL
    WM_RTC_FPS              track pacing, frames/s (default 20)

STUN-only punches most consumer NATs; symmetric/corporate NATs need TURN or
the client silently stays on the JPEG/WS fallback — that fallback is a feature,
not a bug: transport degradation must never kill a session.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

VIDEO_CLOCK = 90000
DEFAULT_STUN = "stun:stun.l.google.com:19302"


@dataclass
class RtcConfig:
    stun_urls: list[str] = field(default_factory=lambda: [DEFAULT_STUN])
    turn_urls: list[str] = field(default_factory=list)
    turn_username: str = ""
    turn_credential: str = ""
    fps: int = 20
    clock: int = VIDEO_CLOCK

    @classmethod
    def from_env(cls, prefix: str = "WM_RTC_") -> "RtcConfig":
        def _csv(name: str, default: str = "") -> list[str]:
            raw = os.environ.get(prefix + name, default)
            return [u.strip() for u in raw.split(",") if u.strip()]

        # A malformed FPS must degrade to the default, not raise — from_env
        # runs inside WS session setup and an exception there can strand a
        # session slot (transport config is never worth a dead session).
        try:
            fps = max(1, int(os.environ.get(prefix + "FPS", "20")))
        except ValueError:
            fps = 20

        return cls(
            stun_urls=_csv("STUN_URLS", DEFAULT_STUN) or [DEFAULT_STUN],
            turn_urls=_csv("TURN_URLS"),
            turn_username=os.environ.get(prefix + "TURN_USERNAME", ""),
            turn_credential=os.environ.get(prefix + "TURN_CREDENTIAL", ""),
            fps=fps,
        )

    def ice_servers(self):
        """Materialize aiortc RTCIceServer list (lazy import — config must be
        constructable on hosts without aiortc)."""
        from aiortc import RTCIceServer

        servers = [RTCIceServer(u) for u in self.stun_urls]
        if self.turn_urls:
            servers.append(
                RTCIceServer(
                    urls=self.turn_urls,
                    username=self.turn_username or None,
                    credential=self.turn_credential or None,
                )
            )
        return servers
