import asyncio
import json
import logging
from pathlib import Path
from typing import List

from fastapi import APIRouter
from fastapi.responses import FileResponse

from ..errors import ApiError
from ..state import app_state
from ..storage import extract_frames, get_video_path
from ..store import store

logger = logging.getLogger(__name__)

router = APIRouter()


@router.get("/api/videos")
async def list_videos():
    return store.video_infos()


@router.get("/api/viewpoints")
async def get_viewpoints():
    for vdir in app_state.video_dirs:
        vp_json = vdir / "viewpoints.json"
        if vp_json.exists():
            with open(vp_json) as f:
                return json.load(f)
    return {"viewpoints": {}}


@router.get("/videos/{filename}")
async def serve_video(filename: str):
    if not app_state.video_dirs:
        raise ApiError("Video directories not set", status_code=409)

    # `filename` is either an explicit file (episode_0.0.mp4) or an episode
    # base name (episode_0), which defaults to its first view.
    for candidate in (filename, f"{filename}.0.mp4"):
        video_path = get_video_path(app_state, candidate)
        if video_path and video_path.exists():
            return FileResponse(video_path)

    raise ApiError(f"Video {filename} not found", status_code=404)


def _resolve_views(filename: str) -> List[Path]:
    """All view files for an episode base name, in view order."""
    views = []

    view_idx = 0
    while True:
        v_path = get_video_path(app_state, f"{filename}.{view_idx}.mp4")
        if not v_path or not v_path.exists():
            break
        views.append(v_path)
        view_idx += 1

    if views:
        return views

    single_path = get_video_path(app_state, f"{filename}.mp4")
    if single_path and single_path.exists():
        return [single_path]

    for key, path in app_state.video_to_path.items():
        if key.replace('.mp4', '') == filename or key == filename:
            return [path]

    return []


@router.get("/api/video/{filename}/frames")
async def get_video_frames(filename: str):
    views = _resolve_views(filename)
    if not views:
        logger.warning("frames requested for unknown video %s (known: %s)", filename, list(app_state.video_to_path))
        return {"error": "Video not found", "frames": []}

    all_frames = []
    for v_path in views:
        cache_path = app_state.cache_dir / v_path.name
        await asyncio.to_thread(extract_frames, v_path, cache_path)
        frames = sorted(f.name for f in cache_path.glob("*.jpg"))
        all_frames.append([f"/cache/{v_path.name}/{f}" for f in frames])

    # Transpose to [timestep][view]; pad short views with None
    max_f = max(len(frames) for frames in all_frames)
    result = [
        [view[t] if t < len(view) else None for view in all_frames]
        for t in range(max_f)
    ]
    return {"frames": result}


@router.get("/api/video/{filename}/proprio")
async def get_video_proprio(filename: str):
    """Proprioception data for an episode, always as a 2D [T, D] list."""
    proprio = app_state.video_to_proprio.get(filename)
    if proprio is None:
        return {"proprio": None, "dim_names": [], "num_dims": 0}

    if isinstance(proprio, list) and len(proprio) > 0:
        if not isinstance(proprio[0], list):
            proprio = [[v] for v in proprio]
        num_dims = len(proprio[0])
    else:
        num_dims = 0

    return {
        "proprio": proprio,
        "dim_names": [f"Joint {i}" for i in range(num_dims)],
        "num_dims": num_dims,
    }
