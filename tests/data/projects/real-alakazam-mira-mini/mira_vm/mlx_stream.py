"""MLX streaming sampler for the MIRA world model — the Apple-silicon serving path.

`MlxStreamingSampler` is an exact MLX re-implementation of the torch reference sampler
(`mira.world_model.latent_world_model.LatentWorldModel.streaming_inference_step` +
`denoise_streaming`) for the single-player rollout. The DiT itself runs on MLX via
`mlx_dit.MlxDit` (weights converted from the torch checkpoint, parity-clean at ~4e-6); the
tiny action encoder stays in torch on CPU (its output conditioning crosses to MLX).

Every formula below cites the torch line it mirrors so the two stay locked together. All
noise draws go through an injected callable so a torch reference and this sampler can be driven
with byte-identical noise for parity (see mlx_stream_parity.py).

Faithful to the reference at:
  - the window shift + noise append (streaming_inference_step, latent_world_model.py:498)
  - the flow-matching integration over the tau schedule (denoise_streaming:349-369)
  - clean-past + bos context conditioning (denoise_streaming:331-346)
  - the noise_level re-noise kv pass (denoise_streaming:371-386)
  - streaming kv-cache init + sliding-window eviction (denoise_streaming:329-343, 388-403)
  - PSD tau_delta conditioning when the checkpoint carries delta keys (denoise_streaming:352)
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mlx.core as mx
import numpy as np


def _strip_hydra(d):
    """Drop hydra bookkeeping keys so a saved architecture config validates as a plain dict."""
    if isinstance(d, dict):
        return {k: _strip_hydra(v) for k, v in d.items()
                if k not in ("_target_", "_convert_", "_partial_", "_recursive_")}
    return d


class MlxStreamingSampler:
    """Single-player MLX streaming sampler (one active rollout; kv-cache held internally)."""

    def __init__(
        self,
        ckpt_path: str | Path,
        config_yaml_path: str | Path,
        dtype=mx.float16,
        temporal_downsampling: int = 2,
        spatial_downsampling: int = 32,
    ) -> None:
        import torch  # noqa: PLC0415 -- torch only needed to load weights + run the action encoder
        import yaml  # noqa: PLC0415
        from mira.world_model.actions_config import ActionConfig, ActionTensors  # noqa: PLC0415
        from mira.world_model.config import LatentWorldModelConfig  # noqa: PLC0415
        from mira.world_model.layers.action_encoder import ActionEncoder  # noqa: PLC0415

        try:
            from mira_vm.mlx_dit import DitSpec, convert_from_torch  # noqa: PLC0415
        except ImportError:  # scratchpad/harness runs with mlx_dit on sys.path directly
            from mlx_dit import DitSpec, convert_from_torch  # noqa: PLC0415

        self.dtype = dtype
        self._quant_bits = int(__import__("os").environ.get("MIRA_MLX_QUANT", "0") or 0)
        self._ActionTensors = ActionTensors

        raw = _strip_hydra(yaml.safe_load(Path(config_yaml_path).read_text())
                           ["model"]["architecture"]["config"])
        cfg = LatentWorldModelConfig(**raw)
        self.config = cfg

        ck = torch.load(str(ckpt_path), map_location="cpu", weights_only=False)
        sd = ck["state_dict"] if "state_dict" in ck else ck
        # The architecture is dictated by what the checkpoint actually carries, NOT by the
        # (possibly stage-2) yaml: a stage-1 checkpoint has no delta keys even if the yaml
        # rewrote psd_loss_prob>0, so the delta pathway must stay off (matches
        # LatentWorldModel.load_state_dict's warm-start being a zero-op here).
        self.has_delta = any("diffusion_time_embedding_delta" in k for k in sd)

        latent_dim = sd["world_model.latent_tokens_proj.weight"].shape[1]
        spec = DitSpec(
            hidden_dim=raw["hidden_dim"], n_head=raw["n_head"],
            n_kv_head=raw["n_kv_head"] or raw["n_head"], n_layers=raw["n_layers"],
            time_attention_every=raw["time_attention_every"], latent_dim=latent_dim,
            latent_h=raw["video"]["height"] // spatial_downsampling,
            latent_w=raw["video"]["width"] // spatial_downsampling,
            use_clean_past=raw["use_clean_past"], attention_gating=raw["attention_gating"],
            ada_attn_ln=raw["ada_attn_ln"], psd_enabled=self.has_delta,
        )
        self.spec = spec
        self.model = convert_from_torch(sd, spec)
        from mlx.utils import tree_map  # noqa: PLC0415
        self.model.update(tree_map(
            lambda a: a.astype(dtype) if hasattr(a, "astype") else a, self.model.parameters()))
        if self._quant_bits in (4, 8):
            import mlx.nn as _nn
            def _quantizable(path, mod):
                w = getattr(mod, "weight", None)
                return isinstance(mod, _nn.Linear) and w is not None and w.shape[-1] % 64 == 0
            _nn.quantize(self.model, group_size=64, bits=self._quant_bits,
                         class_predicate=_quantizable)
            import logging as _lg
            _lg.getLogger('mlx-quant').warning('MLX Linears quantized to %d-bit (group 64)', self._quant_bits)
        mx.eval(self.model.parameters())

        # Geometry the sampler needs (denoise_streaming reads these off the LWM).
        self.temporal_downsampling = temporal_downsampling
        self.n_context_latents = cfg.n_context_frames // temporal_downsampling
        self.window = self.n_context_latents + 1
        self.action_temporal_downsampling = (
            cfg.actions.target_fps * temporal_downsampling // cfg.video.fps
        )
        self.use_clean_past = cfg.use_clean_past
        self.n_register_tokens = cfg.n_register_tokens

        # bos: learned "past of the first frame" latent (latent_world_model.py:127-130).
        self._bos = None
        if self.use_clean_past:
            self._bos = mx.array(sd["bos"].float().numpy()).astype(dtype)  # (h, w, c)

        # Action encoder stays in torch on CPU (fp32). Built exactly as LatentWorldModel.__init__
        # builds it (latent_world_model.py:113-122).
        self._action_encoder = ActionEncoder(
            num_key_presses=len(cfg.actions.valid_keys),
            dim=cfg.hidden_dim,
            temporal_downsampling=self.action_temporal_downsampling,
            dropout_prob=cfg.dropout_action_prob,
            learned_temporal_pool=cfg.learned_temporal_pool,
            dropout_action_per_player=cfg.dropout_action_per_player,
            key_field_names=cfg.actions.valid_keys,
            subset_drop_prob=cfg.action_subset_drop_prob,
        )
        ae_sd = {k[len("action_encoder."):]: v for k, v in sd.items()
                 if k.startswith("action_encoder.")}
        self._action_encoder.load_state_dict(ae_sd, strict=True)
        self._action_encoder.float().eval()
        self._torch = torch
        self._ActionConfig = ActionConfig

        # Sampling knobs (WorldModelInferenceConfig defaults; the engine's production values).
        self.n_diffusion_steps = 8
        self.noise_level: float | None = 0.2
        self.schedule_type = "linear_quadratic"

        self._kv = None  # per-rollout streaming kv-cache (list, None entries for space-only layers)

    # ------------------------------------------------------------------ session
    def reset(self) -> None:
        """Clear the streaming kv-cache to start a fresh rollout."""
        self._kv = None

    def set_config(self, n_diffusion_steps=None, noise_level=..., schedule_type=None) -> None:
        """Override sampling knobs (mirrors WorldModelInferenceConfig)."""
        if n_diffusion_steps is not None:
            self.n_diffusion_steps = n_diffusion_steps
        # EXPERIMENTAL (recipe deviation, off unless MIRA_MLX_NO_RENOISE=1):
        # skip the re-noise kv pass; fold kv capture into the last denoise step.
        # Saves one of three forwards per step. Drift behavior must be judged
        # by eye; the reference recipe keeps noise_level (drift control).
        if noise_level is not ...:
            self.noise_level = noise_level
        if schedule_type is not None:
            self.schedule_type = schedule_type
        import os as _os
        if _os.environ.get("MIRA_MLX_NO_RENOISE", "0") == "1":
            self.noise_level = None

    def _a(self, x_np) -> mx.array:
        return mx.array(np.ascontiguousarray(x_np)).astype(self.dtype)

    def encode_actions(self, actions_history) -> np.ndarray:
        """Slice + encode the rolling action history into per-latent conditioning (b, W, hidden).

        Mirrors streaming_inference_step's action selection (latent_world_model.py:500-520) for the
        single-player path: the encoder pools `atd` action rows per latent and prepends the initial
        action token, so `n_action_steps=(W-1)*atd` rows produce W conditioning frames.
        """
        torch = self._torch
        atd = self.action_temporal_downsampling
        n_action_steps = (self.window - 1) * atd
        off = atd - 1
        sliced = actions_history.slice_time(-n_action_steps - off, -off if off else None)
        with torch.no_grad():
            a = self._action_encoder(sliced)  # (b, W, hidden), fp32 CPU
        return a.detach().float().numpy()

    # ------------------------------------------------------- whole-step compile
    # One traced graph per (kv-pattern, schedule) covering: window shift, all
    # diffusion forwards, the re-noise kv pass, and kv eviction. Replayed every
    # step with a single mx.eval. MIRA_MLX_COMPILE=0 falls back to eager.
    def _compiled_whole_step(self, pat):
        import os as _os
        if _os.environ.get("MIRA_MLX_COMPILE", "1") != "1":
            return None
        from mira.world_model.schedule import build_inference_schedule  # noqa: PLC0415
        key = ("whole", pat, self.n_diffusion_steps, self.noise_level,
               self.schedule_type, self.use_clean_past, self.has_delta)
        cache = getattr(self, "_cstep", None)
        if cache is None:
            cache = self._cstep = {}
        f = cache.get(key)
        if f is not None:
            return f
        ts_t = build_inference_schedule(
            self.n_diffusion_steps, self._torch.device("cpu"), self.schedule_type)
        timesteps = [float(x) for x in ts_t.tolist()]
        delta_ts = [timesteps[i + 1] - timesteps[i] for i in range(len(timesteps) - 1)]
        noise_level = self.noise_level
        use_clean = self.use_clean_past
        has_delta = self.has_delta
        model = self.model
        unflat = self._kv_unflatten
        dt_ = self.dtype
        n_steps = len(delta_ts)

        def raw(z, a, noise0, noise1, *kv_flat):
            b = z.shape[0]
            kv = unflat(list(kv_flat), pat)
            z_t = mx.concatenate([z[:, 1:], noise0], axis=1)
            clean_past = z_t[:, -2:-1] if use_clean else None
            z_last = z_t[:, -1:]
            last_kv = None
            for i in range(n_steps):
                tau = mx.full((b, 1, 1, 1, 1), timesteps[i], dtype=dt_)
                tau_delta = mx.full((b, 1, 1, 1, 1), delta_ts[i], dtype=dt_) if has_delta else None
                return_kv = noise_level is None and i == n_steps - 1
                out = model(z_last, a[:, -1:], tau, kv_caches=kv,
                            clean_past=clean_past, return_kv=return_kv, tau_delta=tau_delta)
                if return_kv:
                    pred_v, last_kv = out
                else:
                    pred_v = out
                z_last = z_last + delta_ts[i] * pred_v
            if noise_level is not None:
                current_tau = mx.full((b, 1, 1, 1, 1), 1.0 - noise_level, dtype=dt_)
                current_z_t = current_tau * z_last + (1.0 - current_tau) * noise1
                _, last_kv = model(current_z_t, a[:, -1:], current_tau, kv_caches=kv,
                                   clean_past=clean_past, return_kv=True)
            new_flat = []
            for i, m in enumerate(pat):
                if m == 1:
                    k_ctx, v_ctx = kv[i]
                    nk, nv = last_kv[i]
                    new_flat.append(mx.concatenate([k_ctx[:, 1:], nk], axis=1))
                    new_flat.append(mx.concatenate([v_ctx[:, 1:], nv], axis=1))
            z_out = mx.concatenate([z_t[:, :-1], z_last], axis=1)
            return [z_out] + new_flat
        f = mx.compile(raw)
        cache[key] = f
        return f

    # ---------------------------------------------------------- compiled forwards
    # The per-step forwards are tiny (144-token) graphs; uncompiled they are
    # kernel-launch-bound. mx.compile fuses each variant once (keyed by the
    # branch pattern) and replays it every step. Disable with MIRA_MLX_COMPILE=0.
    def _kv_flatten(self, kv):
        flat, pat = [], []
        for entry in kv:
            if entry is None:
                pat.append(0)
            else:
                pat.append(1); flat.extend(entry)
        return flat, tuple(pat)

    def _kv_unflatten(self, flat, pat):
        out, i = [], 0
        for m in pat:
            if m == 0:
                out.append(None)
            else:
                out.append((flat[i], flat[i + 1])); i += 2
        return out

    def _compiled_fwd(self, key, return_kv, has_delta, has_clean, pat):
        import os as _os
        if _os.environ.get("MIRA_MLX_COMPILE", "1") != "1":
            return None
        cache = getattr(self, "_cfwd", None)
        if cache is None:
            cache = self._cfwd = {}
        f = cache.get(key)
        if f is not None:
            return f
        model = self.model
        unflat = self._kv_unflatten

        if return_kv:
            def raw(z, a, tau, tau_delta, clean_past, *kv_flat):
                kv = unflat(list(kv_flat), pat)
                pred, new_kv = model(
                    z, a, tau, kv_caches=kv,
                    clean_past=clean_past if has_clean else None,
                    return_kv=True,
                    tau_delta=tau_delta if has_delta else None)
                nf, _ = MlxStreamingSampler._kv_flatten(self, new_kv)
                return [pred] + nf
        else:
            def raw(z, a, tau, tau_delta, clean_past, *kv_flat):
                kv = unflat(list(kv_flat), pat)
                return model(
                    z, a, tau, kv_caches=kv,
                    clean_past=clean_past if has_clean else None,
                    return_kv=False,
                    tau_delta=tau_delta if has_delta else None)
        f = mx.compile(raw)
        cache[key] = f
        return f

    # ------------------------------------------------------------------ stepping
    def step(self, z_window_np, actions_conditioning_np, noise_fn) -> np.ndarray:
        """One streaming latent step. Replicates streaming_inference_step + denoise_streaming.

        Args:
            z_window_np: (b, W, h, w, c) — the current latent window (== the reference's ``self._z``,
                pre-shift).
            actions_conditioning_np: (b, W, hidden) — encoded action conditioning ``a`` for the
                window (from :meth:`encode_actions`), fed identically to the torch reference.
            noise_fn: callable(shape) -> np.ndarray float32. ALL gaussian draws route through it so
                the torch reference and this sampler can share one noise stream.

        Returns:
            (b, W, h, w, c) float32 — the next latent window (the reference's returned ``z_t``). The
            internal kv-cache is advanced in place.
        """
        from mira.world_model.schedule import build_inference_schedule  # noqa: PLC0415

        n_diffusion_steps = self.n_diffusion_steps
        noise_level = self.noise_level
        schedule_type = self.schedule_type
        dt_ = self.dtype
        z = self._a(z_window_np)                    # (b, W, h, w, c)
        a = self._a(actions_conditioning_np)        # (b, W, hidden)
        b, W, h, w, c = z.shape

        # --- streaming_inference_step: shift the window, append fresh noise as the new frame
        # (latent_world_model.py:498). This is noise draw #1.
        noise0 = self._a(noise_fn((b, 1, h, w, c)))
        z_t = mx.concatenate([z[:, 1:], noise0], axis=1)  # (b, W, ...)

        # --- denoise_streaming ---
        n_context_latents = W - 1
        timesteps = build_inference_schedule(
            n_diffusion_steps, self._torch.device("cpu"), schedule_type)
        timesteps = [float(t) for t in timesteps.tolist()]  # exact torch grid, as py floats
        delta_ts = [timesteps[i + 1] - timesteps[i] for i in range(len(timesteps) - 1)]

        # Initialise the streaming kv-cache from the context prefix on the first step
        # (denoise_streaming:329-343). context_tau = 1 (clean frames); tau_delta stays None here.
        if n_context_latents > 0 and self._kv is None:
            context_clean_past = None
            if self.use_clean_past:
                bos_b = mx.broadcast_to(self._bos[None, None], (b, 1, h, w, c))
                context_clean_past = mx.concatenate([bos_b, z_t[:, :-2]], axis=1)  # (b, W-1, ...)
            context_tau = mx.ones((b, n_context_latents, 1, 1, 1), dtype=dt_)
            _, self._kv = self.model(
                z_t[:, :-1], a[:, :-1], context_tau,
                clean_past=context_clean_past, return_kv=True)
            mx.eval(self._kv)

        # Fast path: whole-step compiled graph (init above must have run once).
        if self._kv is not None:
            kv_flat, pat = self._kv_flatten(self._kv)
            fstep = self._compiled_whole_step(pat)
            if fstep is not None and self.n_register_tokens == 0:
                noise1 = self._a(noise_fn((b, 1, h, w, c))) if noise_level is not None \
                    else z[:, :1]
                out = fstep(z, a, noise0, noise1, *kv_flat)
                z_out = out[0]
                nf = out[1:]
                j = 0
                new_kv = []
                for m in pat:
                    if m == 0:
                        new_kv.append(None)
                    else:
                        new_kv.append((nf[j], nf[j + 1])); j += 2
                self._kv = new_kv
                mx.eval(z_out, *nf)
                return np.array(z_out.astype(mx.float32))

        # The past frame is always a clean (un-noised) latent (denoise_streaming:346).
        clean_past = z_t[:, -2:-1] if self.use_clean_past else None

        z_last = z_t[:, -1:]  # (b, 1, ...) — the only frame denoised; context stays fixed
        last_kv = None
        n_steps = len(delta_ts)
        for step_idx in range(n_steps):
            ts, dt = timesteps[step_idx], delta_ts[step_idx]
            tau = mx.full((b, 1, 1, 1, 1), ts, dtype=dt_)
            # PSD models take the integration-step size as input (denoise_streaming:352).
            tau_delta = mx.full((b, 1, 1, 1, 1), dt, dtype=dt_) if self.has_delta else None
            # With noise_level=None, fold the kv pass into the last diffusion step
            # (denoise_streaming:355).
            return_kv = noise_level is None and step_idx == n_steps - 1
            kv_flat, pat = self._kv_flatten(self._kv)
            has_delta = tau_delta is not None
            has_clean = clean_past is not None
            fkey = ("den", return_kv, has_delta, has_clean, pat)
            fwd = self._compiled_fwd(fkey, return_kv, has_delta, has_clean, pat)
            _td = tau_delta if has_delta else tau  # placeholder array keeps the arity fixed
            _cp = clean_past if has_clean else z_last
            if fwd is not None:
                out = fwd(z_last, a[:, -1:], tau, _td, _cp, *kv_flat)
                if return_kv:
                    pred_v, last_kv = out[0], self._kv_unflatten(out[1:], pat)
                else:
                    pred_v = out
            else:
                out = self.model(
                    z_last, a[:, -1:], tau, kv_caches=self._kv,
                    clean_past=clean_past, return_kv=return_kv, tau_delta=tau_delta)
                if return_kv:
                    pred_v, last_kv = out
                else:
                    pred_v = out
            z_last = z_last + dt * pred_v  # denoise_streaming:369

        if noise_level is not None:
            # Re-noise the finished frame to tau=1-noise_level and cache it (denoise_streaming:371-386).
            # This is noise draw #2 (torch.randn_like at :377).
            current_tau = mx.full((b, 1, 1, 1, 1), 1.0 - noise_level, dtype=dt_)
            noise1 = self._a(noise_fn((b, 1, h, w, c)))
            current_z_t = current_tau * z_last + (1.0 - current_tau) * noise1
            kv_flat, pat = self._kv_flatten(self._kv)
            has_clean = clean_past is not None
            fkey = ("rn", True, False, has_clean, pat)
            fwd = self._compiled_fwd(fkey, True, False, has_clean, pat)
            _cp = clean_past if has_clean else current_z_t
            if fwd is not None:
                out = fwd(current_z_t, a[:, -1:], current_tau, current_tau, _cp, *kv_flat)
                last_kv = self._kv_unflatten(out[1:], pat)
            else:
                _, last_kv = self.model(
                    current_z_t, a[:, -1:], current_tau, kv_caches=self._kv,
                    clean_past=clean_past, return_kv=True)

        # Sliding-window kv eviction: drop the oldest cached token (after any register tokens),
        # append the new one (denoise_streaming:388-403). n_register_tokens is 0 for this model.
        assert self._kv is not None and last_kv is not None
        n_reg = self.n_register_tokens
        for i in range(len(self._kv)):
            if self._kv[i] is not None:
                k_ctx, v_ctx = self._kv[i]
                new_k, new_v = last_kv[i]
                self._kv[i] = (
                    mx.concatenate([k_ctx[:, :n_reg], k_ctx[:, n_reg + 1:], new_k], axis=1),
                    mx.concatenate([v_ctx[:, :n_reg], v_ctx[:, n_reg + 1:], new_v], axis=1),
                )
        mx.eval(self._kv)

        z_out = mx.concatenate([z_t[:, :-1], z_last], axis=1)  # (b, W, ...)
        mx.eval(z_out)
        return np.array(z_out.astype(mx.float32))


class ThreadedMlxSampler:
    """MlxStreamingSampler pinned to ONE owning thread.

    MLX GPU streams are thread-local and its lazy graph cannot be ``mx.eval``'d from a
    thread other than the one that scheduled the ops. The interactive engine runs its step
    loop in a per-session thread distinct from where the model is built, which raised
    ``RuntimeError: There is no Stream(gpu, N) in current thread``. (Offline renders call
    step() on the main thread, so they were unaffected.) This proxy builds the sampler and
    services every call on a single dedicated thread; the session thread calls in
    synchronously and never touches MLX state directly.
    """

    def __init__(self, ckpt_path, config_yaml_path, **kw):
        self._ex = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mlx-sampler")
        self._s = self._ex.submit(MlxStreamingSampler, ckpt_path, config_yaml_path, **kw).result()
        # plain scalars/config the engine reads directly — safe to snapshot cross-thread
        self.has_delta = self._s.has_delta
        self.window = self._s.window
        self.temporal_downsampling = self._s.temporal_downsampling
        self.n_context_latents = self._s.n_context_latents
        self.config = self._s.config

    def set_config(self, **kw):
        return self._ex.submit(self._s.set_config, **kw).result()

    def reset(self):
        return self._ex.submit(self._s.reset).result()

    def encode_actions(self, actions_history):
        return self._ex.submit(self._s.encode_actions, actions_history).result()

    def step(self, z_window_np, actions_conditioning_np, noise_fn):
        return self._ex.submit(self._s.step, z_window_np, actions_conditioning_np, noise_fn).result()

    def close(self):
        self._ex.shutdown(wait=False)
