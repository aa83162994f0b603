import asyncio
import logging
import threading

import torch
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..errors import ApiError
from ..models import FilenameRequest, PolicyTrainRequest, ValueTrainRequest
from ..networks import SmallValueNetwork
from ..state import app_state
from ..store import store
from ..training import train_policy_network_thread, train_value_network_thread

logger = logging.getLogger(__name__)

router = APIRouter()


def _start_training_thread(target, config_name: str):
    if not store.has_data:
        raise ApiError("ReplayBuffer not initialized", status_code=409)
    if app_state.training_state["is_training"]:
        raise ApiError("Training already in progress", status_code=409)

    loop = asyncio.get_running_loop()
    threading.Thread(target=target, args=(app_state, config_name, loop), daemon=True).start()


@router.post("/api/value/train")
async def start_value_training(req: ValueTrainRequest):
    _start_training_thread(train_value_network_thread, req.config)
    return {"status": "ok"}


@router.post("/api/recap/finetune")
async def start_policy_finetune(req: PolicyTrainRequest):
    _start_training_thread(train_policy_network_thread, req.config)
    return {"status": "ok"}


@router.websocket("/ws/training")
async def training_websocket(websocket: WebSocket):
    await app_state.manager.connect(websocket)
    try:
        while True:
            await websocket.receive_text()  # keep-alive only
    except WebSocketDisconnect:
        app_state.manager.disconnect(websocket)


@router.get("/api/value/networks/list")
async def list_value_networks():
    if not app_state.recap_workspace:
        return []

    networks_dir = app_state.recap_workspace / "value_networks"
    if not networks_dir.exists():
        return []

    networks = []
    for f in networks_dir.glob("*.pt"):
        try:
            checkpoint = torch.load(str(f), map_location='cpu', weights_only=False)
            networks.append({
                "filename": f.name,
                "config_name": checkpoint.get("config_name", "unknown"),
                "epochs": checkpoint.get("epochs", 0),
                "final_loss": checkpoint.get("final_loss", 0.0),
                "timestamp": checkpoint.get("timestamp", ""),
            })
        except Exception:
            logger.exception("failed to read checkpoint %s", f)

    networks.sort(key=lambda x: x['timestamp'], reverse=True)
    return networks


@router.post("/api/value/networks/load")
async def load_value_network(req: FilenameRequest):
    if not app_state.recap_workspace:
        raise ApiError("RECAP workspace not set", status_code=409)

    model_path = app_state.recap_workspace / "value_networks" / req.filename
    if not model_path.exists():
        raise ApiError("Model file not found", status_code=404)

    try:
        checkpoint = torch.load(str(model_path), map_location=app_state.device, weights_only=False)
        model = SmallValueNetwork(**checkpoint["config"]).to(app_state.device)
        model.load_state_dict(checkpoint["state_dict"])
        app_state.value_network = model
        return {"status": "ok", "config_name": checkpoint.get("config_name")}
    except Exception as e:
        logger.exception("failed to load value network %s", req.filename)
        raise ApiError(str(e), status_code=500)
