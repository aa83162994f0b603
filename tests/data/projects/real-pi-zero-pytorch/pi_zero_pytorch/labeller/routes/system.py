from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from ..state import app_state

router = APIRouter()

WEB_UI_DIR = Path(__file__).parent.parent / "web_ui"


@router.get("/", response_class=HTMLResponse)
async def get_index():
    return HTMLResponse(content=(WEB_UI_DIR / "index.html").read_text(), status_code=200)


@router.get("/api/status")
async def get_status():
    return app_state.conversion_status


@router.get("/api/training/status")
async def get_training_status():
    return app_state.training_state
