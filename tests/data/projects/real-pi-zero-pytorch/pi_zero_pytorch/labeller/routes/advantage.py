from fastapi import APIRouter

from ..models import (
    AdvantageCalcRequest,
    AdvantageStatsRequest,
    BinarizeRequest,
    FilenameRequest,
    InvalidateRequest,
)
from ..state import app_state
from ..store import store
from ..training import calculate_episode_advantage, calculate_episode_value

router = APIRouter()


@router.post("/api/returns/calculate")
async def calculate_returns(req: FilenameRequest):
    returns = store.recalculate_returns(store.resolve(req.filename))
    return {"status": "ok", "returns": returns}


@router.post("/api/episode/value/calculate")
async def episode_value_calculate(req: FilenameRequest):
    return await calculate_episode_value(app_state, req.filename)


@router.post("/api/episode/advantage/calculate")
async def episode_advantage_calculate(req: AdvantageCalcRequest):
    return await calculate_episode_advantage(app_state, req.filename, req.gamma, req.lam)


@router.post("/api/advantage/stats")
async def calculate_global_advantage_stats(req: AdvantageStatsRequest):
    cutoff, count = store.advantage_cutoff(req.percentile)
    return {"status": "ok", "cutoff": cutoff, "count": count}


@router.post("/api/advantage/binarize")
async def binarize_advantages(req: BinarizeRequest):
    adv_ids = store.binarize(store.resolve(req.filename), req.cutoff)
    return {"status": "ok", "advantage_ids": adv_ids}


@router.post("/api/episode/invalidate")
async def invalidate_episode_timesteps(req: InvalidateRequest):
    is_invalid = store.invalidate(store.resolve(req.filename), req.cutoff)
    return {"status": "ok", "invalidated": is_invalid}
