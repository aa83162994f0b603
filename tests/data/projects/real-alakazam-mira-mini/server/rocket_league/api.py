"""FastAPI router for MIRA Rocket League multiplayer (protocol A).

Endpoints (mounted at /api/rocket/*):

  POST /api/rocket/rooms                      — create a room (caller = host, seat 0)
  POST /api/rocket/rooms/{room_id}/join       — claim the next free seat
  GET  /api/rocket/rooms/{room_id}            — room snapshot
  GET  /api/rocket/health                     — relay + Modal URL sanity
  WS   /api/rocket/rooms/{room_id}/ws         — player socket (?seat=&token=)

See tasks/IMPL_CONTRACT-mira.md for the exact message shapes.
"""
from __future__ import annotations

import asyncio
import hmac
import logging
import time
from typing import Optional

from fastapi import APIRouter, HTTPException, WebSocket, WebSocketDisconnect
from pydantic import BaseModel

from .broker import RoomBroker
from .config import MIRA_KEYS, MIRA_MODAL_URL, ROCKET_ACCESS_KEY, clamp_rules
from .rooms import REGISTRY, RoomsFullError

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/rocket", tags=["rocket"])


def _check_access(key: str) -> None:
    """403 unless the deployment's ROCKET_ACCESS_KEY matches (no-op when unset/local dev)."""
    if ROCKET_ACCESS_KEY and not hmac.compare_digest(key or "", ROCKET_ACCESS_KEY):
        raise HTTPException(status_code=403, detail="access key required")

_VALID_KEYS = set(MIRA_KEYS)


class CreateOrJoinReq(BaseModel):
    name: str = ""


@router.post("/rooms")
def create_room(req: CreateOrJoinReq, key: str = ""):
    _check_access(key)
    try:
        room, player = REGISTRY.create(req.name)
    except RoomsFullError as e:
        raise HTTPException(status_code=429, detail=str(e))
    log.info("room %s created by %s", room.room_id, player.name)
    return {"room_id": room.room_id, "seat": player.seat, "player_token": player.token}


@router.post("/rooms/{room_id}/join")
def join_room(room_id: str, req: CreateOrJoinReq, key: str = ""):
    _check_access(key)
    try:
        room, player = REGISTRY.join(room_id, req.name)
    except KeyError:
        raise HTTPException(status_code=404, detail="room not found")
    except RoomsFullError:
        raise HTTPException(status_code=409, detail="room is full")
    log.info("room %s: %s joined seat %d", room.room_id, player.name, player.seat)
    return {"room_id": room.room_id, "seat": player.seat, "player_token": player.token}


@router.get("/rooms/{room_id}")
def get_room(room_id: str):
    room = REGISTRY.get(room_id)
    if room is None:
        raise HTTPException(status_code=404, detail="room not found")
    return room.snapshot()


@router.get("/health")
def health():
    REGISTRY.gc()
    return {"ok": True, "modal_url": MIRA_MODAL_URL, "rooms": len(REGISTRY.rooms)}


@router.websocket("/rooms/{room_id}/ws")
async def player_ws(websocket: WebSocket, room_id: str, seat: int, token: str):
    room = REGISTRY.get(room_id)
    if room is None:
        await websocket.close(code=4404)
        return
    player = room.players.get(seat)
    if player is None or player.token != token:
        await websocket.close(code=4403)
        return
    await websocket.accept()

    if room.broker is None:
        room.broker = RoomBroker(room)
    broker: RoomBroker = room.broker

    # Replace any stale socket for this seat.
    if player.ws is not None:
        try:
            await broker.detach_player(player)
        except Exception:  # noqa: BLE001
            pass
    player.ws = websocket
    await broker.attach_player(player)

    try:
        while True:
            data = await websocket.receive_json()
            mtype = data.get("type")
            if mtype == "keys":
                held = [k for k in (data.get("held") or []) if k in _VALID_KEYS]
                await broker.on_keys(seat, held)
            elif mtype == "rtc_offer":
                sdp = str(data.get("sdp") or "")
                if sdp and len(sdp) < 65536:
                    await broker.on_rtc_offer(seat, sdp)
            elif mtype == "start":
                if seat != 0:
                    await websocket.send_json({"type": "error", "detail": "only the host can start"})
                    continue
                if room.phase in ("lobby", "ended"):
                    room.rules = clamp_rules(room.rules)
                    asyncio.ensure_future(broker.start_match())
            elif mtype == "rules":
                if seat != 0:
                    await websocket.send_json({"type": "error", "detail": "only the host can set rules"})
                    continue
                if room.phase != "lobby":
                    await websocket.send_json({"type": "error", "detail": "rules are locked after start"})
                    continue
                merged = dict(room.rules)
                merged.update(data.get("rules") or {})
                room.rules = clamp_rules(merged)
                await broker.broadcast_room()
            elif mtype == "ping":
                await websocket.send_json({"type": "pong", "t": data.get("t", time.time() * 1000)})
    except WebSocketDisconnect:
        pass
    except Exception:  # noqa: BLE001
        log.exception("room %s seat %d ws error", room_id, seat)
    finally:
        try:
            await broker.detach_player(player)
        except Exception:  # noqa: BLE001
            log.exception("detach failed")
