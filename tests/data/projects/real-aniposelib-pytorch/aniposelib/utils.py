import cv2
import numpy as np
from scipy.cluster.hierarchy import linkage, fcluster
from scipy.cluster.vq import whiten
from scipy.linalg import inv
from collections import defaultdict, Counter
import queue



def make_M(rvec, tvec):
    out = np.zeros((4,4))
    rotmat, _ = cv2.Rodrigues(rvec)
    out[:3,:3] = rotmat
    out[:3, 3] = tvec.flatten()
    out[3, 3] = 1
    return out

def get_rtvec(M):
    rvec = cv2.Rodrigues(M[:3, :3])[0].flatten()
    tvec = M[:3, 3].flatten()
    return rvec, tvec

def _whiten_safe(vals):
    """scipy's whiten, but columns with zero (or non-finite) spread are left unscaled
    instead of becoming inf/NaN (e.g. identical transforms from VGGT)."""
    vals = np.asarray(vals, dtype='float64')
    std = np.std(vals, axis=0)
    std = np.where(np.isfinite(std) & (std > 1e-12), std, 1.0)
    return vals / std


def get_most_common(vals):
    """Boolean mask of the largest cluster of rows of vals (ward linkage on whitened
    columns). Fewer than 3 rows, or rows that are all identical, are all kept."""
    vals = np.asarray(vals, dtype='float64')
    n = len(vals)
    if n < 3:
        return np.ones(n, dtype=bool)
    w = _whiten_safe(vals)
    if np.allclose(w, w[0]):
        return np.ones(n, dtype=bool)
    Z = linkage(w, 'ward')
    n_clust = max(n/10, 3)
    clusts = fcluster(Z, t=n_clust, criterion='maxclust')
    cc = Counter(clusts[clusts >= 0])
    most = cc.most_common(n=1)
    top = most[0][0]
    good = clusts == top
    return good

def select_matrices(Ms):
    """The largest cluster of similar 4x4 transforms. Empty input raises ValueError;
    one transform (or identical ones) are returned as they are."""
    Ms = np.array(Ms)
    if len(Ms) == 0:
        raise ValueError("select_matrices: no transforms given (no common board detections "
                         "between this camera pair?)")
    if len(Ms) < 2:
        return Ms
    rvecs = [cv2.Rodrigues(M[:3,:3])[0][:, 0] for M in Ms]
    tvecs = np.array([M[:3, 3] for M in Ms])
    best = get_most_common(np.hstack([rvecs, tvecs]))
    Ms_best = Ms[best]
    return Ms_best


def mean_transform(M_list):
    rvecs = [cv2.Rodrigues(M[:3,:3])[0][:, 0] for M in M_list]
    tvecs = [M[:3, 3] for M in M_list]

    rvec = np.mean(rvecs, axis=0)
    tvec = np.mean(tvecs, axis=0)

    return make_M(rvec, tvec)


def median_transform(M_list):
    """Elementwise median of the rotation vectors and translations (a robust seed)."""
    rvecs = [cv2.Rodrigues(np.asarray(M)[:3,:3])[0][:, 0] for M in M_list]
    tvecs = [np.asarray(M)[:3, 3] for M in M_list]
    return make_M(np.median(rvecs, axis=0), np.median(tvecs, axis=0))


def mean_transform_robust(M_list, approx=None, error=0.3):
    """Mean of the transforms whose rotation is within `error` (max abs difference of the
    rotation matrices) of `approx`. approx=None uses the median transform as the seed
    (was: no filtering). If nothing is within `error`, the transform closest to the seed
    is returned rather than a NaN mean."""
    M_list = [np.asarray(M) for M in M_list]
    if len(M_list) == 0:
        raise ValueError("mean_transform_robust: no transforms given")
    if len(M_list) == 1:
        return mean_transform(M_list)
    if approx is None:
        approx = median_transform(M_list)
    errs = [np.max(np.abs(M[:3,:3] - approx[:3,:3])) for M in M_list]
    M_list_robust = [M for M, m in zip(M_list, errs) if m < error]
    if len(M_list_robust) == 0:
        M_list_robust = [M_list[int(np.argmin(errs))]]
    return mean_transform(M_list_robust)


def get_transform(rtvecs, left, right):
    L = []
    for dix in range(rtvecs.shape[1]):
        d = rtvecs[:, dix]
        good = ~np.isnan(d[:, 0])

        if good[left] and good[right]:
            M_left = make_M(d[left, 0:3], d[left, 3:6])
            M_right = make_M(d[right, 0:3], d[right, 3:6])
            M = np.matmul(M_left, inv(M_right))
            L.append(M)
    L_best = select_matrices(L)
    M_mean = mean_transform(L_best)
    M_mean = mean_transform_robust(L, M_mean, error=0.5)
    # M_mean = mean_transform_robust(L, M_mean, error=0.2)
    # M_mean = mean_transform_robust(L, M_mean, error=0.1)
    return M_mean


def get_connections(xs, cam_names=None, both=True):
    n_cams = xs.shape[0]
    n_points = xs.shape[1]

    if cam_names is None:
        cam_names = np.arange(n_cams)

    connections = defaultdict(int)

    for rnum in range(n_points):
        ixs = np.where(~np.isnan(xs[:, rnum, 0]))[0]
        keys = [cam_names[ix] for ix in ixs]
        for i in range(len(keys)):
            for j in range(i+1, len(keys)):
                a = keys[i]
                b = keys[j]
                connections[(a,b)] += 1
                if both:
                    connections[(b,a)] += 1

    return connections


