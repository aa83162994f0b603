# -*- coding: utf-8 -*-
"""Astra oznitelik cikarimi: DICOM -> on isleme -> I3ResNet-152 -> 2048 boyutlu GAP.

Kaldigi yerden devam eder: <CALISMA_DIR>/oznitelik/gap/<anahtar>.npy varsa seri atlanir.
Hata veren seriler log_<n>.jsonl'a yazilir ve sonraki kosumda yeniden denenir.
"""
import csv
import glob
import json
import os
import time
from collections import Counter

import numpy as np
import torch

from . import config as C
from . import encoder, hacim, veri


def guvenli(k):
    return k.strip("/").replace("/", "__")


def _dizin(*p):
    return C.calisma("oznitelik", C.varyant(), *p)


class _Seriler(torch.utils.data.Dataset):
    def __init__(self, isler, mod):
        self.isler, self.mod = isler, mod

    def __len__(self):
        return len(self.isler)

    def __getitem__(self, i):
        k, yollar = self.isler[i]
        t0 = time.time()
        try:
            x, bilgi = hacim.hazirla(yollar, self.mod, "cpu")
            bilgi["okuma_sn"] = round(time.time() - t0, 2)
            return k, x, bilgi, None
        except Exception as e:  # noqa: BLE001
            return k, None, None, f"{type(e).__name__}: {e}"


def _ayni(b):
    return b


def _okuyucu_baslat(_):
    torch.set_num_threads(2)


def _isci(sira, cihaz, isler, ayar):
    C.ayarla(**ayar)
    dev = torch.device(cihaz)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    model, _ = encoder.yukle(C.agirlik_yolu(), dev)
    bf16 = bool(C.BF16) and dev.type == "cuda"
    nw = int(C.N_OKUYUCU)
    ek = {}
    if nw:
        # CUDA baslatildiktan sonra fork ile acilan okuyucu surecleri bazi
        # surucu/MIG kurulumlarinda kilitleniyor; spawn bunu onler.
        import multiprocessing as _mp
        ek = {"worker_init_fn": _okuyucu_baslat, "prefetch_factor": 2,
              "multiprocessing_context": _mp.get_context("spawn")}
    dl = torch.utils.data.DataLoader(
        _Seriler(isler, C.ON_ISLEME), batch_size=None, shuffle=False, num_workers=nw,
        collate_fn=_ayni, **ek)
    log = open(_dizin(f"log_{sira}.jsonl"), "a", encoding="utf-8")
    print(f"[{sira}|{cihaz}] govde yuklendi, {len(isler)} seri islenecek (ilk seri birkac saniye surer)", flush=True)
    n_ok = n_hata = 0
    t_bas = time.time()
    for i, (k, x, bilgi, hata) in enumerate(dl):
        kayit = {"anahtar": k, "cihaz": cihaz, "govde": C.GOVDE, "on_isleme": C.ON_ISLEME,
                 "zaman": time.strftime("%Y-%m-%d %H:%M:%S")}
        if hata is None:
            try:
                t0 = time.time()
                with torch.inference_mode(), torch.autocast(dev.type, dtype=torch.bfloat16, enabled=bf16):
                    f5 = model(x.to(dev, non_blocking=True)).float()
                gap = f5.mean(dim=(2, 3, 4))[0].cpu().numpy().astype(np.float32)
                if not np.isfinite(gap).all():
                    raise ValueError("oznitelikte NaN/inf")
                hedef = _dizin("gap", guvenli(k) + ".npy")
                np.save(hedef[:-4] + ".tmp.npy", gap)
                os.replace(hedef[:-4] + ".tmp.npy", hedef)
                if C.KAYDET_5D:
                    torch.save(f5[0].half().cpu(), _dizin("5d", guvenli(k) + ".pt"))
                kayit.update(durum="tamam", gpu_sn=round(time.time() - t0, 2),
                             sekil=list(f5.shape[1:]), **bilgi)
                n_ok += 1
            except Exception as e:  # noqa: BLE001
                hata = f"{type(e).__name__}: {e}"
                if dev.type == "cuda":
                    torch.cuda.empty_cache()
        if hata is not None:
            kayit.update(durum="hata", hata=hata[:500])
            n_hata += 1
        log.write(json.dumps(kayit, ensure_ascii=False) + "\n")
        log.flush()
        if len(isler) <= 20 or (i + 1) % 10 == 0 or i + 1 == len(isler):
            hiz = (time.time() - t_bas) / (i + 1)
            print(f"[{sira}|{cihaz}] {i + 1}/{len(isler)}  tamam {n_ok}  hata {n_hata}  "
                  f"{hiz:.1f} sn/seri  kalan ~{hiz * (len(isler) - i - 1) / 60:.0f} dk", flush=True)
    log.close()


def _cihazlar(gpus):
    if str(gpus).lower() == "cpu" or not torch.cuda.is_available():
        if str(gpus).lower() != "cpu":
            print("UYARI: CUDA yok, CPU kullaniliyor (seri basi dakikalar surer)")
        return ["cpu"]
    return [f"cuda:{int(g)}" for g in str(gpus).split(",") if g.strip()]


def _log_satir():
    n = 0
    for f in glob.glob(_dizin("log_*.jsonl")):
        with open(f, encoding="utf-8") as h:
            n += sum(1 for _ in h)
    return n


