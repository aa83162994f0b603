"""Build a small REAL MIRA checkpoint (random init) on the mira-weights volume.

MIRA's pretrained weights are not publicly released (dataset + code only), so E2E
verification runs against a small-but-real MultiWrapperWorldModel + VideoCodec pair
built with MIRA's own classes and saved in the exact canonical layout
`load_world_model` expects:

    /weights/checkpoints/smoke/world_model_config.yaml
    /weights/checkpoints/smoke/checkpoint-0/checkpoint.pth
    /weights/checkpoints/smoke/codec/codec_config.yaml
    /weights/checkpoints/smoke/codec/checkpoint-0/checkpoint.pth

Swapping in official weights later is just another directory in the same layout +
MIRA_CKPT pointing at it (see docs/MIRA_ROCKET_LEAGUE.md).

Run via:  modal run deploy/modal/modal_mira.py::build_smoke
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger("mira-smoke")

MIRA_KEYS = ["W", "A", "S", "D", "Q", "E", "Space", "LShiftKey", "LControlKey"]

# Small but real: exercises DINO backbone (random), bottleneck, ViT decoder, tiled
# 4-player transformer, kv-cache streaming — every code path the flagship uses.
SMOKE = {
    "height": 128,
    "width": 128,
    "timesteps": 16,
    "fps": 20,
    "latent_dim": 16,
    "rae_model": "dinov3_vitb16",
    "dec_width": 256,
    "dec_depth": 4,
    "dec_heads": 4,
    "wm_hidden": 256,
    "wm_layers": 4,
    "wm_heads": 4,
    "wm_kv_heads": 2,
    "n_context_frames": 8,  # td=2 -> 4 context latents, window 5
    "n_players": 4,
}


def _dump_yaml(path: Path, payload: dict) -> None:
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(payload, sort_keys=False))


def build(root: str = "/weights/checkpoints/smoke") -> dict:
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
    from mira.world_model.multi_wrapper_world_model import (
        MultiWrapperWorldModel,
        MultiWrapperWorldModelConfig,
    )

    torch.manual_seed(38)
    root_p = Path(root)
    codec_dir = root_p / "codec"
    codec_ckpt = codec_dir / "checkpoint-0" / "checkpoint.pth"
    wm_ckpt = root_p / "checkpoint-0" / "checkpoint.pth"

    video = ImageConfig(
        height=SMOKE["height"],
        width=SMOKE["width"],
        channels=3,
        timesteps=SMOKE["timesteps"],
        fps=SMOKE["fps"],
    )

    # ---------------- codec (random DINO backbone; weights ship in the checkpoint) --
    codec_cfg = VideoCodecConfig(
        encoder=RAEEncoderConfig(
            latent_dim=SMOKE["latent_dim"],
            rae_model=SMOKE["rae_model"],
            video=video,
            aggregation_layers=None,
            bottleneck=StridedConvBottleneckConfig(stride=2, temporal_stride=2),
            compile_dino=False,
        ),
        decoder=ViTDecoderConfig(
            video=video,
            latent_dim=SMOKE["latent_dim"],
            patch_size=16,
            patch_size_t=2,
            vit_width=SMOKE["dec_width"],
            vit_depth=SMOKE["dec_depth"],
            vit_num_heads=SMOKE["dec_heads"],
            bottleneck=StridedConvBottleneckConfig(stride=2),
            qk_norm="layernorm",
            activation_checkpointing=False,
        ),
    )
    _dump_yaml(
        codec_dir / "codec_config.yaml",
        {"model": {"architecture": {"config": json.loads(codec_cfg.model_dump_json())}}},
    )
    codec = VideoCodec(codec_cfg, require_dino_weights=False)
    codec_ckpt.parent.mkdir(parents=True, exist_ok=True)
    codec.save_checkpoint(codec_ckpt, extra_data={"latent_mean_std": (0.0, 1.0)})
    log.info("codec saved: %s (%d params)", codec_ckpt, sum(p.numel() for p in codec.parameters()))

    # ---------------- world model (loads the codec we just saved) -------------------
    wm_cfg = LatentWorldModelConfig(
        actions=ActionConfig(valid_keys=MIRA_KEYS, source_fps=20, target_fps=20),
        video=video,
        codec_checkpoint=str(codec_ckpt),
        latent_mean_std=[0.0, 1.0],
        n_context_frames=SMOKE["n_context_frames"],
        hidden_dim=SMOKE["wm_hidden"],
        n_head=SMOKE["wm_heads"],
        n_kv_head=SMOKE["wm_kv_heads"],
        n_layers=SMOKE["wm_layers"],
        time_attention_every=1,
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
    mw_cfg = MultiWrapperWorldModelConfig(n_players=SMOKE["n_players"], wm_config=wm_cfg)
    _dump_yaml(
        root_p / "world_model_config.yaml",
        {
            "model": {
                "architecture": {
                    "_target_": "mira.world_model.multi_wrapper_world_model.MultiWrapperWorldModel",
                    "config": json.loads(mw_cfg.model_dump_json()),
                }
            }
        },
    )
    model = MultiWrapperWorldModel(mw_cfg)
    wm_ckpt.parent.mkdir(parents=True, exist_ok=True)
    model.save_checkpoint(wm_ckpt)
    n_params = sum(p.numel() for p in model.parameters())
    log.info("world model saved: %s (%d params)", wm_ckpt, n_params)

    # ---------------- verify: reload through the public loader and run one step -----
    report = verify(str(wm_ckpt))
    report["n_params"] = n_params
    return report


def verify(ckpt_path: str) -> dict:
    """Reload via load_world_model, run one streaming step + decode, report shapes."""
    import torch

    from mira.data.batch import VideoActionBatch
    from mira.inference.loading import load_world_model
    from mira.world_model.actions_config import ActionTensors
    from mira.world_model.config import WorldModelInferenceConfig

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model, _cfg = load_world_model(Path(ckpt_path), device=device)
    model.eval()
    swm = model.single_world_model
    p = model.n_players
    td = swm.temporal_downsampling
    window = swm.n_context_latents + 1
    t_frames = window * td
    apvf = max(1, swm.config.actions.target_fps // swm.config.video.fps)

    video = torch.randint(
        0, 256, (p, t_frames, 3, swm.config.video.height, swm.config.video.width), dtype=torch.uint8
    )
    acts = ActionTensors(swm.config.actions, batch_size=p)
    acts.key_presses = torch.zeros((p, t_frames * apvf, len(MIRA_KEYS)), dtype=torch.int32)
    acts.mouse_movements = torch.zeros((p, t_frames * apvf, 2), dtype=torch.float32)
    batch = VideoActionBatch(video=video, actions=acts)

    with torch.no_grad():
        z = model.init_streaming_inference(batch)
        z_win = z[:, -window:].contiguous()
        cfg = WorldModelInferenceConfig(n_diffusion_steps=2)
        z_win, kv = model.streaming_inference_step(z_win, acts, None, cfg)
        z_dec = z_win[:, -min(3, window):]
        from einops import rearrange

        z_split = rearrange(z_dec, "b t (p h) w c -> (b p) t h w c", p=p)
        vid = model.decode_to_video(z_split.float())

    report = {
        "ckpt": ckpt_path,
        "device": device,
        "z_context": list(z.shape),
        "z_window": list(z_win.shape),
        "decoded_video": list(vid.shape),
        "kv_layers": len(kv) if kv is not None else 0,
        "window": window,
        "td": td,
        "players": p,
    }
    print("SMOKE_CHECKPOINT_OK", json.dumps(report))
    return report
