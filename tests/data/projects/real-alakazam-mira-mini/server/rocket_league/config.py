"""Environment / config for the MIRA Rocket League orchestrator.

Lives on the Railway/dev tier (anaconda python 3.9). Bridges N browser WSs per
room to ONE Modal WS (mira_vm/app.py on the mira-rocket-league app). No torch
deps here — all GPU work is on Modal. See tasks/IMPL_CONTRACT-mira.md.
"""
from __future__ import annotations

import os

# --- GPU backend (Modal Flash WS) --------------------------------------------
MIRA_MODAL_URL = os.environ.get(
    "MIRA_MODAL_URL",
    "wss://alakazam--mira-rocket-league-gpuweb.us-east.modal.direct/ws",
).rstrip("/")

# HTTPS sibling of the WS — polled to wake the cold container before the WS
# upgrade (Modal Flash returns 503 during cold boot; same trick as matrix_game).
MIRA_HEALTHZ_URL = os.environ.get(
    "MIRA_HEALTHZ_URL",
    MIRA_MODAL_URL.replace("wss://", "https://").replace("ws://", "http://").rsplit("/ws", 1)[0]
    + "/healthz",
)

# --- Rooms ---------------------------------------------------------------------
ROCKET_MAX_ROOMS = int(os.environ.get("ROCKET_MAX_ROOMS", "4"))
ROCKET_ROOM_TTL_S = int(os.environ.get("ROCKET_ROOM_TTL_S", "900"))

# Seats offered by the web tier. MUST NOT exceed the served model's n_players — the engine
# silently drops inputs for seats >= model.n_players (a 1-player model + a seat-1 human =
# spectator with dead controls). Env-overridable per deployment (1 for single-player ckpts).
N_PLAYERS = int(os.environ.get("ROCKET_N_PLAYERS", "4"))

# Access gate: when set, room create/join require this key (?key=<...> on the play link).
# The WS is already sealed by per-player tokens minted at create/join, so gating those two
# endpoints gates the whole surface. Empty (default) = open, for local dev.
ROCKET_ACCESS_KEY = os.environ.get("ROCKET_ACCESS_KEY", "")

DEFAULT_RULES = {
    "match_seconds": 300,
    "n_diffusion_steps": 8,
    # No "context" key: the GPU engine then falls back to its own MIRA_CONTEXT env,
    # which is set per-deploy to the context clip shipped WITH the checkpoint.
    # Hardcoding a name here sent every browser session to a nonexistent file →
    # synthetic gray context → instant rollout garbage.
    "seat_modes": ["human", "human", "human", "human"],
    "room_name": "",
}

MIRA_KEYS = ["W", "A", "S", "D", "Q", "E", "Space", "LShiftKey", "LControlKey"]


def clamp_rules(rules: dict) -> dict:
    """Merge partial rules onto defaults with contract clamps."""
    out = dict(DEFAULT_RULES)
    out.update({k: v for k, v in (rules or {}).items() if k in DEFAULT_RULES})
    try:
        out["match_seconds"] = max(30, min(1200, int(out["match_seconds"])))
    except (TypeError, ValueError):
        out["match_seconds"] = DEFAULT_RULES["match_seconds"]
    try:
        out["n_diffusion_steps"] = max(1, min(16, int(out["n_diffusion_steps"])))
    except (TypeError, ValueError):
        out["n_diffusion_steps"] = DEFAULT_RULES["n_diffusion_steps"]
    modes = list(out.get("seat_modes") or [])[:N_PLAYERS]
    modes = [m if m in ("human", "model", "idle") else "human" for m in modes]
    modes += ["human"] * (N_PLAYERS - len(modes))
    out["seat_modes"] = modes
    # Pass context through ONLY if the client explicitly set one — never inject a
    # default here (the engine's per-deploy MIRA_CONTEXT env is the real default).
    if out.get("context"):
        out["context"] = str(out["context"])[:64]
    else:
        out.pop("context", None)
    out["room_name"] = str(out.get("room_name") or "")[:64]
    return out
