# -*- coding: utf-8 -*-
"""DICOM serisi -> Astra girisi [1, 1, 224, 224, 160].

Yalnizca pydicom + numpy + torch. monai / nibabel / SimpleITK GEREKMEZ.

Iki on isleme modu (Astra deposu, infer_one_ct.py::build_preprocess):

  "chest"  (varsayilan; Astra'nin gogus BT icin kullandigi zincir)
      Orientation RAS -> CropForeground(HU > -1000) -> Resize 224x224x160
      (mode="area") -> ScaleIntensityRange(-1000..200 -> 0..1, clip)

  "merlin" (Merlin'in ozgun zinciri; Astra'da karin icin)
      Orientation RAS -> Spacing 1.5x1.5x3 mm (trilineer) ->
      ScaleIntensityRange(-1000..1000 -> 0..1, clip) ->
      SpatialPad 224x224x160 (simetrik, 0) -> CenterCrop 224x224x160

Her iki mod monai 1.3.0 ile karsilastirilarak dogrulanmistir.
"""
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F

HEDEF = (224, 224, 160)


def _f(v, d):
    try:
        return float(v)
    except Exception:
        return d


def dicom_oku(paths, min_kesit=10):
    """Seriyi okur. Donus: hu [K, I, J] float32, eksen yonleri (LPS), aralik (dk, di, dj), bilgi."""
    import pydicom

    kay = []
    for p in paths:
        try:
            ds = pydicom.dcmread(p, force=True)
        except Exception:
            continue
        if "PixelData" not in ds:
            continue
        iop = getattr(ds, "ImageOrientationPatient", None)
        ipp = getattr(ds, "ImagePositionPatient", None)
        if iop is None or ipp is None or len(iop) != 6 or len(ipp) != 3:
            continue
        tip = [str(x).upper() for x in (getattr(ds, "ImageType", None) or [])]
        if "LOCALIZER" in tip:
            continue
        iop = np.array([float(x) for x in iop])
        kay.append((ds, iop, np.array([float(x) for x in ipp])))
    if not kay:
        raise ValueError("okunabilir kesit yok")

    # Cogunluk yonelim + boyut: seriye karismis koronal/scout kareler atilir
    imza = [(tuple(np.round(i, 3)), int(d.Rows), int(d.Columns)) for d, i, _ in kay]
    en_cok = Counter(imza).most_common(1)[0][0]
    atilan = sum(1 for s in imza if s != en_cok)
    kay = [k for k, s in zip(kay, imza) if s == en_cok]
    if len(kay) < min_kesit:
        raise ValueError(f"yetersiz kesit: {len(kay)}")

    iop = kay[0][1]
    r, c = iop[:3], iop[3:]
    n = np.cross(r, c)
    konum = np.array([ipp @ n for _, _, ipp in kay])
    sira = np.argsort(konum, kind="stable")
    konum = konum[sira]
    kay = [kay[i] for i in sira]
    tut = np.concatenate([[True], np.diff(konum) > 1e-3])     # ayni konumda tekrar
    kopya = int((~tut).sum())
    kay = [k for k, t in zip(kay, tut) if t]
    konum = konum[tut]
    dk = float(np.median(np.diff(konum)))
    if not dk > 0:
        raise ValueError("kesit araligi hesaplanamadi")

    ps = getattr(kay[0][0], "PixelSpacing", None) or [1.0, 1.0]
    di, dj = float(ps[0]), float(ps[1])      # satir araligi, sutun araligi

    hu = np.empty((len(kay), en_cok[1], en_cok[2]), np.float32)
    for z, (ds, _, _) in enumerate(kay):
        a = ds.pixel_array.astype(np.float32)
        hu[z] = a * _f(getattr(ds, "RescaleSlope", 1), 1.0) + _f(getattr(ds, "RescaleIntercept", 0), 0.0)

    # numpy eksenlerinin hasta (LPS) yonleri: 0 = kesit (n), 1 = satir (c), 2 = sutun (r)
    yon = np.stack([n, c, r])
    bilgi = {"n_kesit": len(kay), "atilan_kare": atilan, "kopya_kesit": kopya,
             "aralik_mm": [dk, di, dj], "boyut": list(hu.shape)}
    return hu, yon, (dk, di, dj), bilgi


