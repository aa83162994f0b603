"""RoomBroker — one Modal WS per room, N player WSs fanned out.

Same architecture as server/multiplayer.py (wrong-choice rooms) and
server/matrix_game/ws_broker.py (wake-then-connect), specialized for MIRA:

  - Upstream (protocol B, tasks/IMPL_CONTRACT-mira.md): start / actions / stop
    out; ready / frame(+binary concat JPEG) / stats / ended / error in.
  - Downstream (protocol A): each player receives ONLY their seat's JPEG slice
    (text frame_header, then binary), plus room/status/stats/ended messages.
  - Slow players don't stall the room: per-player bounded queue, drop-oldest.
  - The upstream WS closes when the last player disconnects — this is what lets
    the Modal container scale down (min_containers=0, scaledown_window=300).
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Optional

import httpx
import websockets

from .config import MIRA_HEALTHZ_URL, MIRA_MODAL_URL, N_PLAYERS
from .rooms import Player, Room

log = logging.getLogger(__name__)

_PLAYER_QUEUE_MAX = 6  # frames buffered per player before drop-oldest


async def _wait_modal_ready(status_cb, timeout_s: int = 900) -> dict:
    """Poll Modal /healthz until ready=True, waking the cold container.

    Modal Flash returns 503 while the container boots; the WS handshake won't
    survive that, so wake + warm synchronously first (matrix_game pattern).
    """
    t0 = time.time()
    last_note = 0.0
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0)) as client:
        while True:
            try:
                r = await client.get(MIRA_HEALTHZ_URL)
                if r.status_code == 200:
                    info = r.json()
                    if info.get("load_error"):
                        raise RuntimeError("MIRA engine load failed: %s" % info["load_error"])
                    if info.get("ready"):
                        return info
            except (httpx.HTTPError, ValueError):
                pass
            now = time.time()
            if now - last_note > 10:
                last_note = now
                await status_cb("waking GPU (%.0fs)" % (now - t0))
            if now - t0 > timeout_s:
                raise TimeoutError("Modal GPU did not become ready in %ss" % timeout_s)
            await asyncio.sleep(2.0)


class RoomBroker:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.modal_ws = None
        self.meta: Optional[dict] = None
        self._pump_task: Optional[asyncio.Task] = None
        self._clock_task: Optional[asyncio.Task] = None
        self._queues: "dict[int, asyncio.Queue]" = {}
        self._senders: "dict[int, asyncio.Task]" = {}
        self._start_lock = asyncio.Lock()
        self._pending_header: Optional[dict] = None
        self._seq = 0
        self._started_at: Optional[float] = None
        self._stopping = False

    # ------------------------------------------------------------- broadcast

    async def broadcast_json(self, payload: dict) -> None:
        for player in self.room.connected_players():
            try:
                await player.ws.send_json(payload)
            except Exception:  # noqa: BLE001 — a dying socket must not kill the room
                pass

    async def broadcast_room(self) -> None:
        snap = self.room.snapshot()
        for player in self.room.connected_players():
            try:
                await player.ws.send_json(
                    {"type": "room", "you": {"seat": player.seat}, **snap}
                )
            except Exception:  # noqa: BLE001
                pass

    async def _status(self, detail: str) -> None:
        await self.broadcast_json({"type": "status", "detail": detail})

    # ------------------------------------------------------------- lifecycle

    async def start_match(self) -> None:
        """Host pressed start: wake GPU, open the upstream WS, send start.

        Also handles "play again" after an ended match: state flags reset here so
        the same broker (and its per-player queues/senders) can host a new session.
        """
        async with self._start_lock:
            if self.room.phase in ("waking", "priming", "playing"):
                return
            self._stopping = False
            self._pending_header = None
            self._started_at = None
            self.room.phase = "waking"
            self.room.touch()
            await self.broadcast_room()
            try:
                await _wait_modal_ready(self._status)
                self.room.phase = "priming"
                await self.broadcast_room()
                # Connect + start + wait-ready, with RETRY: the engine hosts one
                # session at a time, and a stale session from a closed tab (or an
                # idle-closed socket) makes the first handshake die with a normal
                # close. The slot frees within seconds; outlast it instead of
                # failing the room. (Bit the live demo rehearsal twice.)
                last_exc = None
                for attempt in range(8):
                    try:
                        self.modal_ws = await websockets.connect(
                            # ping_timeout must survive GIL-heavy stretches on the
                            # GPU container (model load / first-session cache
                            # builds): 60s was killing healthy sessions.
                            MIRA_MODAL_URL, max_size=None, ping_interval=20, ping_timeout=180
                        )
                        await self.modal_ws.send(
                            json.dumps(
                                {
                                    "type": "start",
                                    "room_id": self.room.room_id,
                                    "n_players": N_PLAYERS,
                                    "rules": self.room.rules,
                                }
                            )
                        )
                        # Wait for ready (engine sends it first).
                        while True:
                            raw = await asyncio.wait_for(self.modal_ws.recv(), timeout=600)
                            if isinstance(raw, (bytes, bytearray)):
                                continue
                            msg = json.loads(raw)
                            if msg.get("type") == "ready":
                                self.meta = msg.get("meta") or {}
                                break
                            if msg.get("type") == "error":
                                raise RuntimeError(msg.get("detail") or "engine error")
                        last_exc = None
                        break
                    except (websockets.exceptions.ConnectionClosed, OSError, asyncio.TimeoutError) as e:
                        last_exc = e
                        log.info("room %s: engine handshake attempt %d failed (%s); retrying",
                                 self.room.room_id, attempt + 1, type(e).__name__)
                        try:
                            if self.modal_ws is not None:
                                await self.modal_ws.close()
                        except Exception:  # noqa: BLE001
                            pass
                        self.modal_ws = None
                        await asyncio.sleep(min(1.5 * (attempt + 1), 8.0))
                if last_exc is not None:
                    raise last_exc
                # Stay in "priming" until the FIRST FRAME arrives (the pump flips
                # to "playing"): the UI switches screens on phase, and flipping on
                # engine-ready showed a black canvas for the session's first seconds.
                await self._send_all_held()
                self._first_frame_seen = False
                self._pump_task = asyncio.ensure_future(self._pump_modal())
            except Exception as e:  # noqa: BLE001
                log.exception("room %s start failed", self.room.room_id)
                # Don't leak raw library reprs (e.g. "received 1000 (OK)..." from a
                # normal upstream close during a container swap) — map to human text.
                detail = str(e)
                if "1000 (OK)" in detail or "ConnectionClosed" in type(e).__name__:
                    detail = "GPU session restarted (new model deploying) — press START again"
                elif not detail or len(detail) > 160:
                    detail = "couldn't start the GPU session — try again in a minute"
                await self.broadcast_json({"type": "error", "detail": detail})
                await self.stop("error")

    async def stop(self, reason: str) -> None:
        if self._stopping:
            return
        self._stopping = True
        self.room.phase = "ended"
        self.room.touch()
        for task in (self._pump_task, self._clock_task):
            if task is not None:
                task.cancel()
        if self.modal_ws is not None:
            try:
                await self.modal_ws.send(json.dumps({"type": "stop"}))
            except Exception:  # noqa: BLE001
                pass
            try:
                await self.modal_ws.close()
            except Exception:  # noqa: BLE001
                pass
            self.modal_ws = None
        await self.broadcast_json({"type": "ended", "reason": reason})
        await self.broadcast_room()
        log.info("room %s stopped (%s)", self.room.room_id, reason)

    async def _watch_clock(self) -> None:
        try:
            match_seconds = int(self.room.rules.get("match_seconds", 300))
            while True:
                await asyncio.sleep(1.0)
                if self._started_at is not None and time.time() - self._started_at > match_seconds:
                    await self.stop("match_over")
                    return
        except asyncio.CancelledError:
            pass

    # ------------------------------------------------------------- upstream

    async def _pump_modal(self) -> None:
        """Receive frames/stats from Modal, fan out per seat."""
        try:
            while self.modal_ws is not None:
                raw = await self.modal_ws.recv()
                if isinstance(raw, (bytes, bytearray)):
                    header = self._pending_header
                    self._pending_header = None
                    if header is None:
                        log.warning("room %s: binary without header, dropping", self.room.room_id)
                        continue
                    self._fanout_frame(header, bytes(raw))
                    if not getattr(self, "_first_frame_seen", True):
                        self._first_frame_seen = True
                        self.room.phase = "playing"
                        self._started_at = time.time()
                        await self.broadcast_room()
                        self._clock_task = asyncio.ensure_future(self._watch_clock())
                    continue
                msg = json.loads(raw)
                mtype = msg.get("type")
                if mtype == "frame":
                    self._pending_header = msg
                elif mtype == "stats":
                    await self.broadcast_json(
                        {
                            "type": "stats",
                            "fps": msg.get("fps"),
                            "latent_ms": msg.get("latent_ms"),
                            "e2e_ms": None,
                        }
                    )
                elif mtype in ("rtc_answer", "rtc_unavailable"):
                    # WebRTC signaling: route the GPU's answer back to the
                    # seat that offered (media then flows browser<->GPU
                    # directly over UDP; this relay never touches it).
                    seat = int(msg.get("seat") or 0)
                    q = self._queues.get(seat)
                    if q is not None:
                        if q.full():
                            try:
                                q.get_nowait()
                            except asyncio.QueueEmpty:
                                pass
                        q.put_nowait((msg, b""))
                elif mtype in ("ended", "error"):
                    reason = msg.get("reason") or msg.get("detail") or mtype
                    await self.stop(str(reason))
                    return
        except asyncio.CancelledError:
            pass
        except Exception as e:  # noqa: BLE001
            log.warning("room %s: modal pump ended: %r", self.room.room_id, e)
            await self.stop("gpu_disconnected")

    def _fanout_frame(self, header: dict, payload: bytes) -> None:
        views = header.get("views") or []
        offsets = []
        pos = 0
        for length in views:
            offsets.append((pos, pos + int(length)))
            pos += int(length)
        if pos != len(payload):
            log.warning(
                "room %s: view lengths %s != payload %d", self.room.room_id, views, len(payload)
            )
            return
        for player in self.room.connected_players():
            idx = player.seat if player.seat < len(offsets) else 0
            start, end = offsets[idx]
            jpeg = payload[start:end]
            q = self._queues.get(player.seat)
            if q is None:
                continue
            item = (
                {
                    "type": "frame_header",
                    "fi": header.get("fi"),
                    "bytes": len(jpeg),
                    "ms": header.get("ms"),
                },
                jpeg,
            )
            if q.full():  # drop-oldest: lagging client skips frames, room never stalls
                try:
                    q.get_nowait()
                except asyncio.QueueEmpty:
                    pass
            q.put_nowait(item)

    # ------------------------------------------------------------- players

    async def attach_player(self, player: Player) -> None:
        player.connected = True
        self.room.touch()
        q: asyncio.Queue = asyncio.Queue(maxsize=_PLAYER_QUEUE_MAX)
        self._queues[player.seat] = q
        self._senders[player.seat] = asyncio.ensure_future(self._sender(player, q))
        await self.broadcast_room()

    async def _sender(self, player: Player, q: asyncio.Queue) -> None:
        try:
            while True:
                header, jpeg = await q.get()
                await player.ws.send_json(header)
                await player.ws.send_bytes(jpeg)
        except asyncio.CancelledError:
            pass
        except Exception:  # noqa: BLE001 — socket died; detach handles cleanup
            pass

    async def detach_player(self, player: Player) -> None:
        player.connected = False
        player.ws = None
        player.held = set()
        self.room.touch()
        sender = self._senders.pop(player.seat, None)
        if sender is not None:
            sender.cancel()
        self._queues.pop(player.seat, None)
        if self.modal_ws is not None:
            try:
                await self._send_held(player.seat, [])
            except Exception:  # noqa: BLE001
                pass
        await self.broadcast_room()
        if not self.room.connected_players() and self.room.phase in ("waking", "priming", "playing"):
            await self.stop("empty")

    # ------------------------------------------------------------- controls

    async def on_rtc_offer(self, seat: int, sdp: str) -> None:
        """Forward a browser's WebRTC offer to the GPU container."""
        if self.modal_ws is None:
            return
        try:
            await self.modal_ws.send(
                json.dumps({"type": "rtc_offer", "seat": seat, "sdp": sdp})
            )
        except Exception:  # noqa: BLE001
            log.warning("room %s: failed to forward rtc offer", self.room.room_id)

    async def on_keys(self, seat: int, held: "list[str]") -> None:
        room_player = self.room.players.get(seat)
        if room_player is not None:
            room_player.held = set(held)
            room_player.last_seen = time.time()
        self.room.touch()
        await self._send_held(seat, held)

    async def _send_held(self, seat: int, held: "list[str]") -> None:
        if self.modal_ws is None:
            return
        self._seq += 1
        try:
            await self.modal_ws.send(
                json.dumps({"type": "actions", "held": {str(seat): list(held)}, "seq": self._seq})
            )
        except Exception:  # noqa: BLE001
            log.warning("room %s: failed to forward keys", self.room.room_id)

    async def _send_all_held(self) -> None:
        held = {str(p.seat): sorted(p.held) for p in self.room.players.values()}
        if self.modal_ws is None:
            return
        self._seq += 1
        await self.modal_ws.send(json.dumps({"type": "actions", "held": held, "seq": self._seq}))
