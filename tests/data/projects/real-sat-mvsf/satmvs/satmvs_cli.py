# -*- coding: utf-8 -*-
"""
Sat-MVSF CLI entry.

设计约定（对外接口）：
    - 输入：单个 order.json 文件
    - 约束：当前仅支持“一个订单 = 一个 pair”
    - 临时输出：--workspace 目录下
    - 最终输出：
        * order.json 顶层必须提供 "output_dsm_path"
        * Pipeline 直接把 DSM 写到该路径
        * 成功后删除整个 workspace
    - 结果协议（给调用方解析）：
        * 默认：stdout 最后一行是一行 JSON；日志等其他内容走 stderr
          （Pipeline 内部的 tqdm/print 仍会污染 stdout，所以推荐用 --result-json）
        * 推荐：--result-json /path/to/result.json 把结构化结果写文件，
          stdout 可以随便被污染，不影响调用方解析
    - 退出码:
        0 = 成功
        2 = 输入错（订单找不到、格式错、字段缺失）—— 不要重试
        1 = 运行时错（OOM、模型异常等）—— 可以重试一次
"""

from __future__ import annotations

import os
import sys


def _preparse_gpu_id() -> None:
    argv = sys.argv
    for i, a in enumerate(argv):
        if a == "--gpu-id" and i + 1 < len(argv):
            os.environ["CUDA_VISIBLE_DEVICES"] = argv[i + 1]
            return
        if a.startswith("--gpu-id="):
            os.environ["CUDA_VISIBLE_DEVICES"] = a.split("=", 1)[1]
            return


_preparse_gpu_id()

import gc
import json
import time
import uuid
import ctypes
import glob
import shutil
import logging
import argparse
import traceback
import platform
from pathlib import Path
from typing import Any, Dict, List, Optional

try:
    import torch  # type: ignore
except Exception:
    torch = None

from satmvs.utils.files import ensure_forward_slash, mkdir_if_not_exist
from satmvs.utils.io import read_config
from satmvs.utils.Orders import load_order_json
from satmvs.pipeline.rpc_pipeline import Pipeline
from satmvs.pylog.logger import Logger as FileLogger


EXIT_OK = 0
EXIT_RUNTIME_ERR = 1
EXIT_INPUT_ERR = 2


class InputError(ValueError):
    pass


def _bootstrap_gdal() -> None:
    if platform.system() != "Windows":
        return
    prefix = sys.prefix
    libbin = os.path.join(prefix, "Library", "bin")
    if not os.path.isdir(libbin):
        return
    if hasattr(os, "add_dll_directory"):
        os.add_dll_directory(libbin)  # type: ignore[attr-defined]
    else:
        os.environ["PATH"] = libbin + os.pathsep + os.environ.get("PATH", "")
    os.environ.setdefault("GDAL_DATA", os.path.join(prefix, "Library", "share", "gdal"))
    os.environ.setdefault("PROJ_LIB", os.path.join(prefix, "Library", "share", "proj"))

    def _load(pattern: str) -> None:
        matches = glob.glob(os.path.join(libbin, pattern))
        if matches:
            ctypes.CDLL(matches[0])

    for pat in ("gdal*.dll", "geos_c*.dll", "proj*.dll", "hdf5*.dll",
                "libcurl*.dll", "zlib*.dll", "iconv*.dll"):
        try:
            _load(pat)
        except OSError as e:
            print(f">>> GDAL DLL dependency problem: {e}", file=sys.stderr)
            raise


def resource_path(rel_path: str) -> str:
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).parent))
    p = Path(rel_path)
    return str((p if p.is_absolute() else (base / rel_path)).resolve())


def _resolve_device(device: Optional[str]) -> str:
    if device is None:
        device = "gpu"
    d = device.lower().strip()
    if d in ("gpu", "cuda") or d.startswith("cuda:"):
        if torch is None or not torch.cuda.is_available():
            raise InputError(
                "GPU requested but CUDA is not available. "
                "Install torch with CUDA, or pass --device cpu."
            )
        return "gpu"
    if d == "cpu":
        return "cpu"
    raise InputError(f"Unknown device: {device!r}. Use 'gpu' or 'cpu'.")


