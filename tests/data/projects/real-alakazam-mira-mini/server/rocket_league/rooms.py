"""In-memory room registry for MIRA Rocket League multiplayer.

A room = up to 4 seats, one shared GPU session (one Modal WS held by the
broker). Room codes are 6-char A-Z0-9 without confusables, same spirit as
server/rooms.py (Doom deathmatch). Registry is process-local — fine for the
single-process Railway/dev tier this backend runs as.
"""
from __future__ import annotations

import random
import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Dict, Optional

from .config import DEFAULT_RULES, N_PLAYERS, ROCKET_MAX_ROOMS, ROCKET_ROOM_TTL_S

_CODE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1L")


@dataclass
class Player:
    seat: int
    name: str
    token: str
    ws: object = None  # fastapi WebSocket when connected
    held: "set" = field(default_factory=set)
    connected: bool = False
    last_seen: float = field(default_factory=time.time)


@dataclass
class Room:
    room_id: str
    created_at: float = field(default_factory=time.time)
    phase: str = "lobby"  # lobby | waking | priming | playing | ended
    rules: dict = field(default_factory=lambda: dict(DEFAULT_RULES))
    players: "Dict[int, Player]" = field(default_factory=dict)
    broker: object = None  # RoomBroker, attached lazily
    last_activity: float = field(default_factory=time.time)

    def touch(self) -> None:
        self.last_activity = time.time()

    def free_seat(self) -> Optional[int]:
        for seat in range(N_PLAYERS):
            if seat not in self.players:
                return seat
        return None

    def connected_players(self) -> "list[Player]":
        return [p for p in self.players.values() if p.connected and p.ws is not None]

    def snapshot(self) -> dict:
        return {
            "room_id": self.room_id,
            "phase": self.phase,
            "rules": self.rules,
            "players": [
                {"seat": p.seat, "name": p.name, "connected": p.connected}
                for p in sorted(self.players.values(), key=lambda x: x.seat)
            ],
        }


class Registry:
    def __init__(self) -> None:
        self.rooms: "Dict[str, Room]" = {}

    def _new_code(self) -> str:
        while True:
            code = "".join(random.choice(_CODE_ALPHABET) for _ in range(6))
            if code not in self.rooms:
                return code

    def gc(self) -> None:
        now = time.time()
        for code in list(self.rooms.keys()):
            room = self.rooms[code]
            idle = now - room.last_activity
            if idle > ROCKET_ROOM_TTL_S or (room.phase == "ended" and idle > 60):
                self.rooms.pop(code, None)
            elif not room.connected_players():
                # Zombie rooms: created but the WS never attached (or everyone
                # left without a clean stop). Waiting out the full TTL let 4
                # failed attempts lock the whole registry behind 429s.
                grace = 90 if room.phase == "lobby" else 180
                if idle > grace:
                    self.rooms.pop(code, None)

    def create(self, name: str) -> "tuple[Room, Player]":
        self.gc()
        if len(self.rooms) >= ROCKET_MAX_ROOMS:
            raise RoomsFullError("room capacity reached, try again later")
        room = Room(room_id=self._new_code())
        player = Player(seat=0, name=(name or "Player 1")[:24], token=secrets.token_urlsafe(16))
        room.players[0] = player
        self.rooms[room.room_id] = room
        return room, player

    def join(self, room_id: str, name: str) -> "tuple[Room, Player]":
        room = self.rooms.get((room_id or "").upper())
        if room is None:
            raise KeyError(room_id)
        if room.phase == "ended":
            raise KeyError(room_id)
        seat = room.free_seat()
        if seat is None:
            raise RoomsFullError("room is full")
        player = Player(
            seat=seat, name=(name or f"Player {seat + 1}")[:24], token=secrets.token_urlsafe(16)
        )
        room.players[seat] = player
        room.touch()
        return room, player

    def get(self, room_id: str) -> Optional[Room]:
        return self.rooms.get((room_id or "").upper())


class RoomsFullError(RuntimeError):
    pass


REGISTRY = Registry()
