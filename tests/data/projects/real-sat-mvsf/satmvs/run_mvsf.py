# -*- coding: utf-8 -*-
import os
import sys
import argparse
import json
import gc
import torch
from pathlib import Path
import shutil

from satmvs.utils.files import ensure_forward_slash, mkdir_if_not_exist
from satmvs.pipeline.rpc_pipeline import Pipeline
from satmvs.utils.io import read_config
from satmvs.pylog.logger import Logger
from satmvs.utils.Orders import load_order_json


def resource_path(rel_path: str) -> str:
    """
    兼容源码运行和 PyInstaller 打包的路径解析。
    """
    base = Path(getattr(sys, "_MEIPASS", Path(__file__).parent))
    p = Path(rel_path)
    return str(p if p.is_absolute() else (base / rel_path))


# ----------------- CLI 参数 -----------------
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
parser = argparse.ArgumentParser(description="Sat-MVSF (single order)")
parser.add_argument(
    "--config_file",
    default="config/config.json"
)
parser.add_argument(
    "--order",
    default=r"E:\Codes2\sat-mvsf\orders_json\order.json",
    help="Path to order.json file (single order that contains images, cameras, pairs, border, range, projection, output_dsm_path).",
)

# device 仍然透传给 Pipeline
parser.add_argument("--device", default="gpu", help="gpu or cpu")
parser.add_argument(
    "--loadckpt",
    default="checkpoints/casred.ckpt",
    help="load a specific checkpoint",
)

# data / network 超参数
parser.add_argument(
    "--resize_scale",
    type=float,
    default=1,
    help="output scale for depth and image (W and H)",
)
parser.add_argument(
    "--sample_scale",
    type=float,
    default=1,
    help="Downsample scale for building cost volume (W and H)",
)
parser.add_argument(
    "--interval_scale",
    type=float,
    default=2.5,
    help="the number of depth values",
)
parser.add_argument("--batch_size", type=int, default=1, help="predict batch size")
parser.add_argument(
    "--adaptive_scaling",
    type=bool,
    default=True,
    help="Let image size to fit the network, including scaling and cropping",
)

# Cascade parameters
parser.add_argument(
    "--share_cr",
    action="store_true",
    help="whether share the cost volume regularization",
)
parser.add_argument("--ndepths", type=str, default="64,32,8", help="ndepths")
parser.add_argument("--depth_inter_r", type=str, default="4,2,1", help="depth_intervals_ratio")
parser.add_argument("--cr_base_chs", type=str, default="8,8,8", help="cost regularization base channels")

# output
parser.add_argument(
    "--workspace",
    type=str,
    default=r"F:\ZY3_test\workspace",
    help="temporary workspace root",
)

args = parser.parse_args()


# ----------------- 主流程：只处理一个订单 -----------------
def run_satmvsf():
    # 适配打包环境
    args.loadckpt = resource_path(args.loadckpt)
    args.config_file = resource_path(args.config_file)

    config = read_config(args.config_file)

    workspace = ensure_forward_slash(str(Path(args.workspace).resolve()))
    mkdir_if_not_exist(workspace)

    # 从单个订单里读取所有输入
    (
        prj_str,
        image_pair_list,
        camera_pair_list,
        id_pair_list,
        border_info,
        depth_range,
        output_dsm_path,
    ) = load_order_json(args.order)

    # 当前只支持一个 pair
    if len(image_pair_list) != 1:
        raise ValueError("Only single-pair orders are supported.")
    if not output_dsm_path:
        raise ValueError("Bad order.json: missing key 'output_dsm_path'")

    output_dsm_path = ensure_forward_slash(str(Path(output_dsm_path).resolve()))

    # 防止最终输出路径被放在 workspace 里面，后续清理时被删掉
    if output_dsm_path.startswith(workspace.rstrip("/") + "/"):
        raise ValueError("order.json key 'output_dsm_path' must be outside workspace")

    pair_workspace = workspace

    for image_paths, camera_paths, idxs in zip(
        image_pair_list, camera_pair_list, id_pair_list
    ):
        # 输出目录名：例如 "2_0_1"
        out_name = "_".join(str(i) for i in idxs)
        output = "{}/{}".format(pair_workspace, out_name)
        mkdir_if_not_exist(output)

        log_path = ensure_forward_slash(os.path.join(output, "workspace_log.txt"))
        logger = Logger(log_path)

        # 输出一些配置/数据路径到 log
        logger.info("config: {}".format(config))
        logger.info("Data paths:")
        for p1, p2 in zip(image_paths, camera_paths):
            logger.info("  {}  {}".format(p1, p2))

        logger.info("output: {}".format(output))
        logger.info(
            "border: start at ({}, {}) xsize {}  ysize {} xuint {}  yuint {}".format(
                border_info[0],
                border_info[1],
                border_info[2],
                border_info[3],
                border_info[4],
                border_info[5],
            )
        )
        logger.info(
            "search range: [{}]-[{}] interval:{}".format(
                depth_range[0], depth_range[1], depth_range[2]
            )
        )
        logger.info("final output_dsm_path: {}".format(output_dsm_path))
        # 启动 Pipeline
        pipeline = Pipeline(
            image_paths,
            camera_paths,
            config,
            prj_str,
            border_info,
            depth_range,
            output,
            output_dsm_path,
            logger,
            args,
        )
        pipeline.run()

        del pipeline
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

        # DSM 由 Pipeline 直接写到 output_dsm_path
        if not os.path.isfile(output_dsm_path):
            raise FileNotFoundError(f"Final DSM file not found: {output_dsm_path}")

        logger.info("Final DSM ready at: {}".format(output_dsm_path))

        logger.info("Removing workspace: {}".format(workspace))
        if os.path.exists(workspace):
            shutil.rmtree(workspace, ignore_errors=True)

if __name__ == "__main__":
    run_satmvsf()