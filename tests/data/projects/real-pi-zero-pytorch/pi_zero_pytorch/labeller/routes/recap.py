import threading

from fastapi import APIRouter

from ..errors import ApiError
from ..models import LoadDataRequest, RecapIterRequest, RecapTaskRequest
from ..recap import (
    get_recap_state,
    recap_collect,
    recap_iterate,
    recap_pretrain,
    recap_specialize,
    simulate_collection,
)
from ..state import app_state
from ..storage import init_replay_buffer

router = APIRouter()


@router.get("/api/recap/state")
async def recap_state():
    return get_recap_state(app_state)


@router.post("/api/recap/pretrain")
async def recap_pretrain_route():
    return recap_pretrain(app_state)


@router.post("/api/recap/specialize")
async def recap_specialize_route(req: RecapTaskRequest):
    return recap_specialize(app_state, req.task_name)


@router.post("/api/recap/collect")
async def recap_collect_route(req: RecapIterRequest):
    return recap_collect(app_state, req.task_name, req.iter_id)


@router.post("/api/recap/iterate")
async def recap_iterate_route(req: RecapIterRequest):
    return recap_iterate(app_state, req.task_name, req.iter_id)


@router.post("/api/recap/simulate_collection")
async def simulate_collection_route(req: RecapIterRequest):
    """Simulate collecting a new batch of rollouts for a task/iteration."""
    return simulate_collection(app_state, req.task_name, req.iter_id)


@router.post("/api/recap/load_data")
async def recap_load_data(req: LoadDataRequest):
    """Mount a workspace data folder into the labeller's replay buffer."""
    if req.is_pretrained:
        target_dir = app_state.recap_workspace / "pretrained_data"
    else:
        if not req.task_name or req.iter_id is None or not req.data_id:
            raise ApiError("Missing required parameters")
        target_dir = app_state.recap_workspace / req.task_name / str(req.iter_id) / req.data_id

    if not target_dir.exists():
        raise ApiError(f"Data directory {target_dir} does not exist", status_code=404)

    app_state.video_dirs = [target_dir]
    app_state.replay_buffer = None
    app_state.video_to_episode = {}

    app_state.conversion_status["is_converting"] = True
    app_state.conversion_status["progress"] = 0
    threading.Thread(target=init_replay_buffer, args=(app_state, app_state.video_dirs), daemon=True).start()

    return {"status": "ok", "video_dir": str(target_dir)}
