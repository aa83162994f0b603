"""MIRA streaming engine — runs INSIDE the Modal GPU container.

Wraps the real MIRA inference API (github.com/mira-wm/mira @ 6aae8d3) into a
session-oriented engine the WebSocket layer can drive:

    engine = MiraEngine()                    # loads the checkpoint once (env MIRA_CKPT)
    engine.start_session(rules)              # (re)builds context, kv-cache, action history
    engine.set_held(seat, ["W", "Space"])    # thread-safe, edge-triggered from the WS
    jpegs, stats = engine.step()             # one latent frame -> td video frames per player

Per latent step the engine:
  1. appends `atd` rows of the currently-held controls to the rolling ActionTensors
     history (the paper's convention: a live player's held control is reused for the
     whole latent chunk — see LatentWorldModel.streaming_inference_step's comment),
  2. runs MultiWrapperWorldModel.streaming_inference_step (or a local variant that
     forwards a per-player `drop_mask` so `seat_modes=["model", ...]` seats are driven
     by the world model itself — the action-dropout mechanism from the paper),
  3. decodes the last <=3 latents per player (causal ViT decoder needs temporal
     context) and JPEG-encodes only the newest `td` video frames per player.

Checkpoint weights live on the `mira-weights` Modal volume (see tasks/IMPL_CONTRACT-mira.md).
"""
from __future__ import annotations

import io
import logging
import os
import threading
import time
from pathlib import Path
from typing import Optional

import numpy as np
import torch
from einops import rearrange

log = logging.getLogger("mira-engine")

MIRA_KEYS = ["W", "A", "S", "D", "Q", "E", "Space", "LShiftKey", "LControlKey"]
KEY_INDEX = {k: i for i, k in enumerate(MIRA_KEYS)}

DEFAULT_RULES = {
    "match_seconds": 300,
    "n_diffusion_steps": int(os.environ.get("MIRA_N_DIFFUSION_STEPS", "8")),
    "context": os.environ.get("MIRA_CONTEXT", "default"),
    "seat_modes": ["human", "human", "human", "human"],
}


def _jpeg_encode(frame_chw_float: "torch.Tensor", quality: int) -> bytes:
    """float CHW [0,1] -> JPEG bytes. Uses cv2 (BGR!) with a PIL fallback."""
    arr = (frame_chw_float.clamp(0, 1) * 255.0).to(torch.uint8).cpu().numpy()
    hwc = np.transpose(arr, (1, 2, 0))  # HWC RGB
    try:
        import cv2

        ok, buf = cv2.imencode(".jpg", hwc[:, :, ::-1], [int(cv2.IMWRITE_JPEG_QUALITY), quality])
        if not ok:
            raise RuntimeError("cv2.imencode returned not-ok")
        return buf.tobytes()
    except Exception:  # pragma: no cover - cv2 present in the image; fallback for local runs
        from PIL import Image

        bio = io.BytesIO()
        Image.fromarray(hwc).save(bio, format="JPEG", quality=quality)
        return bio.getvalue()


