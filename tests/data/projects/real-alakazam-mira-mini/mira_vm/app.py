"""FastAPI WebSocket server that runs INSIDE the Modal GPU container (MIRA).

One WS connection = one room session = the container's single engine session
(`@modal.concurrent(target_inputs=1)` on the Modal class enforces one room per
container). The web tier (server/rocket_league/broker.py) is the only client.

Wire format (protocol B — tasks/IMPL_CONTRACT-mira.md):

    relay -> modal:
        {"type":"start","room_id":str,"n_players":4,"rules":{...}}
        {"type":"actions","held":{"0":["W"],"3":["A","LShiftKey"]},"seq":int}
        {"type":"stop"}
    modal -> relay:
        {"type":"ready","meta":{...}}
        {"type":"frame","fi":int,"views":[l0,l1,l2,l3],"ms":float}  +  <binary concat JPEGs>
        {"type":"stats","latent_ms":float,"decode_ms":float,"fps":float}
        {"type":"ended","reason":"match_over"|"stopped"|"error"}
        {"type":"error","detail":str}

GET /healthz -> {"ready":bool,"load_error":str|null,"ckpt":str,"device":str}
(the relay polls this to wake + warm the container before opening the WS,
mirroring server/matrix_game/ws_broker.py).
"""
from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading
import time
from typing import Any, Optional

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from wm_transport import RtcSeatManager

log = logging.getLogger("mira-vm")
logging.basicConfig(
    level=os.environ.get("LOG_LEVEL", "INFO"),
    format="[%(asctime)s] %(levelname)s %(name)s: %(message)s",
)

app = FastAPI()
# Browsers poll /healthz cross-origin to narrate the cold start (the player
# pages live on pages.dev). GET-only; the WS path is unaffected by CORS.
from fastapi.middleware.cors import CORSMiddleware  # noqa: E402
app.add_middleware(CORSMiddleware, allow_origins=["*"],
                   allow_methods=["GET"], allow_headers=["*"])

# ---------------------------------------------------------------------------
# Engine singleton — loaded once per container, in a background thread so
# /healthz can report progress while torch + the checkpoint come up.
# ---------------------------------------------------------------------------
_engine = None
_load_error: Optional[str] = None
_load_started = False
_load_lock = threading.Lock()
_session_lock = threading.Lock()  # one WS session at a time


def _load_engine() -> None:
    global _engine, _load_error
    try:
        if os.environ.get("MIRA_ENGINE", "reference") == "fd":
            from fd_mira.engine_fd import MiraFDEngine as MiraEngine
        else:
            from mira_vm.engine import MiraEngine

        eng = MiraEngine()
        # Warmup: run a throwaway session so first-inference compile is paid BEFORE
        # ready=True. A cold client otherwise waits minutes on a silent WS and the
        # proxy idle-kills it (observed: 2.5 min compile on the 1B checkpoint).
        # ready now means "this container serves frames fast" — and a warmup failure
        # is a real load failure, surfaced via /healthz like any other.
        t0 = time.time()
        eng.start_session(None)
        # fd engine + CUDA graphs: capture happens on warmup step 3 (2 eager
        # warmup iters), so keep >= 4 steps when MIRA_WARMUP_STEPS says so.
        for _ in range(int(os.environ.get("MIRA_WARMUP_STEPS", "2"))):
            eng.step()
        eng.end_session()
        log.info("engine warmup done in %.1fs", time.time() - t0)
        if os.environ.get("MIRA_GC_TUNE", "0") == "1":
            import gc

            # Measured: ~15-18 stalls/min >250ms in the frame loop, transport-
            # independent — gen-2 GC sweeps over the loaded model's object
            # graph. Freeze the post-warmup heap (models never get collected
            # anyway) and defer gen2 so collections stay small.
            gc.collect()
            gc.freeze()
            gc.set_threshold(50000, 500, 1000)
            log.info("gc tuned: heap frozen, thresholds %s", gc.get_threshold())
        if os.environ.get("MIRA_GC_LOG", "0") == "1":
            import gc

            t_start = {}

            def _gc_cb(phase, info):
                if phase == "start":
                    t_start["t"] = time.perf_counter()
                elif phase == "stop" and "t" in t_start:
                    ms = (time.perf_counter() - t_start.pop("t")) * 1000
                    if ms > 50:
                        log.warning("gc pause %.0fms (gen %s)", ms, info.get("generation"))

            gc.callbacks.append(_gc_cb)
        _engine = eng
    except Exception as e:  # noqa: BLE001 — surface any load failure via /healthz
        log.exception("engine load failed")
        _load_error = f"{type(e).__name__}: {e}"


def _ensure_loading() -> None:
    global _load_started
    with _load_lock:
        if not _load_started:
            _load_started = True
            threading.Thread(target=_load_engine, name="engine-load", daemon=True).start()


