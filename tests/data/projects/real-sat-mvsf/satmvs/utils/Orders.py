from satmvs.utils.files import ensure_forward_slash
import os
import json


def load_order_json(order_file: str):
    """
    从一个订单文件（order.json）中读取全部输入信息。

    返回：
        prj_str:            str
        image_pair_list:    List[List[str]]
        camera_pair_list:   List[List[str]]
        id_pair_list:       List[List[int]]
        border_info:        [x0, y0, xsize, ysize, xuint, yuint]
        depth_range:        [d_min, d_max, interval]
        output_dsm_path:    str
    """
    order_file = ensure_forward_slash(order_file)
    if not os.path.isfile(order_file):
        raise FileNotFoundError(f"Order file not found: {order_file}")

    order_dir = os.path.dirname(order_file)

    with open(order_file, "r", encoding="utf-8") as f:
        od = json.load(f)

    # 1) 投影
    prj_str = od["projection_wkt"]

    # 2) 路径规范化（支持相对路径：相对 order.json 所在目录）
    def _norm_path(p: str) -> str:
        p = os.path.expanduser(p)
        if not os.path.isabs(p):
            p = os.path.join(order_dir, p)
        return ensure_forward_slash(os.path.normpath(p))

    images = od["images"]
    cameras = od["cameras"]
    image_paths_all = [_norm_path(item["path"]) for item in images]
    camera_paths_all = [_norm_path(item["path"]) for item in cameras]

    # 3) pair 信息：把 ref + src 展成一条索引列表
    image_pair_list = []
    camera_pair_list = []
    id_pair_list = []

    for pinfo in od["pairs"]:
        ref = int(pinfo["ref"])
        src = [int(x) for x in pinfo.get("src", [])]
        idxs = [ref] + src
        id_pair_list.append(idxs)
        image_pair_list.append([image_paths_all[i] for i in idxs])
        camera_pair_list.append([camera_paths_all[i] for i in idxs])

    # 4) border
    b = od["border"]
    border_info = [
        float(b["x0"]),
        float(b["y0"]),
        float(b["xsize"]),
        float(b["ysize"]),
        float(b["xuint"]),
        float(b["yuint"]),
    ]

    # 5) depth range
    r = od["range"]
    depth_range = [
        float(r["d_min"]),
        float(r["d_max"]),
        float(r["interval"]),
    ]

    # 6) final output dsm path
    output_dsm_path = od["output_dsm_path"]
    output_dsm_path = _norm_path(output_dsm_path)

    return (
        prj_str,
        image_pair_list,
        camera_pair_list,
        id_pair_list,
        border_info,
        depth_range,
        output_dsm_path,
    )