def ras_yap(hu, yon, aralik):
    """monai Orientationd(axcodes="RAS") karsiligi. Donus: hacim [X(R), Y(A), Z(S)], aralik."""
    ras = yon * np.array([-1.0, -1.0, 1.0])          # LPS -> RAS
    dunya = np.abs(ras).argmax(axis=1)                # her numpy ekseni hangi dunya eksenine
    if len(set(dunya.tolist())) != 3:
        raise ValueError(f"yonelim cozulemedi: {yon.tolist()}")
    isaret = np.sign(ras[np.arange(3), dunya])
    perm = [int(np.where(dunya == w)[0][0]) for w in range(3)]
    v = np.transpose(hu, perm)
    for w in range(3):
        if isaret[perm[w]] < 0:
            v = np.flip(v, axis=w)
    return np.ascontiguousarray(v), tuple(float(aralik[perm[w]]) for w in range(3))


def _on_plan_kirp(t, esik=-1000.0):
    m = t > esik
    if not bool(m.any()):
        return t
    sl = []
    for ax in range(3):
        diger = tuple(d for d in range(3) if d != ax)
        idx = torch.nonzero(m.any(dim=diger)).flatten()
        sl.append(slice(int(idx[0]), int(idx[-1]) + 1))
    return t[sl[0], sl[1], sl[2]]


def _lineer_eksen(t, ax, n_out, oran):
    """Tek eksende lineer yeniden ornekleme; yeni voksel 0 = eski voksel 0 merkezi, kenar tasmasi 'border'."""
    n = t.shape[ax]
    pos = (torch.arange(n_out, device=t.device, dtype=torch.float64) * oran).clamp(0, n - 1)
    i0 = pos.floor().long()
    i1 = (i0 + 1).clamp(max=n - 1)
    w = (pos - i0.double()).float()
    sekil = [1, 1, 1]
    sekil[ax] = n_out
    w = w.view(sekil)
    return t.index_select(ax, i0) * (1 - w) + t.index_select(ax, i1) * w


def _pad_kirp(t, hedef):
    pads = []
    for ax in (2, 1, 0):                              # F.pad son eksenden baslar
        eks = max(hedef[ax] - t.shape[ax], 0)
        pads += [eks // 2, eks - eks // 2]
    if any(pads):
        t = F.pad(t, pads, mode="constant", value=0.0)
    sl = []
    for ax in range(3):
        bas = t.shape[ax] // 2 - hedef[ax] // 2
        sl.append(slice(bas, bas + hedef[ax]))
    return t[sl[0], sl[1], sl[2]]


def on_isle(v, aralik, mod="chest", device="cpu"):
    """v: RAS hacmi [X, Y, Z] HU. Donus: tensor [1, 1, 224, 224, 160] float32, 0-1 olcekli."""
    t = torch.as_tensor(v, dtype=torch.float32, device=device)
    if mod == "chest":
        t = _on_plan_kirp(t, -1000.0)
        t = F.interpolate(t[None, None], size=HEDEF, mode="area")[0, 0]
        t = ((t + 1000.0) / 1200.0).clamp(0.0, 1.0)
    elif mod == "merlin":
        yeni = (1.5, 1.5, 3.0)
        for ax in range(3):
            n_out = int(np.round((t.shape[ax] - 1) * aralik[ax] / yeni[ax] + 1.0))
            t = _lineer_eksen(t, ax, n_out, yeni[ax] / aralik[ax])
        t = ((t + 1000.0) / 2000.0).clamp(0.0, 1.0)
        t = _pad_kirp(t, HEDEF)
    else:
        raise ValueError(f"bilinmeyen on isleme modu: {mod}")
    return t[None, None].contiguous()


def hazirla(paths, mod="chest", device="cpu"):
    """DICOM yollari -> (tensor [1,1,224,224,160], bilgi)."""
    hu, yon, aralik, bilgi = dicom_oku(paths)
    v, ar = ras_yap(hu, yon, aralik)
    bilgi["ras_boyut"] = list(v.shape)
    bilgi["ras_aralik_mm"] = list(ar)
    return on_isle(v, ar, mod, device), bilgi