@app.on_event("startup")
async def _startup() -> None:
    _ensure_loading()


@app.get("/healthz")
async def healthz() -> dict:
    _ensure_loading()
    return {
        "ready": _engine is not None,
        "load_error": _load_error,
        "ckpt": os.environ.get("MIRA_CKPT", ""),
        "deploy_id": os.environ.get("MIRA_DEPLOY_ID", ""),
        "device": "cuda" if _engine is not None and _engine.device.type == "cuda" else "loading",
    }


# ---------------------------------------------------------------------------
# Session plumbing: a producer thread steps the engine flat-out (paced to the
# model's latent rate) and pushes (header, payload) packets into a bounded
# queue; an asyncio task drains it onto the WS. Bounded queue = backpressure.
# ---------------------------------------------------------------------------
class _Session:
    def __init__(self, engine: Any, rules: dict) -> None:
        self.engine = engine
        self.rules = rules
        self.match_seconds = max(30, min(1200, int(rules.get("match_seconds", 300))))
        self.q: "queue.Queue[Optional[tuple[dict, bytes]]]" = queue.Queue(maxsize=16)
        self.stop_event = threading.Event()
        self.error: Optional[str] = None
        self.ended_reason: Optional[str] = None
        self.started_at = time.time()
        self.frames_sent = 0
        self.thread = threading.Thread(target=self._run, name="engine-step", daemon=True)

    def _put(self, item: "tuple[dict, bytes]") -> bool:
        """Bounded put that still observes stop_event (a plain q.put would
        deadlock the producer thread if the sender died with a full queue)."""
        while not self.stop_event.is_set():
            try:
                self.q.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    def _emit(self, frames: list, stats: dict, step_wall_ms: float,
              sink_frames: "list | None" = None) -> None:
        """Fan one step's encoded frames + periodic stats into the send queue.
        ``sink_frames`` (RTC composites, one per frame) are fed to the engine's
        frame_sink HERE, at the same paced cadence as the WS frames — feeding
        them at encode time sent the td-pair back-to-back (RTC p95 ~143 ms)."""
        fi_base = stats["fi"] - len(frames)
        # Pace the td-pair: both frames of a step used to leave back-to-back
        # (~24 ms apart) followed by a ~90-190 ms gap — burst-then-stall reads
        # as stutter in the browser. Spreading them ~half a latent interval
        # apart makes ARRIVAL itself smooth (probe gate: interframe p95/p50
        # <= 2). The sleep runs on the encoder worker, whose budget (~97 ms
        # GPU step) comfortably covers encode (~19 ms) + pace (~45 ms).
        n_fr = max(1, len(frames))
        pace_s = max(0.0, (1.0 / n_fr) / float(getattr(self.engine, "latent_fps", 10.0)) - 0.005)
        for t, per_seat in enumerate(frames):
            header = {
                "type": "frame",
                "fi": fi_base + t,
                "views": [len(b) for b in per_seat],
                "ms": round(stats["latent_ms"] + stats["decode_ms"], 2),
            }
            if t > 0 and pace_s > 0:
                time.sleep(pace_s)
            sink = getattr(self.engine, "frame_sink", None)
            if sink_frames is not None and t < len(sink_frames) and sink is not None:
                try:
                    sink(sink_frames[t])
                except Exception:  # noqa: BLE001 — RTC never breaks the stream
                    pass
            if not self._put((header, b"".join(per_seat))):  # backpressure paces the pipeline
                return
        now = time.time()
        if now - self._last_stats > 1.0:
            self._last_stats = now
            # fps = the actual production cadence (GPU step wall). With the
            # pipelined encoder the JPEG cost is hidden and must not be added.
            smsg = {
                "type": "stats",
                "latent_ms": round(stats["latent_ms"], 2),
                "decode_ms": round(stats["decode_ms"], 2),
                "fps": round(self.engine.td / max(step_wall_ms / 1000.0, 1e-6), 2),
            }
            if os.environ.get("MIRA_DEBUG_HELD") == "1" and hasattr(self.engine, "debug_state"):
                try:  # routing snapshot: which seats hold keys + live modes
                    smsg.update(self.engine.debug_state())
                except Exception:  # noqa: BLE001
                    pass
            self._put((smsg, b""))

    def _encode_loop(self, encq: "queue.Queue") -> None:
        """Worker: JPEG-encode + emit, overlapped with the next GPU step."""
        eng = self.engine
        try:
            while True:
                item = encq.get()
                if item is None:
                    return
                arr, stats, step_wall_ms = item
                sink_frames: list = []
                frames = (eng.encode_frames(arr, sink_frames_out=sink_frames)[0]
                          if arr is not None else [])
                self._emit(frames, stats, step_wall_ms, sink_frames)
        except Exception as e:  # noqa: BLE001
            log.exception("encode loop failed")
            self.error = f"{type(e).__name__}: {e}"
            self.ended_reason = "error"
            self.stop_event.set()

    def _run(self) -> None:
        eng = self.engine
        interval = 1.0 / eng.latent_fps
        self._last_stats = 0.0
        # Pipelined path when the engine exposes step_raw/encode_frames: the
        # GPU thread produces the next step while the worker encodes the
        # previous one — the ~19 ms JPEG cost leaves the step cadence
        # (4-view B200 serve-out: 15.4 -> ~17.8 fps).
        pipelined = hasattr(eng, "step_raw") and hasattr(eng, "encode_frames")
        encq: "queue.Queue" = queue.Queue(maxsize=2)
        enc_thread: "Optional[threading.Thread]" = None
        if pipelined:
            enc_thread = threading.Thread(
                target=self._encode_loop, args=(encq,), name="jpeg-encode", daemon=True
            )
            enc_thread.start()
        try:
            while not self.stop_event.is_set():
                if time.time() - self.started_at > self.match_seconds:
                    self.ended_reason = "match_over"
                    break
                t0 = time.perf_counter()
                if pipelined:
                    arr, stats = eng.step_raw()
                    step_ms_wall = (time.perf_counter() - t0) * 1000.0
                    if step_ms_wall > 200:
                        log.warning("slow step: %.0fms (latent %.0f, encode overlapped)",
                                    step_ms_wall, stats["latent_ms"])
                    while not self.stop_event.is_set():  # bounded, stop-aware put
                        try:
                            encq.put((arr, stats, step_ms_wall), timeout=0.5)
                            break
                        except queue.Full:
                            continue
                else:
                    frames, stats = eng.step()  # frames[t][seat] = jpeg bytes
                    step_ms_wall = (time.perf_counter() - t0) * 1000.0
                    if step_ms_wall > 200:
                        log.warning("slow step: %.0fms (latent %.0f jpeg %.0f)",
                                    step_ms_wall, stats["latent_ms"], stats["jpeg_ms"])
                    self._emit(frames, stats, step_ms_wall)
                # Pace to real time when the model is faster than the latent rate.
                elapsed = time.perf_counter() - t0
                if elapsed < interval:
                    time.sleep(interval - elapsed)
        except Exception as e:  # noqa: BLE001
            log.exception("engine step loop failed")
            self.error = f"{type(e).__name__}: {e}"
            self.ended_reason = "error"
        finally:
            self.stop_event.set()
            if enc_thread is not None:
                try:
                    encq.put_nowait(None)  # sentinel -> encoder exits
                except queue.Full:
                    try:
                        encq.get_nowait()
                    except queue.Empty:
                        pass
                    try:
                        encq.put_nowait(None)
                    except queue.Full:
                        pass
            try:
                self.q.put_nowait(None)  # sentinel -> sender exits
            except queue.Full:
                try:
                    self.q.get_nowait()  # make room for the sentinel
                except queue.Empty:
                    pass
                try:
                    self.q.put_nowait(None)
                except queue.Full:
                    pass