def get_calibration_graph(rtvecs, cam_names=None):
    n_cams = rtvecs.shape[0]
    n_points = rtvecs.shape[1]

    if cam_names is None:
        cam_names = np.arange(n_cams)

    connections = get_connections(rtvecs, np.arange(n_cams))

    components = dict(zip(np.arange(n_cams), range(n_cams)))
    edges = set(connections.items())

    graph = defaultdict(list)

    for edgenum in range(n_cams-1):
        if len(edges) == 0:
            component_names = dict()
            for k,v in list(components.items()):
                component_names[cam_names[k]] = v
            raise ValueError("""
Could not build calibration graph.
Some group of cameras could not be paired by simultaneous calibration board detections.
Check which cameras have different group numbers below to see the missing edges.
{}""".format(component_names))

        (a, b), weight = max(edges, key=lambda x: x[1])
        graph[a].append(b)
        graph[b].append(a)

        match = components[a]
        replace = components[b]
        for k, v in components.items():
            if match == v:
                components[k] = replace

        for e in edges.copy():
            (a,b), w = e
            if components[a] == components[b]:
                edges.remove(e)

    return graph

def find_calibration_pairs(graph, source=None):
    pairs = []
    explored = set()

    if source is None:
        source = sorted(graph.keys())[0]

    q = queue.deque()
    q.append(source)

    while len(q) > 0:
        item = q.pop()
        explored.add(item)

        for new in graph[item]:
            if new not in explored:
                q.append(new)
                pairs.append( (item, new) )
    return pairs

def compute_camera_matrices(rtvecs, pairs):
    extrinsics = dict()
    source = pairs[0][0]
    extrinsics[source] = np.identity(4)
    for (a,b) in pairs:
        ext = get_transform(rtvecs, b, a)
        extrinsics[b] = np.matmul(ext, extrinsics[a])
    return extrinsics

def get_initial_extrinsics(rtvecs, cam_names=None, disconnected='raise'):
    """Initial (rvecs, tvecs) [C,3] from per-camera board poses ``rtvecs [C,F,6]``.

    ``disconnected='raise'`` (default, aniposelib <= 0.9): ValueError when some cameras never
    share a board view with the others. ``'components'``: delegate to
    :func:`aniposelib.init.board.initial_extrinsics` (one gauge per connected component, robust
    fallback per edge; a warning lists the components). For the full report use that function."""
    if disconnected not in ('raise', 'components'):
        raise ValueError("disconnected must be 'raise' or 'components'")
    if disconnected == 'components':
        import warnings
        from aniposelib.init.board import initial_extrinsics
        res = initial_extrinsics(rtvecs, cam_names)
        if len(res.components) > 1:
            warnings.warn('board graph has {} disconnected components {}; each has its own '
                          'gauge'.format(len(res.components), res.components))
        return np.asarray(res.rvecs), np.asarray(res.tvecs)
    graph = get_calibration_graph(rtvecs, cam_names)
    pairs = find_calibration_pairs(graph, source=0)
    extrinsics = compute_camera_matrices(rtvecs, pairs)

    n_cams = rtvecs.shape[0]
    rvecs = []
    tvecs = []
    for cnum in range(n_cams):
        rvec, tvec = get_rtvec(extrinsics[cnum])
        rvecs.append(rvec)
        tvecs.append(tvec)
    rvecs = np.array(rvecs)
    tvecs = np.array(tvecs)
    return rvecs, tvecs


## convenience function to load a set of DeepLabCut pose-2d files
def load_pose2d_fnames(fname_dict, offsets_dict=None, cam_names=None):
    import pandas as pd
    if cam_names is None:
        cam_names = sorted(fname_dict.keys())
    pose_names = [fname_dict[cname] for cname in cam_names]

    if offsets_dict is None:
        offsets_dict = dict([(cname, (0,0)) for cname in cam_names])

    datas = []
    for ix_cam, (cam_name, pose_name) in \
            enumerate(zip(cam_names, pose_names)):
        dlabs = pd.read_hdf(pose_name)
        if len(dlabs.columns.levels) > 2:
            scorer = dlabs.columns.levels[0][0]
            dlabs = dlabs.loc[:, scorer]

        bp_index = dlabs.columns.names.index('bodyparts')
        joint_names = list(dlabs.columns.get_level_values(bp_index).unique())
        dx = offsets_dict[cam_name][0]
        dy = offsets_dict[cam_name][1]

        for joint in joint_names:
            dlabs.loc[:, (joint, 'x')] += dx
            dlabs.loc[:, (joint, 'y')] += dy

        datas.append(dlabs)

    n_cams = len(cam_names)
    n_joints = len(joint_names)
    n_frames = min([d.shape[0] for d in datas])

    # frame, camera, bodypart, xy
    points = np.full((n_cams, n_frames, n_joints, 2), np.nan, 'float')
    scores = np.full((n_cams, n_frames, n_joints), np.zeros(1), 'float')

    for cam_ix, dlabs in enumerate(datas):
        for joint_ix, joint_name in enumerate(joint_names):
            try:
                points[cam_ix, :, joint_ix] = np.array(dlabs.loc[:, (joint_name, ('x', 'y'))])[:n_frames]
                scores[cam_ix, :, joint_ix] = np.array(dlabs.loc[:, (joint_name, ('likelihood'))])[:n_frames].ravel()
            except KeyError:
                pass

    return {
        'cam_names': cam_names,
        'points': points,
        'scores': scores,
        'bodyparts': joint_names
    }

