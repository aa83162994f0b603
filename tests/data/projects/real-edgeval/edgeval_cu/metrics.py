import os
import glob
import cv2
import numpy as np
from tqdm import tqdm
import multiprocessing as mp
from shutil import rmtree
from scipy.io import loadmat
from scipy.interpolate import interp1d
from scipy.spatial import cKDTree

from .nms_thin import bwmorph_thin
from .cpu_auction import build_problem, solve_one as auction_solve_one

eps = 2e-6


def _auction_match(e1_binary, g_binary, max_dist_px, outlier_cost):
    """Replace correspond_pixels: use auction on simple bipartite graph.

    Returns (match_pred_img, match_gt_img, cost, oc) matching the
    correspond_pixels interface but using the deterministic auction
    algorithm on a simple bipartite graph (same as GPU pipeline).
    """
    prob = build_problem(e1_binary, g_binary, max_dist_px, outlier_cost)
    H, W = e1_binary.shape
    match_pred = np.zeros((H, W), dtype=np.int32)
    match_gt = np.zeros((H, W), dtype=np.int32)

    if prob is None:
        return match_pred, match_gt, 0.0, outlier_cost

    assign = auction_solve_one(prob)
    n2 = prob['n_objects']

    pred_pixels = np.stack(np.where(e1_binary), axis=1)
    gt_pixels = np.stack(np.where(g_binary), axis=1)

    matched_pred = assign[assign < n2]
    matched_persons = np.where(assign < n2)[0]

    for idx in range(len(matched_persons)):
        p = matched_persons[idx]
        j = assign[p]
        py, px = pred_pixels[p]
        gy, gx = gt_pixels[j]
        # Encode match value: (partner_x * height + partner_y + 1) (same format as correspond_pixels)
        match_pred[py, px] = int(gx * H + gy + 1)
        match_gt[gy, gx] = int(px * H + py + 1)

    return match_pred, match_gt, 0.0, outlier_cost


def _compute_max_dist(edge_shape, max_dist_ratio):
    """Compute pixel-level max_dist and outlier_cost from ratio."""
    H, W = edge_shape
    idiag = np.sqrt(H * H + W * W)
    max_dist_px = max_dist_ratio * idiag
    oc = 100 * max_dist_px
    return max_dist_px, oc


