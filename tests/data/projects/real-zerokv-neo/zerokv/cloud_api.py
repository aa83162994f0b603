"""
ZeroKV Cloud API: FastAPI-based model-agnostic KV compression service.

Provides REST endpoints for:
- Compressing KV cache tensors
- Decompressing KV cache tensors
- Getting compression statistics
- Managing profiles

Usage:
    uvicorn zerokv.cloud_api:app --host 0.0.0.0 --port 8000
"""

from __future__ import annotations

import base64
import io
import time
from contextlib import asynccontextmanager
from typing import Any, Dict, List, Optional

import torch

try:
    from fastapi import FastAPI, HTTPException
    from pydantic import BaseModel
    FASTAPI_AVAILABLE = True
except ImportError:
    FASTAPI_AVAILABLE = False


def _create_app() -> "FastAPI":
    if not FASTAPI_AVAILABLE:
        raise ImportError("fastapi and pydantic are required. Install with: pip install fastapi uvicorn")

    from fastapi import FastAPI
    from pydantic import BaseModel

    class TensorPayload(BaseModel):
        data: str  # base64 encoded serialized tensor
        shape: List[int]
        dtype: str = "float16"

    class CompressionRequest(BaseModel):
        tensor: TensorPayload
        r_bits: int = 3
        theta_bits: int = 2
        qjl_dim: int = 8
        outlier_fraction: float = 0.10
        residual_bits: int = 1
        hadamard_rest: bool = True
        layer_seed: int = 0

    class CompressionResponse(BaseModel):
        compressed_data: str
        original_bytes: int
        compressed_bytes: int
        compression_ratio: float
        compress_time_ms: float

    class DecompressionRequest(BaseModel):
        compressed_data: str
        original_shape: List[int]
        dtype: str = "float16"

    class DecompressionResponse(BaseModel):
        tensor_data: str
        decompress_time_ms: float

    class ProfileRequest(BaseModel):
        model_id: str
        sliding_window: int = 256
        r_bits: int = 3
        theta_bits: int = 2
        qjl_dim: int = 8
        outlier_fraction: float = 0.10
        residual_bits: int = 1

    class HealthResponse(BaseModel):
        status: str
        version: str
        device: str
        zerokv_modules: int

    app = FastAPI(
        title="ZeroKV-Neo Cloud API",
        description="Model-agnostic KV cache compression service",
        version="3.0.0",
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield

    app.router.lifespan_context = lifespan

    @app.get("/health", response_model=HealthResponse)
    async def health():
        from zerokv import __all__
        device = "cpu"
        if torch.cuda.is_available():
            device = f"cuda:{torch.cuda.current_device()}"
        elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
            device = "mps"
        return HealthResponse(
            status="healthy",
            version="3.0.0",
            device=device,
            zerokv_modules=len(__all__),
        )

    @app.post("/compress", response_model=CompressionResponse)
    async def compress(req: CompressionRequest):
        from zerokv.quant import compress_kv_tensor, compressed_kv_nbytes
        import pickle

        try:
            tensor_bytes = base64.b64decode(req.tensor.data)
            tensor = torch.load(io.BytesIO(tensor_bytes), weights_only=False)
            tensor = tensor.reshape(req.tensor.shape).to(req.tensor.dtype)
        except Exception as e:
            raise HTTPException(status_code=400, detail=f"Invalid tensor data: {e}")

        original_bytes = tensor.numel() * tensor.element_size()

        t0 = time.perf_counter()
        block = compress_kv_tensor(
            tensor,
            r_bits=req.r_bits,
            theta_bits=req.theta_bits,
            qjl_dim=req.qjl_dim,
            outlier_fraction=req.outlier_fraction,
            layer_seed=req.layer_seed,
            hadamard_rest=req.hadamard_rest,
            residual_bits=req.residual_bits,
        )
        compress_ms = (time.perf_counter() - t0) * 1000

        compressed_bytes = compressed_kv_nbytes(block)
        block_bytes = pickle.dumps(block)

        return CompressionResponse(
            compressed_data=base64.b64encode(block_bytes).decode(),
            original_bytes=original_bytes,
            compressed_bytes=compressed_bytes,
            compression_ratio=round(original_bytes / compressed_bytes, 3) if compressed_bytes > 0 else 1.0,
            compress_time_ms=round(compress_ms, 2),
        )

    @app.post("/decompress", response_model=DecompressionResponse)
    async def decompress(req: DecompressionRequest):
        from zerokv.quant import decompress_kv_tensor
        import pickle

        try:
            block_bytes = base64.b64decode(req.compressed_data)
            block = pickle.loads(block_bytes)
        except Exception as e:
            raise HTTPException(status_code=400, detail=f"Invalid compressed data: {e}")

        t0 = time.perf_counter()
        tensor = decompress_kv_tensor(block)
        decompress_ms = (time.perf_counter() - t0) * 1000

        buf = io.BytesIO()
        torch.save(tensor, buf)
        tensor_data = base64.b64encode(buf.getvalue()).decode()

        return DecompressionResponse(
            tensor_data=tensor_data,
            decompress_time_ms=round(decompress_ms, 2),
        )

    @app.post("/profile")
    async def create_profile(req: ProfileRequest):
        from zerokv.profiles import LayerOverride, ZerokvProfile

        profile = ZerokvProfile(
            model_id=req.model_id,
            layers=[
                LayerOverride(
                    layer_idx=i,
                    r_bits=req.r_bits,
                    theta_bits=req.theta_bits,
                    qjl_dim=req.qjl_dim,
                    outlier_fraction=req.outlier_fraction,
                )
                for i in range(32)
            ],
        )

        return {
            "profile": profile.to_dict(),
            "model_id": req.model_id,
            "layers": 32,
        }

    @app.get("/stats")
    async def stats():
        import zerokv
        return {
            "version": "3.0.0",
            "modules": dir(zerokv),
            "torch_version": torch.__version__,
            "cuda_available": torch.cuda.is_available(),
        }

    return app


if FASTAPI_AVAILABLE:
    app = _create_app()
