# -*- coding: utf-8 -*-
"""Manifest: anahtar, etiket, hasta grubu, skorlar, DICOM yollari.

Etiket kaynagi iki JSON'dur (LCA_ETIKET_JSON_0 / _1): {anahtar: {"paths": [dicom, ...]}}.
Skorlar LCA_SKOR_JSON'dan okunur; orada yoksa etiket JSON'undaki kayittan denenir.
Ekrana basilan ornek anahtar ve yollarda rakamlar maskelenir.
"""
import csv
import glob
import json
import os
import re
from collections import Counter, defaultdict

import numpy as np

from . import config as C


def _json(yol):
    with open(yol, encoding="utf-8") as f:
        return json.load(f)


def _m(s):
    """Kimlik sizmasin: rakamlari maskele."""
    return re.sub(r"\d", "#", str(s))


def norm(k):
    return str(k).strip().strip("/")


def grup(k):
    p = norm(k).split("/")
    klasor = p[-2] if len(p) >= 2 else p[0]
    return klasor.split("_")[0] if C.HASTA_GRUP == "ilk_parca" else klasor


def _deger(kayit, alan, yil):
    if not isinstance(kayit, dict):
        return float("nan")
    v = kayit.get(alan)
    while isinstance(v, (list, tuple)) and v and isinstance(v[0], (list, tuple)):
        v = v[0]
    if isinstance(v, (list, tuple)):
        v = v[yil] if v else None
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _yollar(k, kayit):
    p = kayit.get("paths") if isinstance(kayit, dict) else None
    if p:
        return [str(x) for x in p]
    if not C.DICOM_KOK:
        return []
    d = os.path.join(C.DICOM_KOK, k)
    return sorted(glob.glob(os.path.join(d, "*.dcm"))) or sorted(
        x for x in glob.glob(os.path.join(d, "*")) if os.path.isfile(x))


def _kohort():
    s = set()
    for yol in C.KOHORT_CSV.values():
        with open(yol, encoding="utf-8-sig", newline="") as f:
            ilk = f.readline()
            f.seek(0)
            ayrac = ";" if ilk.count(";") > ilk.count(",") else ","
            for r in csv.DictReader(f, delimiter=ayrac):
                if r.get("pid"):
                    s.add(norm(r["pid"]))
    return s


def _etiketler():
    if sorted(C.ETIKET_JSON) != [0, 1]:
        raise SystemExit(".env: LCA_ETIKET_JSON_0 ve LCA_ETIKET_JSON_1 tanimli olmali")
    etiket, kayit, cakisma = {}, {}, set()
    for lab, yol in C.ETIKET_JSON.items():
        for k, e in _json(yol).items():
            kn = norm(k)
            if kn in etiket and etiket[kn] != int(lab):
                cakisma.add(kn)
            etiket[kn] = int(lab)
            kayit[kn] = e
    for kn in cakisma:
        etiket.pop(kn)
    return etiket, kayit, cakisma


