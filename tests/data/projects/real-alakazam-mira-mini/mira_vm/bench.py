"""Latency bench for MIRA world models on the deployed GPU.

Two sizes:
  - "smoke": the volume checkpoint at MIRA_CKPT (round-trips the real load path).
  - "5b":    the paper's flagship shapes (Table 11 / codec Table 9) built IN MEMORY
             with random weights — identical FLOPs to the real 5B model, so the
             ms/latent-frame numbers are real feasibility numbers for official
             weights on this GPU. (Weights are not publicly released.)

Prints one JSON line:
  {"gpu":..., "size":..., "denoise_ms_per_latent_frame":..., "denoise_latent_fps":...,
   "decode_ms_per_latent_frame":..., "video_fps_equivalent":...}

Run via:  modal run deploy/modal/modal_mira.py::bench --size 5b
"""
from __future__ import annotations

import json
import os
import time

MIRA_KEYS = ["W", "A", "S", "D", "Q", "E", "Space", "LShiftKey", "LControlKey"]


def _make_batch(model, n_rollout_frames: int):
    """Synthetic VideoActionBatch sized so rollout() can unroll n_rollout_frames windows."""
    import torch

    from mira.data.batch import VideoActionBatch
    from mira.world_model.actions_config import ActionTensors

    swm = model.single_world_model if hasattr(model, "single_world_model") else model
    p = int(getattr(model, "n_players", 1))
    td = swm.temporal_downsampling
    window = swm.n_context_latents + 1
    t_frames = (n_rollout_frames + window - 1) * td
    apvf = max(1, swm.config.actions.target_fps // swm.config.video.fps)
    h, w = swm.config.video.height, swm.config.video.width

    video = torch.randint(0, 256, (p, t_frames, 3, h, w), dtype=torch.uint8)
    acts = ActionTensors(swm.config.actions, batch_size=p)
    acts.key_presses = torch.randint(0, 2, (p, t_frames * apvf, len(MIRA_KEYS)), dtype=torch.int32)
    acts.mouse_movements = torch.zeros((p, t_frames * apvf, 2), dtype=torch.float32)
    return VideoActionBatch(video=video, actions=acts)


def _build_5b_in_memory(device):
    """Flagship-shaped codec + 4-player world model, random init, no disk round-trip.

    Codec (Table 9): DINOv3-L/16, latent 32, /32 spatial, td 2, ViT-XL decoder
    (width 1152, depth 28, heads 16) at 288x512. WM (Table 11): hidden 4096,
    16 layers, 32 heads (8 KV), 4 players, inference context 40 frames (20 latents).
    """
    from unittest import mock

    import torch

    from mira.codec.codec_model import VideoCodec
    from mira.codec.config import (
        RAEEncoderConfig,
        StridedConvBottleneckConfig,
        VideoCodecConfig,
        ViTDecoderConfig,
    )
    from mira.ml.image_config import ImageConfig
    from mira.world_model.actions_config import ActionConfig
    from mira.world_model.config import LatentWorldModelConfig
    import mira.world_model.latent_world_model as lwm
    from mira.world_model.multi_wrapper_world_model import (
        MultiWrapperWorldModel,
        MultiWrapperWorldModelConfig,
    )

    video = ImageConfig(height=288, width=512, channels=3, timesteps=80, fps=20)
    codec_cfg = VideoCodecConfig(
        encoder=RAEEncoderConfig(
            latent_dim=32,
            rae_model="dinov3_vitl16",
            video=video,
            aggregation_layers=[11, 13, 15, 17, 19, 21, 23],
            bottleneck=StridedConvBottleneckConfig(stride=2, temporal_stride=2),
            compile_dino=False,
        ),
        decoder=ViTDecoderConfig(
            video=video,
            latent_dim=32,
            patch_size=16,
            patch_size_t=2,
            vit_width=1152,
            vit_depth=28,
            vit_num_heads=16,
            bottleneck=StridedConvBottleneckConfig(stride=2),
            qk_norm="layernorm",
            activation_checkpointing=False,
        ),
    )
    codec = VideoCodec(codec_cfg, require_dino_weights=False)
    codec.info_from_checkpoint = {"latent_mean_std": (0.0, 1.0)}

    wm_cfg = LatentWorldModelConfig(
        actions=ActionConfig(valid_keys=MIRA_KEYS, source_fps=20, target_fps=20),
        video=video,
        codec_checkpoint="in-memory.pth",
        latent_mean_std=[0.0, 1.0],
        n_context_frames=40,
        hidden_dim=4096,
        n_head=32,
        n_kv_head=8,
        n_layers=16,
        time_attention_every=4,
        patch_size=1,
        n_register_tokens=0,
        attention_gating=True,
        ada_attn_ln=True,
        learned_temporal_pool=True,
        causal=True,
        use_codec_posterior_mean=True,
        use_clean_past=True,
        dropout_action_prob=0.1,
        dropout_action_per_player=True,
        action_subset_drop_prob=0.5,
    )
    with mock.patch.object(lwm.VideoCodec, "load_from_checkpoint", staticmethod(lambda *a, **k: codec)):
        model = MultiWrapperWorldModel(MultiWrapperWorldModelConfig(n_players=4, wm_config=wm_cfg))
    model.to(device)
    model.eval()
    return model


def run(size: str = "smoke", n_frames: int = 16, n_diffusion_steps: int = 8) -> dict:
    import torch
    from einops import rearrange

    from mira.inference.rollout import measure_rollout_speed, rollout
    from mira.world_model.config import WorldModelInferenceConfig

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gpu_name = torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu"

    if size == "5b":
        model = _build_5b_in_memory(device)
    else:
        from pathlib import Path

        from mira.inference.loading import load_world_model

        model, _ = load_world_model(Path(os.environ["MIRA_CKPT"]), device=device)
        model.eval()

    swm = model.single_world_model if hasattr(model, "single_world_model") else model
    p = int(getattr(model, "n_players", 1))
    cfg = WorldModelInferenceConfig(n_diffusion_steps=n_diffusion_steps)
    batch = _make_batch(model, n_rollout_frames=n_frames)

    with torch.no_grad(), torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        # Warmup (cudnn autotune / lazy init), then the timed run.
        measure_rollout_speed(model, batch, cfg, n_frames=2)
        speed = measure_rollout_speed(model, batch, cfg, n_frames=n_frames)

        # Decode cost: last-3-latent window per player, as the serving engine does.
        z = rollout(model, batch, cfg, n_frames=3)
        z_dec = z[:, -3:]
        if hasattr(model, "single_world_model"):
            z_dec = rearrange(z_dec, "b t (p h) w c -> (b p) t h w c", p=p)
        for _ in range(2):  # warmup
            model.decode_to_video(z_dec.float())
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        n_dec = 5
        for _ in range(n_dec):
            model.decode_to_video(z_dec.float())
        if device.type == "cuda":
            torch.cuda.synchronize()
        decode_ms = (time.perf_counter() - t0) / n_dec * 1000.0

    td = swm.temporal_downsampling
    total_ms = speed["denoise_ms_per_latent_frame"] + decode_ms
    result = {
        "gpu": gpu_name,
        "size": size,
        "players": p,
        "n_diffusion_steps": n_diffusion_steps,
        "denoise_ms_per_latent_frame": round(speed["denoise_ms_per_latent_frame"], 2),
        "denoise_latent_fps": round(speed["denoise_latent_fps"], 2),
        "decode_ms_per_latent_frame": round(decode_ms, 2),
        "video_fps_equivalent": round(td * 1000.0 / total_ms, 2),
        "realtime_target_video_fps": swm.config.video.fps,
    }
    print("MIRA_BENCH " + json.dumps(result))
    return result