def durum():
    """Log dosyalarindan her serinin SON kaydi."""
    son = {}
    for f in sorted(glob.glob(_dizin("log_*.jsonl"))):
        with open(f, encoding="utf-8") as h:
            for s in h:
                try:
                    r = json.loads(s)
                except ValueError:
                    continue
                son[r["anahtar"]] = r
    return son


def _biten():
    d = _dizin("gap")
    if not os.path.isdir(d):
        return set()
    return {f[:-4] for f in os.listdir(d) if f.endswith(".npy") and not f.endswith(".tmp.npy")}


def calistir(gpus="0", limit=None, karistir=False):
    rows = veri.manifest_oku()
    os.makedirs(_dizin("gap"), exist_ok=True)
    if C.KAYDET_5D:
        os.makedirs(_dizin("5d"), exist_ok=True)
    ag = C.agirlik_yolu()
    if not os.path.isfile(ag):
        raise SystemExit(f"govde agirligi bulunamadi ({C.GOVDE}): {ag} (.env: LCA_AGIRLIK_DIR)")
    biten = _biten()
    isler = [(r["anahtar"], r["yollar"]) for r in rows
             if r["n_dcm"] > 0 and guvenli(r["anahtar"]) not in biten]
    if karistir:
        np.random.default_rng(C.TOHUM).shuffle(isler)
    if limit:
        isler = isler[:int(limit)]
    print(f"manifest {len(rows)} seri | tamamlanmis {len(biten)} | bu kosumda {len(isler)}")
    if not isler:
        ozet()
        return
    cihazlar = _cihazlar(gpus)
    print(f"cihaz: {cihazlar} | govde: {C.GOVDE} | on isleme: {C.ON_ISLEME} | bf16: {C.BF16} | okuyucu: {C.N_OKUYUCU}")
    ayar = C.ozet()
    if len(cihazlar) == 1:
        _isci(0, cihazlar[0], isler, ayar)
    else:
        import multiprocessing as mp
        ust = os.path.dirname(C.PAKET_DIR)
        os.environ["PYTHONPATH"] = ust + os.pathsep + os.environ.get("PYTHONPATH", "")
        ctx = mp.get_context("spawn")
        ps = [ctx.Process(target=_isci, args=(i, c, isler[i::len(cihazlar)], ayar))
              for i, c in enumerate(cihazlar)]
        for p in ps:
            p.start()
        # alt sureclerin ciktisi notebook'ta gorunmez; ilerlemeyi loglardan izle
        t_bas, n_bas = time.time(), _log_satir()
        while any(p.is_alive() for p in ps):
            time.sleep(30)
            print(f"  ilerleme: {_log_satir() - n_bas}/{len(isler)}  "
                  f"({(time.time() - t_bas) / 60:.1f} dk)", flush=True)
        for p in ps:
            p.join()
    ozet()


def ozet():
    rows = veri.manifest_oku()
    biten = _biten()
    son = durum()
    hatalar = {k: r for k, r in son.items() if r.get("durum") == "hata" and guvenli(k) not in biten}
    print(f"oznitelik: {len(biten)}/{len(rows)} seri | kalici hata: {len(hatalar)}")
    if hatalar:
        tur = Counter(r["hata"].split(":")[0] for r in hatalar.values())
        for t, n in tur.most_common(5):
            ornek = next(r for r in hatalar.values() if r["hata"].startswith(t))
            print(f"  {n:5d} x {ornek['hata'][:120]}")
    sure = [r["gpu_sn"] for r in son.values() if r.get("durum") == "tamam"]
    oku = [r["okuma_sn"] for r in son.values() if r.get("durum") == "tamam"]
    if sure:
        print(f"  seri basi: okuma {np.median(oku):.1f} sn, GPU {np.median(sure):.2f} sn (medyan)")


def birlestir():
    rows = veri.manifest_oku()
    son = durum()
    keys, X, y, g, s, p, eksik = [], [], [], [], [], [], []
    for r in rows:
        f = _dizin("gap", guvenli(r["anahtar"]) + ".npy")
        if os.path.isfile(f):
            keys.append(r["anahtar"])
            X.append(np.load(f))
            y.append(r["etiket"])
            g.append(r["grup"])
            s.append(r["sybil"])
            p.append(r["pillar"])
        else:
            neden = son.get(r["anahtar"], {}).get("hata") or ("DICOM yok" if not r["n_dcm"] else "cikarilmadi")
            eksik.append([r["anahtar"], r["etiket"], neden])
    if not X:
        raise SystemExit("hic oznitelik yok; once --adim cikar")
    np.savez(C.calisma(f"ozellikler_{C.varyant()}.npz"), anahtar=np.array(keys), X=np.stack(X).astype(np.float32),
             etiket=np.array(y, np.int8), grup=np.array(g), sybil=np.array(s, np.float64),
             pillar=np.array(p, np.float64), on_isleme=np.array(C.ON_ISLEME),
             govde=np.array(C.GOVDE))
    with open(C.calisma(f"eksik_seriler_{C.varyant()}.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["anahtar", "etiket", "neden"])
        w.writerows(eksik)
    y = np.array(y)
    print(f"ozellikler_{C.varyant()}.npz: {len(keys)} seri x {len(X[0])} (etiket 1: {int(y.sum())}, 0: {int((y == 0).sum())}) "
          f"| eksik {len(eksik)} (etiket 1: {sum(e[1] for e in eksik)}) -> eksik_seriler_{C.varyant()}.csv")