def edges_eval_img(im, gt, out="", thrs=99, max_dist=0.0075, thin=True, need_v=False, workers=1):
    """See https://github.com/pdollar/edges/blob/master/edgesEvalImg.m"""
    if isinstance(thrs, list):
        k = len(thrs)
    elif isinstance(thrs, int):
        k = thrs
        thrs = np.linspace(1 / (k + 1), 1 - 1 / (k + 1), k)
    else:
        raise NotImplementedError

    if isinstance(im, str):
        edge = cv2.imread(im, cv2.IMREAD_UNCHANGED) / 255.
    else:
        edge = im
    assert edge.ndim == 2
    try:
        gt = [g.item()[1] for g in loadmat(gt)["groundTruth"][0]]
    except Exception:
        gt = [g.item()[0] for g in loadmat(gt)["groundTruth"][0]]

    max_dist_px, oc = _compute_max_dist(edge.shape, max_dist)

    cnt_sum_r_p = np.zeros((k, 4), dtype=np.int64)
    v = np.zeros((*edge.shape, 3, k), dtype=np.float32)

    if workers == 1:
        for k_ in range(k):
            e1 = edge >= max(eps, thrs[k_])
            if thin:
                e1 = bwmorph_thin(e1)
            match_e, match_g = np.zeros_like(edge, dtype=bool), np.zeros_like(edge, dtype=np.int64)
            all_g = np.zeros_like(edge, dtype=np.int64)
            for g in gt:
                match_e1, match_g1, _, _ = _auction_match(e1, g, max_dist_px, oc)
                match_e = np.logical_or(match_e, match_e1 > 0)
                match_g = match_g + (match_g1 > 0)
                all_g += g
            cnt_sum_r_p[k_, :] = [np.sum(match_g), np.sum(all_g), np.count_nonzero(match_e), np.count_nonzero(e1)]
            if need_v:
                cs = np.array([[1, 0, 0], [0, 0.7, 0], [0.7, 0.8, 1]]) - 1
                fp = e1.astype(np.int64) - match_e.astype(np.int64)
                tp = match_e
                fn = (all_g - match_g) / len(gt)
                for g_ in range(3):
                    v[:, :, g_, k_] = np.maximum(0, 1 + fn * cs[0, g_] + tp * cs[1, g_] + fp * cs[2, g_])
                v[:, 1:, :, k_] = np.minimum(v[:, 1:, :, k_], v[:, :-1, :, k_])
                v[1:, :, :, k_] = np.minimum(v[1:, :, :, k_], v[:-1, :, :, k_])
    else:
        assert not need_v

        def _process_thrs_loop(_edge, _gt, _eps, _thrs, _thin, _md_px, _oc, _indices, _queue):
            for _k in _indices:
                _e1 = _edge >= max(_eps, _thrs[_k])
                if _thin:
                    _e1 = bwmorph_thin(_e1)
                _match_e, _match_g = np.zeros_like(_edge, dtype=bool), np.zeros_like(_edge, dtype=np.int64)
                _all_g = np.zeros_like(_edge, dtype=np.int64)
                for _g in _gt:
                    _match_e1, _match_g1, _, _ = _auction_match(_e1, _g, _md_px, _oc)
                    _match_e = np.logical_or(_match_e, _match_e1 > 0)
                    _match_g = _match_g + (_match_g1 > 0)
                    _all_g += _g
                _cnt_sum_r_p = [np.sum(_match_g), np.sum(_all_g), np.count_nonzero(_match_e), np.count_nonzero(_e1)]
                _queue.put([_cnt_sum_r_p, _k])

        if workers == -1:
            workers = mp.cpu_count()
        workers = min(workers, k)
        queue = mp.SimpleQueue()
        split_indices = np.array_split(np.arange(k), workers)
        pool = [mp.Process(target=_process_thrs_loop,
                           args=(edge, gt, eps, thrs, thin, max_dist_px, oc, split_indices[_], queue))
                for _ in range(workers)]
        [thread.start() for thread in pool]
        process_cnt_k = 0
        while process_cnt_k < k:
            process_cnt_sum_r_p, process_k = queue.get()
            cnt_sum_r_p[process_k, :] = process_cnt_sum_r_p
            process_cnt_k += 1
        [thread.join() for thread in pool]

    info = np.concatenate([thrs[:, None], cnt_sum_r_p], axis=1)
    if out:
        np.savetxt(out, info, fmt="%10g")
    return info, v


def compute_rpf(cnt_sum_r_p):
    r = cnt_sum_r_p[:, 0] / np.maximum(eps, cnt_sum_r_p[:, 1])
    p = cnt_sum_r_p[:, 2] / np.maximum(eps, cnt_sum_r_p[:, 3])
    f = 2 * p * r / np.maximum(eps, p + r)
    return r, p, f


def find_best_rpf(t, r, p):
    if len(t) == 1:
        bst_f = 2 * p * r / np.maximum(eps, p + r)
        return r, p, bst_f, t
    a = np.linspace(0, 1, 100)[None, :]
    b = 1 - a
    t, r, p = t[:, None], r[:, None], p[:, None]
    rj = r[1:] @ a + r[:-1] @ b
    pj = p[1:] @ a + p[:-1] @ b
    tj = t[1:] @ a + t[:-1] @ b
    fj = 2 * pj * rj / np.maximum(eps, pj + rj)
    k = np.argmax(fj).item()
    row, col = divmod(k, 100)
    bst_r, bst_p, bst_f, bst_t = rj[row, col], pj[row, col], fj[row, col], tj[row, col]
    return bst_r, bst_p, bst_f, bst_t