def run_satmvsf(
    *,
    order_path: str,
    workspace: str,
    config_file: str = "config/config.json",
    loadckpt: str = "checkpoints/casred.ckpt",
    device: str = "gpu",
    request_id: Optional[str] = None,
    resize_scale: float = 1.0,
    sample_scale: float = 1.0,
    interval_scale: float = 2.5,
    batch_size: int = 1,
    adaptive_scaling: bool = True,
    share_cr: bool = False,
    ndepths: str = "64,32,8",
    depth_inter_r: str = "4,2,1",
    cr_base_chs: str = "8,8,8",
) -> Dict[str, Any]:
    request_id = request_id or uuid.uuid4().hex[:12]
    logger = logging.getLogger("satmvs.cli")

    _bootstrap_gdal()

    config_file = resource_path(config_file)
    loadckpt = resource_path(loadckpt)
    if not os.path.isfile(config_file):
        raise InputError(f"Config file not found: {config_file}")
    if not os.path.isfile(loadckpt):
        raise InputError(f"Checkpoint file not found: {loadckpt}")
    if not os.path.isfile(order_path):
        raise InputError(f"Order file not found: {order_path}")

    workspace = ensure_forward_slash(str(Path(workspace).resolve()))
    if os.path.exists(workspace):
        shutil.rmtree(workspace, ignore_errors=True)
    mkdir_if_not_exist(workspace)

    device = _resolve_device(device)
    config = read_config(config_file)

    try:
        (
            prj_str,
            image_pair_list,
            camera_pair_list,
            id_pair_list,
            border_info,
            depth_range,
            output_dsm_path,
        ) = load_order_json(order_path)
    except KeyError as e:
        raise InputError(f"Bad order.json: missing key {e}") from e
    except json.JSONDecodeError as e:
        raise InputError(f"Bad order.json: invalid JSON: {e}") from e

    if not image_pair_list:
        raise InputError("Order has no pairs")

    if len(image_pair_list) != 1:
        raise InputError(
            f"Only single-pair orders are supported, but got {len(image_pair_list)} pairs."
        )

    output_dsm_path = ensure_forward_slash(str(Path(output_dsm_path).resolve()))

    workspace_prefix = workspace.rstrip("/\\") + "/"
    dst_norm = output_dsm_path.replace("\\", "/")
    if dst_norm.startswith(workspace_prefix.replace("\\", "/")):
        raise InputError(
            "order.json field 'output_dsm_path' must be outside --workspace, "
            "otherwise it would be deleted during cleanup."
        )

    class _Args:
        pass

    _a = _Args()
    _a.resize_scale = resize_scale
    _a.sample_scale = sample_scale
    _a.interval_scale = interval_scale
    _a.batch_size = batch_size
    _a.adaptive_scaling = adaptive_scaling
    _a.share_cr = share_cr
    _a.ndepths = ndepths
    _a.depth_inter_r = depth_inter_r
    _a.cr_base_chs = cr_base_chs
    _a.loadckpt = loadckpt
    _a.config_file = config_file
    _a.workspace = workspace
    _a.device = device

    t0 = time.time()
    pair_records: List[Dict[str, Any]] = []

    for image_paths, camera_paths, idxs in zip(
        image_pair_list, camera_pair_list, id_pair_list
    ):
        pair_id = "_".join(map(str, idxs))
        output = ensure_forward_slash(os.path.join(workspace, pair_id))
        if os.path.exists(output):
            shutil.rmtree(output, ignore_errors=True)
        mkdir_if_not_exist(output)

        log_file = ensure_forward_slash(os.path.join(output, "workspace_log.txt"))
        file_logger = FileLogger(log_file)
        file_logger.info(f"request_id={request_id} pair_id={pair_id}")
        file_logger.info(f"config: {config}")
        for p_img, p_cam in zip(image_paths, camera_paths):
            file_logger.info(f"  {p_img}  {p_cam}")
        file_logger.info(f"output: {output}")
        file_logger.info(
            f"border: start ({border_info[0]}, {border_info[1]}) "
            f"xsize {border_info[2]} ysize {border_info[3]} "
            f"xuint {border_info[4]} yuint {border_info[5]}"
        )
        file_logger.info(
            f"search range: [{depth_range[0]}]-[{depth_range[1]}] "
            f"interval:{depth_range[2]}"
        )
        file_logger.info(f"final output_dsm_path: {output_dsm_path}")

        t_pair = time.time()
        pair_ok, pair_err = True, None
        final_dsm = None

        try:
            pipeline = Pipeline(
                image_paths,
                camera_paths,
                config,
                prj_str,
                border_info,
                depth_range,
                output,
                output_dsm_path,
                file_logger,
                _a,
            )
            pipeline.run()
            del pipeline

            if not os.path.isfile(output_dsm_path):
                raise RuntimeError(f"Final DSM file not found after pipeline run: {output_dsm_path}")

            final_dsm = output_dsm_path
            file_logger.info(f"Final DSM ready at: {final_dsm}")

        except Exception as e:
            pair_ok = False
            pair_err = f"{type(e).__name__}: {e}"
            file_logger.error(pair_err)
            file_logger.error(traceback.format_exc())
            logger.exception(f"[{request_id}] pair {pair_id} failed")
        finally:
            gc.collect()
            if torch is not None and torch.cuda.is_available():
                torch.cuda.empty_cache()

        pair_elapsed = round(time.time() - t_pair, 3)
        pair_records.append({
            "pair_id": pair_id,
            "output_dir": output,
            "log": log_file,
            "elapsed_sec": pair_elapsed,
            "ok": pair_ok,
            "error": pair_err,
            "final_dsm": final_dsm,
        })
        logger.info(
            f"[{request_id}] pair {pair_id} "
            f"{'OK' if pair_ok else 'FAIL'} in {pair_elapsed}s"
        )

    all_ok = all(p["ok"] for p in pair_records)

    if all_ok:
        logger.info(f"[{request_id}] cleanup workspace: {workspace}")
        shutil.rmtree(workspace, ignore_errors=True)

    return {
        "ok": all_ok,
        "request_id": request_id,
        "workspace": workspace,
        "elapsed_sec": round(time.time() - t0, 3),
        "pairs": pair_records,
        "error": None if all_ok else "One or more pairs failed; see per-pair error fields",
    }


