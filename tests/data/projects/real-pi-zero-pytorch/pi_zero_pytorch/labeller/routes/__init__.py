from fastapi import APIRouter

from . import advantage, labels, media, recap, system, training

router = APIRouter()
for module in (system, media, labels, advantage, recap, training):
    router.include_router(module.router)

__all__ = ["router"]
