import io
import json
import time
import zipfile

import numpy as np
from fastapi import APIRouter
from fastapi.responses import FileResponse

from ..models import (
    ActionUpdateRequest,
    FilenameRequest,
    InterventionRequest,
    LabelRequest,
    TaskAssignRequest,
)
from ..state import app_state
from ..store import store

router = APIRouter()


@router.get("/api/tasks")
async def get_tasks():
    if not app_state.recap_config:
        return []

    return [
        {
            "id": task_name,
            "name": task_name.replace('_', ' ').title(),
            "max_duration": config.get('max_episode_length', 0),
            "pretrain": config.get('pretrain', {}),
            "finetune": config.get('finetune', {}),
        }
        for task_name, config in app_state.recap_config.get('tasks', {}).items()
    ]


@router.get("/api/labels")
async def get_all_labels():
    return store.all_labels()


@router.post("/api/label")
async def label_video(req: LabelRequest):
    episode_id = store.resolve(req.filename)
    returns = store.label(episode_id, req.timestep, req.success, req.penalty)
    return {"status": "ok", "returns": returns}


@router.post("/api/label/reset")
async def reset_label(req: FilenameRequest):
    store.reset(store.resolve(req.filename))
    return {"status": "ok"}


@router.post("/api/label/intervention")
async def label_intervention(req: InterventionRequest):
    episode_id = store.resolve(req.filename)
    result = store.mark_intervention(episode_id, req.timestep)
    return {"status": "ok", "is_expert_intervention": True, **result}


@router.post("/api/episode/task")
async def assign_task(req: TaskAssignRequest):
    store.assign_task(store.resolve(req.filename), req.task_id)
    return {"status": "ok"}


@router.get("/api/video/{filename}/action/{timestep}")
async def get_action(filename: str, timestep: int):
    episode_id = store.resolve(filename)
    return {
        "action": store.get_action(episode_id, timestep),
        "horizon": store.ACTION_HORIZON,
        "dim": store.ACTION_DIM,
    }


@router.post("/api/video/{filename}/action/{timestep}")
async def update_action(filename: str, timestep: int, req: ActionUpdateRequest):
    episode_id = store.resolve(filename)
    store.set_action(episode_id, timestep, req.action)
    return {"status": "ok", "action": req.action}


@router.get("/api/export")
async def export_labels():
    data_dict, meta_data_dict = store.export_arrays()

    export_dir = app_state.cache_dir / "exports"
    export_dir.mkdir(parents=True, exist_ok=True)

    timestamp = int(time.time())
    zip_filename = f"labels_export_{timestamp}.zip"
    zip_path = export_dir / zip_filename

    metadata = {
        "video_to_index": app_state.video_to_episode,
        "config": app_state.recap_config,
        "timestamp": timestamp,
    }

    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zip_file:
        for arc_name, arrays in (("data.npz", data_dict), ("meta_data.npz", meta_data_dict)):
            npz_buffer = io.BytesIO()
            np.savez(npz_buffer, **arrays)
            zip_file.writestr(arc_name, npz_buffer.getvalue())
        zip_file.writestr("metadata.json", json.dumps(metadata, indent=2))

    return FileResponse(path=str(zip_path), filename=zip_filename, media_type="application/zip")