def edges_eval_dir(res_dir, gt_dir, cleanup=0, thrs=99, max_dist=0.0075, thin=True, workers=1):
    """See https://github.com/pdollar/edges/blob/master/edgesEvalDir.m"""
    if thrs != 99:
        eval_dir = "{}-eval-{}".format(res_dir, thrs)
    else:
        eval_dir = "{}-eval".format(res_dir)
    if not os.path.isdir(eval_dir):
        os.makedirs(eval_dir)
    filename = os.path.join(eval_dir, "eval_bdry.txt")
    if os.path.isfile(filename):
        return

    assert os.path.isdir(res_dir) and os.path.isdir(gt_dir)
    ids = [os.path.split(file)[-1] for file in glob.glob(os.path.join(gt_dir, "*.mat"))]
    for ci, i in enumerate(tqdm(ids)):
        i = os.path.splitext(i)[0]
        res = os.path.join(eval_dir, "{}_ev1.txt".format(i))
        if os.path.isfile(res):
            continue
        im = os.path.join(res_dir, "{}.png".format(i))
        gt = os.path.join(gt_dir, "{}.mat".format(i))
        edges_eval_img(im, gt, out=res, thrs=thrs, max_dist=max_dist, thin=thin, workers=workers)

    cnt_sum_r_p = 0
    ois_cnt_sum_r_p = 0
    scores = np.zeros((len(ids), 5), dtype=np.float32)
    t = np.linspace(1 / (thrs + 1), 1 - 1 / (thrs + 1), thrs)

    for i, name in enumerate(ids):
        name = os.path.splitext(name)[0]
        res = np.loadtxt(os.path.join(eval_dir, "{}_ev1.txt".format(name)), dtype=np.float32)
        t_i, res = res[:, 0], res[:, 1:]
        cnt_sum_r_p += res
        r, p, f = compute_rpf(res)
        k = f.argmax()
        ois_r1, ois_p1, ois_f1, ois_t1 = find_best_rpf(t_i, r, p)
        scores[i, :] = [i + 1, ois_t1, ois_r1, ois_p1, ois_f1]
        ois_cnt_sum_r_p += res[k, :]

    r, p, f = compute_rpf(cnt_sum_r_p)
    ods_r, ods_p, ods_f, ods_t = find_best_rpf(t, r, p)
    ois_r, ois_p, ois_f = compute_rpf(ois_cnt_sum_r_p[None, :])

    k = np.unique(r, return_index=True)[1][::-1]
    r_i, p_i, t_i, f_i, ap = r[k], p[k], t[k], f[k], 0
    if len(r_i) > 1:
        ap = interp1d(r_i, p_i, bounds_error=False, fill_value=0)(np.linspace(0, 1, 101))
        ap = np.sum(ap) / 100.0
    _, o = np.unique(p_i, return_index=True)
    r50 = interp1d(p_i[o], r_i[o], bounds_error=False, fill_value=np.nan)(np.maximum(p_i[o[0]], 0.5))

    bdry = np.array([[ods_t, ods_r, ods_p, ods_f, ois_r.item(), ois_p.item(), ois_f.item(), ap]])
    bdry_thr = np.stack([t_i, r_i, p_i, f_i], axis=0).T
    np.savetxt(os.path.join(eval_dir, "eval_bdry_img.txt"), scores.astype(np.float32), fmt="%.6f")
    np.savetxt(os.path.join(eval_dir, "eval_bdry_thr.txt"), bdry_thr.astype(np.float32), fmt="%.6f")
    np.savetxt(os.path.join(eval_dir, "eval_bdry.txt"), bdry.astype(np.float32), fmt="%.6f")
    print(f"ODS: {ods_f}    OIS: {ois_f.item()}\n")
    if cleanup:
        for f in os.listdir(eval_dir):
            if f.endswith("_ev1.txt"):
                os.remove(os.path.join(eval_dir, f))
        rmtree(res_dir)