class MiraEngine:
    """One loaded model, one active session at a time (Modal: one room per container)."""

    def __init__(self, ckpt_path: Optional[str] = None, device: str = "cuda") -> None:
        from mira.inference.loading import load_world_model

        self.ckpt_path = Path(ckpt_path or os.environ["MIRA_CKPT"])
        # Local play runs this same engine on consumer hardware: MIRA_DEVICE overrides,
        # else cuda -> mps -> cpu. Server deployments are unaffected (cuda stays first).
        requested = os.environ.get("MIRA_DEVICE", device)
        if requested == "cuda" and not torch.cuda.is_available():
            mps_ok = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
            requested = "mps" if mps_ok else "cpu"
        self.device = torch.device(requested)
        self.jpeg_quality = int(os.environ.get("MIRA_JPEG_QUALITY", "80"))
        # Optional raw-frame tap for the WebRTC track (wm_transport/README.md).
        # Set by the WS app when a peer connects; called from the step thread
        # with (H, W, 3) uint8 RGB. Mirrors fd_mira/engine_fd.py.
        self.frame_sink = None
        self.autocast_bf16 = os.environ.get("MIRA_AUTOCAST_BF16", "1") == "1" and self.device.type == "cuda"
        # MPS: fp16 autocast (bf16 is emulated/slow on M1-class GPUs).
        self.autocast_mps = os.environ.get("MIRA_AUTOCAST_MPS", "1") == "1" and self.device.type == "mps"

        t0 = time.time()
        log.info("loading MIRA checkpoint %s on %s", self.ckpt_path, self.device)
        self.model, self.run_cfg = load_world_model(self.ckpt_path, device=self.device)
        self.model.eval()
        self.is_multi = hasattr(self.model, "single_world_model")
        self._swm = self.model.single_world_model if self.is_multi else self.model
        self.n_players = int(getattr(self.model, "n_players", 1))
        log.info(
            "model loaded in %.1fs — multi=%s players=%d ctx_latents=%d td=%d atd=%d",
            time.time() - t0,
            self.is_multi,
            self.n_players,
            self._swm.n_context_latents,
            self._swm.temporal_downsampling,
            self._swm.action_temporal_downsampling,
        )

        # --- static geometry read off the model ---
        self.td = int(self._swm.temporal_downsampling)  # video frames per latent
        self.atd = int(self._swm.action_temporal_downsampling)  # action rows per latent
        self.window = int(self._swm.n_context_latents) + 1
        # Per-VIEW geometry comes from the codec config: the multi wrapper's inner
        # wm config carries the TILED height (n_players * view height), while the
        # codec runs per player at the original view size.
        vcfg = self._swm.codec.config.encoder.video
        self.height, self.width = int(vcfg.height), int(vcfg.width)
        self.video_fps = int(self._swm.config.video.fps)
        self.latent_fps = self.video_fps / self.td

        # --- optional Core ML decode path (Mac: ANE/GPU; see mira_vm/coreml_decoder.py) ---
        self._coreml_dec = None
        self._decode_pipeline = None
        dec_env = os.environ.get("MIRA_DECODER", "")
        if dec_env.startswith("coreml"):
            from mira_vm.coreml_decoder import CoreMLDecoder, PipelinedDecoder

            pkg = dec_env.partition(":")[2] or str(
                Path(self.ckpt_path).parent.parent / "decoder_small.mlpackage"
            )
            cu = os.environ.get("MIRA_DECODER_CU", "ALL")
            lm, ls = self._swm.latent_mean, self._swm.latent_std
            if os.environ.get("MIRA_DECODE_PIPELINE", "0") == "1":
                # decode child process (thread pipelining is GIL-bound through
                # coremltools.predict — see mira_vm/coreml_decoder.py)
                if "," in cu:
                    from mira_vm.coreml_decoder import DualPipelinedDecoder
                    self._decode_pipeline = DualPipelinedDecoder(
                        pkg, [x.strip() for x in cu.split(",")], lm, ls)
                else:
                    self._decode_pipeline = PipelinedDecoder(pkg, cu, lm, ls)
            else:
                self._coreml_dec = CoreMLDecoder(pkg, compute_units=cu)
            self._decode_stride = max(1, int(os.environ.get("MIRA_DECODE_STRIDE", "1")))
            self._stride_i = 0
            from collections import deque

            self._frame_q: "deque[torch.Tensor]" = deque()
            log.info("Core ML decode path active (cu=%s pipeline=%s)", cu,
                     self._decode_pipeline is not None)

        # --- optional MLX DiT backend (Mac: Metal; see mira_vm/mlx_stream.py) ---
        # The torch model above still provides geometry + context encoding (run it on CPU:
        # MIRA_DEVICE=cpu) — the per-step sampling moves entirely to MLX.
        self._mlx = None
        self._np_rng = None
        if os.environ.get("MIRA_BACKEND", "") == "mlx":
            from mira_vm.mlx_stream import ThreadedMlxSampler as MlxStreamingSampler

            mlx_ckpt = os.environ.get("MIRA_MLX_CKPT", str(self.ckpt_path))
            mlx_cfg = os.environ.get(
                "MIRA_MLX_CONFIG",
                str(next(p / "world_model_config.yaml" for p in Path(mlx_ckpt).parents
                         if (p / "world_model_config.yaml").exists())),
            )
            t0 = time.time()
            self._mlx = MlxStreamingSampler(mlx_ckpt, mlx_cfg)
            log.info("MLX DiT backend active in %.1fs (ckpt=%s delta=%s)",
                     time.time() - t0, mlx_ckpt, self._mlx.has_delta)
            assert self._mlx.window == self.window and \
                self._mlx.temporal_downsampling == self.td, \
                "MLX checkpoint geometry differs from the engine's torch model"

        # --- session state (reset by start_session) ---
        self._lock = threading.Lock()
        self._held: list[set[str]] = [set() for _ in range(self.n_players)]
        self._z: Optional[torch.Tensor] = None
        self._kv = None
        self._actions_hist = None  # ActionTensors, batch=n_players
        self._drop_mask: Optional[torch.Tensor] = None
        self._cfg = None  # WorldModelInferenceConfig
        self._rules = dict(DEFAULT_RULES)
        self._fi = 0  # video frame index
        self._hist_cap = max(4 * self.window * self.atd, 64)
        self.session_active = False

    # ------------------------------------------------------------------ context

    def _load_context(self, name: str) -> "tuple[torch.Tensor, torch.Tensor]":
        """Return (frames uint8 (P, T, C, H, W), actions int32 (P, T_a, 9)).

        T = window * td so the encoded context fills the denoise window exactly.
        Sources: /weights/context/<name>.npz, else synthetic mid-gray frames with a
        per-player brightness offset (so the four decoded views are distinguishable).
        """
        p, t_frames = self.n_players, self.window * self.td
        apvf = max(1, self._swm.config.actions.target_fps // self.video_fps)
        t_actions = t_frames * apvf
        # MIRA_CONTEXT_PATH: explicit npz path for local play (no /weights volume).
        env_path = os.environ.get("MIRA_CONTEXT_PATH")
        path = Path(env_path) if env_path else Path("/weights/context") / f"{name}.npz"
        if name != "synthetic" and path.exists():
            data = np.load(path)
            frames = torch.from_numpy(data["frames"][:, -t_frames:]).to(torch.uint8)
            actions = torch.from_numpy(data["actions"][:, -t_actions:]).to(torch.int32)
            if frames.shape[0] != p or frames.shape[1] != t_frames:
                raise ValueError(
                    f"context {name}: got frames {tuple(frames.shape)}, need ({p},{t_frames},3,H,W)"
                )
            log.info("context '%s' loaded from volume: frames=%s", name, tuple(frames.shape))
            return frames, actions
        if name != "synthetic":
            log.warning("context '%s' not found at %s — using synthetic", name, path)
        frames = torch.full((p, t_frames, 3, self.height, self.width), 127, dtype=torch.uint8)
        for k in range(p):  # per-player offset so views differ
            frames[k] += 8 * k
        actions = torch.zeros((p, t_actions, len(MIRA_KEYS)), dtype=torch.int32)
        return frames, actions

    # ------------------------------------------------------------------ session

    def start_session(self, rules: Optional[dict] = None) -> dict:
        """Encode context, prime the rolling window + action history. Returns meta."""
        from mira.data.batch import VideoActionBatch
        from mira.world_model.actions_config import ActionTensors
        from mira.world_model.config import WorldModelInferenceConfig

        r = dict(DEFAULT_RULES)
        r.update(rules or {})
        r["n_diffusion_steps"] = max(1, min(16, int(r.get("n_diffusion_steps", 8))))
        # MIRA_FORCE_STEPS overrides the UI's requested step count (few-step distilled model
        # is built for 2 steps; the UI defaults to 8 which would crawl on M1).
        _force = os.environ.get("MIRA_FORCE_STEPS")
        if _force:
            r["n_diffusion_steps"] = max(1, min(16, int(_force)))
        seat_modes = list(r.get("seat_modes") or [])[: self.n_players]
        seat_modes += ["human"] * (self.n_players - len(seat_modes))
        r["seat_modes"] = seat_modes
        self._rules = r
        self._cfg = WorldModelInferenceConfig(
            n_diffusion_steps=r["n_diffusion_steps"],
            noise_level=float(os.environ.get("MIRA_NOISE_LEVEL", "0.2")),
            schedule_type=os.environ.get("MIRA_SCHEDULE", "linear_quadratic"),
        )
        if self._mlx is not None:
            self._mlx.reset()
            self._mlx.set_config(
                n_diffusion_steps=self._cfg.n_diffusion_steps,
                noise_level=self._cfg.noise_level,
                schedule_type=self._cfg.schedule_type,
            )
            self._np_rng = np.random.default_rng()

        frames, ctx_actions = self._load_context(str(r.get("context", "default")))
        acts = ActionTensors(self._swm.config.actions, batch_size=self.n_players)
        acts.key_presses = ctx_actions
        acts.mouse_movements = torch.zeros(
            (self.n_players, ctx_actions.shape[1], 2), dtype=torch.float32
        )
        batch = VideoActionBatch(video=frames, actions=acts)

        with torch.no_grad(), self._maybe_autocast():
            z = self.model.init_streaming_inference(batch)
        # Multi: (1, t_lat, p*h, w, c). Single: (1, t_lat, h, w, c). Keep the last `window`.
        if z.shape[1] < self.window:
            raise RuntimeError(f"context too short: {z.shape[1]} latents < window {self.window}")
        self._z = z[:, -self.window :].contiguous()
        self._kv = None
        if self._decode_pipeline is not None:
            self._frame_q.clear()
            self._stride_i = 0
            z0 = self._z[:, -min(3, self.window):]
            if self._decode_pipeline.accepts(z0):
                # decode of the context window primes the pipe: the first step() delivers
                # these frames instantly while its own latents decode in the child
                self._decode_pipeline.prime(z0)
            else:
                self._decode_pipeline.reset()

        hist = ActionTensors(self._swm.config.actions, batch_size=self.n_players)
        hist.key_presses = ctx_actions.clone()
        hist.mouse_movements = torch.zeros_like(acts.mouse_movements)
        self._actions_hist = hist

        drop = torch.tensor([m == "model" for m in seat_modes], dtype=torch.bool, device=self.device)
        self._drop_mask = drop if bool(drop.any()) else None
        with self._lock:
            self._held = [set() for _ in range(self.n_players)]
        self._fi = 0
        self.session_active = True
        log.info("session started: rules=%s", r)
        return self.meta()

    def end_session(self) -> None:
        self.session_active = False
        self._z, self._kv, self._actions_hist, self._drop_mask = None, None, None, None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def meta(self) -> dict:
        return {
            "n_players": self.n_players,
            "width": self.width,
            "height": self.height,
            "video_fps": self.video_fps,
            "latent_fps": self.latent_fps,
            "window": self.window,
            "ckpt": str(self.ckpt_path),
        }

    # ------------------------------------------------------------------ controls

    def set_held(self, seat: int, keys: "list[str]") -> None:
        if not (0 <= seat < self.n_players):
            return
        clean = {k for k in keys if k in KEY_INDEX}
        with self._lock:
            self._held[seat] = clean

    def _sample_held_rows(self, n_rows: int) -> torch.Tensor:
        """(P, n_rows, 9) int32 multi-hot of the currently held controls."""
        row = torch.zeros((self.n_players, len(MIRA_KEYS)), dtype=torch.int32)
        with self._lock:
            for seat, held in enumerate(self._held):
                for k in held:
                    row[seat, KEY_INDEX[k]] = 1
        return row.unsqueeze(1).repeat(1, n_rows, 1)

    # ------------------------------------------------------------------ stepping

    def _maybe_autocast(self):
        if self.autocast_bf16:
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        if getattr(self, "autocast_mps", False):
            return torch.autocast(device_type="mps", dtype=torch.float16)
        import contextlib

        return contextlib.nullcontext()

    def _append_actions(self, n_rows: int) -> None:
        from mira.world_model.actions_config import ActionTensors

        new = ActionTensors(self._swm.config.actions, batch_size=self.n_players)
        new.key_presses = self._sample_held_rows(n_rows)
        new.mouse_movements = torch.zeros((self.n_players, n_rows, 2), dtype=torch.float32)
        hist = self._actions_hist.cat_time(new)
        if hist.n_steps > self._hist_cap:
            hist = hist.slice_time(hist.n_steps - self._hist_cap, None).clone()
        self._actions_hist = hist

    def _step_latent(self) -> None:
        """One streaming_inference_step, honoring seat_modes via drop_mask."""
        if self._mlx is not None and not self.is_multi and self._drop_mask is None:
            # MLX backend: DiT on Metal via mira_vm.mlx_stream (kv-cache lives in the
            # sampler); parity vs the torch sampler: max drift 4.1e-05 over 8 steps.
            a_np = self._mlx.encode_actions(self._actions_hist)
            noise_fn = lambda shape: self._np_rng.standard_normal(shape).astype(np.float32)  # noqa: E731
            z_np = self._mlx.step(self._z.detach().cpu().numpy(), a_np, noise_fn)
            self._z = torch.from_numpy(z_np).to(self._z.device, self._z.dtype)
            return
        if self._drop_mask is None:
            self._z, self._kv = self.model.streaming_inference_step(
                self._z, self._actions_hist, self._kv, self._cfg
            )
            return
        # Local variant of MultiWrapperWorldModel.streaming_inference_step
        # (mira/src/mira/world_model/multi_wrapper_world_model.py:227) that forwards
        # drop_mask to the action encoder — the eval-mode branch at
        # layers/action_encoder.py:171 drops the masked players' actions entirely, so
        # the world model itself drives those cars (paper §6.8 "theory of mind").
        swm = self._swm
        z = self._z
        z_t = torch.cat([z[:, 1:], torch.randn_like(z[:, :1])], dim=1)
        off = swm.action_temporal_downsampling - 1
        n_action_steps = (z.shape[1] - 1) * swm.action_temporal_downsampling
        sliced = self._actions_hist.slice_time(
            -n_action_steps - off, -off if off else None
        ).to(self.device)
        a_flat = swm.action_encoder(sliced, drop_mask=self._drop_mask)
        if self.is_multi:
            current_a = self.model._combine_player_actions(a_flat)
        else:
            current_a = a_flat
        self._z, self._kv = swm.denoise_streaming(
            z_t,
            current_a,
            streaming_kv_caches=self._kv,
            n_diffusion_steps=self._cfg.n_diffusion_steps,
            noise_level=self._cfg.noise_level,
            schedule_type=self._cfg.schedule_type,
        )

    @torch.no_grad()
    def step(self) -> "tuple[list[list[bytes]], dict]":
        """Advance one latent frame.

        Returns (frames, stats): frames[t][seat] = JPEG bytes, for t in the td new
        video frames of this step; stats = timing dict.
        """
        if not self.session_active:
            raise RuntimeError("no active session")
        t0 = time.perf_counter()
        self._append_actions(self.atd)
        with self._maybe_autocast():
            self._step_latent()
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        elif self.device.type == "mps":
            torch.mps.synchronize()
        t1 = time.perf_counter()

        # Decode the newest latents with up to 2 latents of causal context.
        k = min(3, self.window)
        z_dec = self._z[:, -k:]
        if self.is_multi:
            z_dec = rearrange(z_dec, "b t (p h) w c -> (b p) t h w c", p=self.n_players)
        if self._decode_pipeline is not None and self._decode_pipeline.accepts(z_dec):
            if self._decode_stride > 1:
                # Amortized: decode NON-overlapping chunks (every `stride` latents, all
                # 2*stride frames consumed) — cuts redundant ANE work by `stride`× at the
                # cost of up to `stride` latent steps of extra visual latency.
                self._stride_i += 1
                if self._stride_i >= self._decode_stride and not self._decode_pipeline.busy:
                    self._decode_pipeline._send(z_dec)
                    self._stride_i = 0
                if len(self._frame_q) < self.td:
                    if not self._decode_pipeline.busy:  # nothing in flight: send now
                        self._decode_pipeline._send(z_dec)
                        self._stride_i = 0
                    vid = self._decode_pipeline.wait()  # queue underrun: block on the chunk
                    for t in range(vid.shape[1]):
                        self._frame_q.append(vid[:, t])
                    if not self._decode_pipeline.busy:
                        self._decode_pipeline._send(z_dec)
                        self._stride_i = 0
                else:
                    got = self._decode_pipeline.poll()
                    if got is not None:
                        for t in range(got.shape[1]):
                            self._frame_q.append(got[:, t])
                new = [self._frame_q.popleft() for _ in range(self.td)]
                vid = torch.stack(new, dim=1)
            else:
                # Overlapped: the decode CHILD PROCESS (ANE) works on the previous step's
                # latents while this process ran the DiT; one latent step of extra latency.
                vid = self._decode_pipeline.submit(z_dec)
        elif self._coreml_dec is not None and self._coreml_dec.accepts(z_dec):
            vid = self._coreml_dec.decode_to_video(
                z_dec.cpu(), self._swm.latent_mean, self._swm.latent_std
            )
        else:
            with self._maybe_autocast():
                vid = self.model.decode_to_video(z_dec.float())  # (P, k*td, C, H, W) in [0,1]
            vid = vid.float()
            if self.device.type == "cuda":
                torch.cuda.synchronize()
            elif self.device.type == "mps":
                torch.mps.synchronize()
        t2 = time.perf_counter()

        new_frames = vid[:, -self.td :]  # only this step's frames
        # Optional display interpolation (MIRA_FRAME_INTERP=1): interleave 50%
        # blend midpoints between consecutive REAL frames, including across the
        # step boundary via the stashed previous frame. All midpoints are
        # causally available (no added latency); doubles the delivered rate.
        if os.environ.get("MIRA_FRAME_INTERP", "0") == "1" and self.td >= 1:
            seq = []
            prev = getattr(self, "_interp_prev", None)
            if prev is not None and prev.shape == new_frames[:, 0].shape:
                seq.append(0.5 * (prev + new_frames[:, 0]))
            for _t in range(self.td):
                seq.append(new_frames[:, _t])
                if _t + 1 < self.td:
                    seq.append(0.5 * (new_frames[:, _t] + new_frames[:, _t + 1]))
            self._interp_prev = new_frames[:, self.td - 1].clone()
            frame_seq = seq
        else:
            frame_seq = [new_frames[:, _t] for _t in range(self.td)]
        out: "list[list[bytes]]" = []
        sink = self.frame_sink
        for t in range(len(frame_seq)):
            fr = frame_seq[t]
            out.append(
                [_jpeg_encode(fr[p_i], self.jpeg_quality) for p_i in range(self.n_players)]
            )
            if sink is not None:
                # WebRTC tap: composite the players' views along height (same
                # convention as fd_mira/engine_fd.py); never break the stream.
                try:
                    hwcs = [
                        np.transpose(
                            (fr[p_i].clamp(0, 1) * 255.0)
                            .to(torch.uint8).cpu().numpy(),
                            (1, 2, 0),
                        )
                        for p_i in range(self.n_players)
                    ]
                    comp = hwcs[0] if len(hwcs) == 1 else np.concatenate(hwcs, axis=0)
                    sink(np.ascontiguousarray(comp))
                except Exception:  # noqa: BLE001 — RTC must never break the stream
                    log.exception("frame_sink failed; detaching")
                    self.frame_sink = None
                    sink = None
        t3 = time.perf_counter()
        self._fi += self.td
        stats = {
            "latent_ms": (t1 - t0) * 1000.0,
            "decode_ms": (t2 - t1) * 1000.0,
            "jpeg_ms": (t3 - t2) * 1000.0,
            "fi": self._fi,
        }
        return out, stats