@app.websocket("/ws")
async def ws_endpoint(websocket: WebSocket) -> None:
    await websocket.accept()
    _ensure_loading()

    # Wait (bounded) for the engine if the relay raced the load.
    t0 = time.time()
    while _engine is None and _load_error is None and time.time() - t0 < 600:
        await asyncio.sleep(1.0)
    if _engine is None:
        await websocket.send_json({"type": "error", "detail": _load_error or "engine load timeout"})
        await websocket.close()
        return

    if not _session_lock.acquire(blocking=False):
        await websocket.send_json({"type": "error", "detail": "container busy (one room per container)"})
        await websocket.close()
        return

    session: Optional[_Session] = None
    rtc = None
    try:
        # Inside the try: RtcSeatManager() parses WM_RTC_* env, and any raise
        # before the finally would strand _session_lock (container bricked as
        # "busy" for its remaining life).
        rtc = RtcSeatManager()  # per-seat publishers + fan-out sink (wm_transport)
        first = await websocket.receive_json()
        if first.get("type") != "start":
            await websocket.send_json({"type": "error", "detail": "first message must be start"})
            return
        rules = first.get("rules") or {}
        try:
            # In a thread: start_session encodes context + builds caches for
            # seconds — synchronous here it blocks the event loop, so the
            # relay's WS keepalive pings go unanswered and it kills the
            # connection ("keepalive ping timeout" mid-start).
            meta = await asyncio.to_thread(_engine.start_session, rules)
        except Exception as e:  # noqa: BLE001
            log.exception("start_session failed")
            await websocket.send_json({"type": "error", "detail": f"start failed: {e}"})
            return
        await websocket.send_json({"type": "ready", "meta": meta})

        session = _Session(_engine, rules)
        session.thread.start()

        async def sender() -> None:
            loop = asyncio.get_running_loop()
            while True:
                item = await loop.run_in_executor(None, session.q.get)
                if item is None:
                    break
                header, payload = item
                await websocket.send_json(header)
                if payload:
                    await websocket.send_bytes(payload)
                    session.frames_sent += 1
            reason = session.ended_reason or "stopped"
            msg: dict = {"type": "ended", "reason": reason}
            if session.error:
                msg["detail"] = session.error
            await websocket.send_json(msg)

        async def receiver() -> None:
            while not session.stop_event.is_set():
                data = await websocket.receive_json()
                mtype = data.get("type")
                if mtype == "actions":
                    held = data.get("held") or {}
                    for seat_str, keys in held.items():
                        try:
                            _engine.set_held(int(seat_str), list(keys or []))
                        except (TypeError, ValueError):
                            pass
                elif mtype == "modes":
                    # Relay's effective seat modes (drive switches, joins,
                    # leaves). Was silently DROPPED before this handler — a
                    # freed car never returned to autopilot and guidance kept
                    # amplifying the wrong seats.
                    if hasattr(_engine, "set_seat_modes"):
                        try:
                            _engine.set_seat_modes(list(data.get("seat_modes") or []))
                        except Exception:  # noqa: BLE001 — modes never kill a session
                            log.exception("set_seat_modes failed")
                elif mtype == "rtc_offer":
                    # WebRTC video egress via wm_transport (wire contract + adoption
                    # guide: wm_transport/README.md): browser offer in, answer out;
                    # media flows peer-to-peer over UDP while this WS keeps carrying
                    # signaling/input/JPEG-fallback. Per-seat publishers + the
                    # composite fan-out sink live in RtcSeatManager.
                    seat = int(data.get("seat") or 0)
                    try:
                        if rtc.enabled(_engine):
                            answer_sdp = await rtc.handle_offer(
                                _engine, seat, str(data.get("sdp") or "")
                            )
                            await websocket.send_json(
                                {"type": "rtc_answer", "seat": seat, "sdp": answer_sdp}
                            )
                        else:
                            await websocket.send_json(
                                {"type": "rtc_unavailable", "seat": seat}
                            )
                    except Exception as e:  # noqa: BLE001 — RTC never kills the session
                        log.exception("rtc_offer handling failed")
                        await websocket.send_json(
                            {"type": "rtc_unavailable", "seat": seat, "detail": str(e)[:200]}
                        )
                elif mtype == "rtc_off":
                    await rtc.handle_off(_engine, int(data.get("seat") or 0))
                elif mtype == "stop":
                    session.ended_reason = session.ended_reason or "stopped"
                    session.stop_event.set()
                    return

        send_task = asyncio.create_task(sender())
        recv_task = asyncio.create_task(receiver())
        done, pending = await asyncio.wait(
            {send_task, recv_task}, return_when=asyncio.FIRST_COMPLETED
        )
        session.stop_event.set()
        # Let the sender finish naturally (the producer's sentinel ends it and it
        # flushes the trailing "ended" message); only the receiver gets cancelled.
        if recv_task in pending:
            recv_task.cancel()
        if send_task in pending:
            try:
                await asyncio.wait_for(send_task, timeout=5.0)
            except Exception:  # noqa: BLE001
                send_task.cancel()
        for task in done:
            exc = task.exception()
            if exc is not None and not isinstance(exc, (WebSocketDisconnect, asyncio.CancelledError)):
                log.warning("session task error: %r", exc)
    except WebSocketDisconnect:
        log.info("relay disconnected")
    except Exception:  # noqa: BLE001
        log.exception("ws handler failed")
    finally:
        if rtc is not None:
            try:
                # Timeout: this finally still holds _session_lock — a wedged
                # aiortc pc.close() must not turn into a permanently "busy"
                # container.
                await asyncio.wait_for(rtc.close_all(_engine), timeout=5.0)
            except Exception:  # noqa: BLE001
                log.exception("rtc close_all failed")
            # Sync reset in case the timeout cancelled close_all before it
            # detached the sink — the engine outlives this session.
            if getattr(_engine, "frame_sink", "absent") != "absent":
                _engine.frame_sink = None
        if session is not None:
            session.stop_event.set()
            session.thread.join(timeout=10)
        try:
            _engine.end_session()
        except Exception:  # noqa: BLE001
            log.exception("end_session failed")
        _session_lock.release()
        try:
            await websocket.close()
        except Exception:  # noqa: BLE001
            pass
        log.info("session closed")