def _do_check(config_file: str, checkpoint: str) -> Dict[str, Any]:
    _bootstrap_gdal()
    info: Dict[str, Any] = {
        "ok": True,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cuda_available": bool(torch and torch.cuda.is_available()),
        "cuda_device_count": (torch.cuda.device_count()
                              if torch and torch.cuda.is_available() else 0),
        "config_file": resource_path(config_file),
        "checkpoint": resource_path(checkpoint),
        "config_exists": os.path.isfile(resource_path(config_file)),
        "checkpoint_exists": os.path.isfile(resource_path(checkpoint)),
    }
    if torch and torch.cuda.is_available():
        info["cuda_device_name"] = torch.cuda.get_device_name(0)
        info["torch_version"] = torch.__version__
    try:
        from osgeo import gdal  # type: ignore
        info["gdal_version"] = gdal.__version__
    except Exception as e:
        info["ok"] = False
        info["gdal_error"] = str(e)

    if not info["config_exists"] or not info["checkpoint_exists"]:
        info["ok"] = False
    return info


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level),
        format="%(asctime)s %(levelname)s [%(name)s] %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
        stream=sys.stderr,
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="satmvsf",
        description="Sat-MVSF 推理执行体（吃单个 order.json 跑 DSM）",
    )
    p.add_argument("--order", help="订单 JSON 文件路径（必填，除非 --check）")
    p.add_argument("--workspace", help="临时工作目录（必填，除非 --check）")

    p.add_argument("--config", default="config/config.json",
                   help="全局 config.json 路径（默认包内自带）")
    p.add_argument("--checkpoint", default="checkpoints/casred.ckpt",
                   help="模型 ckpt 路径（默认包内自带）")
    p.add_argument("--device", default="gpu", choices=["gpu", "cpu"],
                   help="推理设备（默认 gpu）")
    p.add_argument("--gpu-id", default=None,
                   help="指定 GPU 卡号（内部会设 CUDA_VISIBLE_DEVICES，只在启动时生效）")

    p.add_argument("--result-json", default=None,
                   help="把结果 JSON 写到这个文件（推荐；不指定则打印到 stdout）")
    p.add_argument("--request-id", default=None,
                   help="可选，调用方自定义的请求 ID，会透传到结果里")

    p.add_argument("--resize_scale", type=float, default=1.0)
    p.add_argument("--sample_scale", type=float, default=1.0)
    p.add_argument("--interval_scale", type=float, default=2.5)
    p.add_argument("--batch_size", type=int, default=1)
    p.add_argument("--adaptive_scaling", dest="adaptive_scaling", action="store_true")
    p.add_argument("--no-adaptive_scaling", dest="adaptive_scaling", action="store_false")
    p.set_defaults(adaptive_scaling=True)
    p.add_argument("--share_cr", action="store_true")
    p.add_argument("--ndepths", default="64,32,8")
    p.add_argument("--depth_inter_r", default="4,2,1")
    p.add_argument("--cr_base_chs", default="8,8,8")

    p.add_argument("--check", action="store_true",
                   help="环境自检；不处理订单")
    p.add_argument("--log-level", default="INFO",
                   choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def _emit(result: Dict[str, Any], out_file: Optional[str]) -> None:
    text = json.dumps(result, ensure_ascii=False)
    if out_file:
        Path(out_file).parent.mkdir(parents=True, exist_ok=True)
        with open(out_file, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write("\n===SATMVSF_RESULT_BEGIN===\n")
        sys.stdout.write(text)
        sys.stdout.write("\n===SATMVSF_RESULT_END===\n")
        sys.stdout.flush()


def main() -> int:
    args = build_parser().parse_args()
    _setup_logging(args.log_level)
    logger = logging.getLogger("satmvs.cli")

    if args.check:
        info = _do_check(args.config, args.checkpoint)
        _emit(info, args.result_json)
        return EXIT_OK if info.get("ok") else EXIT_INPUT_ERR

    if not args.order or not args.workspace:
        err = {
            "ok": False,
            "error_type": "InputError",
            "error": "--order and --workspace are required (unless --check)",
        }
        _emit(err, args.result_json)
        return EXIT_INPUT_ERR

    t0 = time.time()
    try:
        result = run_satmvsf(
            order_path=args.order,
            workspace=args.workspace,
            config_file=args.config,
            loadckpt=args.checkpoint,
            device=args.device,
            request_id=args.request_id,
            resize_scale=args.resize_scale,
            sample_scale=args.sample_scale,
            interval_scale=args.interval_scale,
            batch_size=args.batch_size,
            adaptive_scaling=args.adaptive_scaling,
            share_cr=args.share_cr,
            ndepths=args.ndepths,
            depth_inter_r=args.depth_inter_r,
            cr_base_chs=args.cr_base_chs,
        )
        result["total_elapsed_sec"] = round(time.time() - t0, 3)
        _emit(result, args.result_json)
        return EXIT_OK if result.get("ok") else EXIT_RUNTIME_ERR

    except InputError as e:
        logger.warning(f"InputError: {e}")
        _emit({
            "ok": False,
            "error_type": "InputError",
            "error": str(e),
            "elapsed_sec": round(time.time() - t0, 3),
        }, args.result_json)
        return EXIT_INPUT_ERR

    except Exception as e:
        logger.exception("Unhandled runtime error")
        _emit({
            "ok": False,
            "error_type": type(e).__name__,
            "error": str(e),
            "traceback": traceback.format_exc(),
            "elapsed_sec": round(time.time() - t0, 3),
        }, args.result_json)
        return EXIT_RUNTIME_ERR


if __name__ == "__main__":
    sys.exit(main())