def manifest_kur(yaz=True):
    etiket, kayit, cakisma = _etiketler()
    skor = {}
    if C.SKOR_JSON and os.path.isfile(C.SKOR_JSON):
        skor = {norm(k): v for k, v in _json(C.SKOR_JSON).items()}
    else:
        print("UYARI: skor dosyasi yok (LCA_SKOR_JSON)")
    kohort = _kohort() if C.KOHORT_FILTRE else None

    rows, eksik_skor = [], 0
    for k in sorted(etiket):
        if kohort is not None and k not in kohort:
            continue
        e = kayit[k]
        sy = _deger(skor.get(k), C.SYBIL_ALAN, C.SYBIL_YIL)
        if np.isnan(sy):
            sy = _deger(e, C.SYBIL_ALAN, C.SYBIL_YIL)
        pi = _deger(skor.get(k), C.PILLAR_ALAN, C.PILLAR_YIL)
        if np.isnan(pi):
            pi = _deger(e, C.PILLAR_ALAN, C.PILLAR_YIL)
        if C.SKOR_ZORUNLU and np.isnan(sy):
            eksik_skor += 1
            continue
        yol = _yollar(k, e)
        rows.append({"anahtar": k, "etiket": etiket[k], "grup": grup(k), "n_dcm": len(yol),
                     "sybil": sy, "pillar": pi, "yollar": yol})

    # ---------------------------------------------------------------- ozet
    g_lab = defaultdict(set)
    for r in rows:
        g_lab[r["grup"]].add(r["etiket"])
    print(f"seri: {len(rows)}  (etiket 1: {sum(r['etiket'] for r in rows)}, "
          f"etiket 0: {sum(1 - r['etiket'] for r in rows)})")
    print(f"hasta grubu: {len(g_lab)}  | iki etikette birden gorunen grup: "
          f"{sum(1 for v in g_lab.values() if len(v) == 2)}")
    print(f"iki JSON'da da olup etiketi celisen (atildi): {len(cakisma)}")
    if C.SKOR_ZORUNLU:
        print(f"skoru olmadigi icin atilan: {eksik_skor} (LCA_SKOR_ZORUNLU=0 ile hepsi alinir)")
    if kohort is not None:
        print(f"kohort filtresi: {len(kohort)} pid, kalan {len(rows)} seri")
    print(f"Sybil skoru eksik: {sum(np.isnan(r['sybil']) for r in rows)}  | "
          f"Pillar skoru eksik: {sum(np.isnan(r['pillar']) for r in rows)}  | "
          f"DICOM yolu bulunamayan: {sum(r['n_dcm'] == 0 for r in rows)}")

    if yaz:
        os.makedirs(C.calisma(), exist_ok=True)
        with open(C.calisma("manifest.json"), "w", encoding="utf-8") as f:
            json.dump(rows, f)
        with open(C.calisma("manifest.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["anahtar", "etiket", "grup", "n_dcm", "sybil", "pillar"])
            for r in rows:
                w.writerow([r["anahtar"], r["etiket"], r["grup"], r["n_dcm"], r["sybil"], r["pillar"]])
        print("yazildi: manifest.csv / manifest.json (calisma klasoru)")
    return rows


def manifest_oku():
    with open(C.calisma("manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def incele(n=2):
    """Veri kaynaklarinin yapisini gosterir (ilk kosumdan once). Kimlikler maskelenir."""
    if not C.ETIKET_JSON:
        print("\n.env: LCA_ETIKET_JSON_0 / _1 tanimli degil")
    for lab, yol in sorted(C.ETIKET_JSON.items()):
        print(f"\n[etiket {lab}] {os.path.basename(yol)}")
        if not os.path.isfile(yol):
            print("  DOSYA YOK")
            continue
        d = _json(yol)
        print(f"  kayit: {len(d)}  | tip: {type(d).__name__}")
        for k in list(d)[:n]:
            e = d[k]
            alanlar = {a: (type(v).__name__ + (f"[{len(v)}]" if isinstance(v, (list, dict)) else ""))
                       for a, v in e.items()} if isinstance(e, dict) else type(e).__name__
            print(f"  {_m(k)!r}: {alanlar}")
            if isinstance(e, dict) and e.get("paths"):
                print(f"    ilk yol (maskeli): {_m(e['paths'][0])}")
    etiket_var = sorted(C.ETIKET_JSON) == [0, 1] and all(os.path.isfile(p) for p in C.ETIKET_JSON.values())
    yol = C.SKOR_JSON or ""
    print(f"\n[skor] {os.path.basename(yol) or '(tanimsiz)'}")
    if yol and os.path.isfile(yol):
        s = _json(yol)
        print(f"  kayit: {len(s)}")
        for k in list(s)[:n]:
            e = s[k]
            if isinstance(e, dict):
                print(f"  {_m(k)!r}: " + ", ".join(
                    f"{a}={v if not isinstance(v, list) else [round(x, 4) if isinstance(x, float) else x for x in v][:6]}"
                    for a, v in e.items()))
        if etiket_var:
            etiket, _, _ = _etiketler()
            sk = {norm(k) for k in s}
            ortak = len(sk & set(etiket))
            print(f"  etiket anahtarlariyla ortak: {ortak} / {len(etiket)}")
            if ortak == 0:
                print("  !! anahtar bicimleri uyusmuyor, ornekler (maskeli):",
                      [_m(x) for x in list(etiket)[:2]], "vs", [_m(x) for x in list(sk)[:2]])
    else:
        print("  DOSYA YOK")
    if not etiket_var:
        print("\netiket JSON'lari bulunamadi; .env'deki LCA_ETIKET_JSON_0 / _1 yollarini kontrol edin")
        return
    etiket, _, _ = _etiketler()
    klasor = Counter(norm(k).split("/")[-2] if "/" in norm(k) else norm(k) for k in etiket)
    ilk = Counter(k.split("_")[0] for k in klasor)
    print(f"\nklasor sayisi: {len(klasor)}  | '_' oncesi ilk parca sayisi: {len(ilk)}  "
          f"(fark varsa ayni kisi birden fazla klasorde olabilir)")
