# -*- coding: utf-8 -*-
"""Degerlendirme + nihai modeller.

BOLUM A -- tum kohort (etiket 1 / 0):
    sybil, pillar (ham skor, model yok) | goruntu modeli | goruntu+sybil | goruntu+pillar
BOLUM B -- Sybil'in dusuk risk kohortu (skor < esik): etiket 1 ve 0 ayrilabiliyor mu?
    sybil kohort ici | pillar | goruntu modeli | goruntu+sybil
    + etiket karistirmali null, hasta duzeyi bootstrap DeltaAUC, butce tablosu

Her yapilandirma ayni hasta duzeyli K katta, kat disi (OOF) tahminlerle olculur.
Model: standartlastirma -> PCA -> L2 lojistik (dengeli).
Birlesimde iki bicim raporlanir:
    "tek PCA"        : [oznitelik + skor] birlikte PCA'ya girer
    "skor PCA disi"  : PCA yalnizca oznitelige uygulanir, skor bilesenlerin yanina eklenir
Nihai modeller tum veriye oturtulup <CALISMA_DIR>/modeller/<varyant>/ altina .npz yazilir.
"""
import csv
import os
import sys
import time
from collections import defaultdict

import numpy as np

from . import config as C
from .model import Hat, ap, auc, spearman

_G = "oznitelik"   # tablolarda goruntu modelinin adi (govde: merlin / astra)


def _a(s):
    return s.replace("astra", _G)


class _Tee:
    def __init__(self, yol):
        self.f = open(yol, "w", encoding="utf-8")
        self.o = sys.stdout

    def write(self, s):
        self.o.write(s)
        self.f.write(s)

    def flush(self):
        self.o.flush()
        self.f.flush()


def veri_yukle(yol=None):
    d = np.load(yol or C.calisma(f"ozellikler_{C.varyant()}.npz"), allow_pickle=False)
    return {k: d[k] for k in d.files}


def katlar(grup, y, k=None, tohum=None):
    """Hasta duzeyinde katmanli k-kat; ayni hasta tek katta."""
    k = k or C.K_KAT
    rng = np.random.default_rng(C.TOHUM if tohum is None else tohum)
    lab = defaultdict(int)
    for p, v in zip(grup, y):
        lab[p] = max(lab[p], int(v))
    pos = sorted(p for p, v in lab.items() if v == 1)
    neg = sorted(p for p, v in lab.items() if v == 0)
    rng.shuffle(pos)
    rng.shuffle(neg)
    return [np.isin(grup, list(set(pos[i::k]) | set(neg[i::k]))) for i in range(k)]


def oof(X, y, kat, ek=0):
    s = np.full(len(y), np.nan)
    for te in kat:
        tr = ~te
        if y[tr].sum() < 2 or (y[tr] == 0).sum() < 2:
            continue
        s[te] = Hat(C.PCA_BOYUT, C.LR_C, ek=ek).fit(X[tr], y[tr]).skor(X[te])
    return s


def kat_auc(y, s, kat):
    v = [auc(y[te], s[te]) for te in kat
         if 0 < y[te].sum() < te.sum() and not np.isnan(s[te]).any()]
    return (float(np.mean(v)), float(np.std(v))) if v else (float("nan"), float("nan"))


def boot(y, a, grup, b=None):
    """AUC(a) [- AUC(b)] icin hasta duzeyi bootstrap: ort, %2.5, %97.5, P(<=0)."""
    rng = np.random.default_rng(C.TOHUM)
    ug = np.array(sorted(set(grup.tolist())))
    idx = {g: np.where(grup == g)[0] for g in ug}
    v = []
    for _ in range(C.N_BOOT):
        ii = np.concatenate([idx[g] for g in rng.choice(ug, len(ug), replace=True)])
        yy = y[ii]
        if yy.min() == yy.max():
            continue
        v.append(auc(yy, a[ii]) - (auc(yy, b[ii]) if b is not None else 0.0))
    v = np.array(v)
    if v.size == 0:
        n = float("nan")
        return n, n, n, n
    return float(v.mean()), float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5)), float((v <= 0).mean())


def karistir(X, y, grup, ek=0):
    """Hasta duzeyinde etiket karistirma; her tekrarda kat ortalamasi AUC."""
    ps = sorted(set(grup.tolist()))
    lab = defaultdict(int)
    for g, v in zip(grup, y):
        lab[g] = max(lab[g], int(v))
    taban = np.array([lab[p] for p in ps])
    out = []
    for i in range(C.N_KARISTIRMA):
        v = taban.copy()
        np.random.default_rng(i).shuffle(v)
        m = dict(zip(ps, v))
        yy = np.array([m[g] for g in grup])
        kk = katlar(grup, yy)
        out.append(kat_auc(yy, oof(X, yy, kk, ek), kk)[0])
    return np.array(out)


def butce(y, skorlar, ks=(25, 50, 100, 200, 300)):
    """En yuksek k seriyi isaretlesek kac FN yakalanir -- her siralama icin."""
    rows = []
    for k in ks:
        if k >= len(y):
            break
        r = {"k": k, "rastgele_beklenen": round(k * float(y.mean()), 1)}
        for ad, s in skorlar.items():
            r[ad] = int(y[np.argsort(-s, kind="stable")[:k]].sum())
        rows.append(r)
    return rows


def _satir(rows, bolum, esik, ad, y, s, kat, g):
    ad = _a(ad)
    m, sd = kat_auc(y, s, kat)
    _, lo, hi, _ = boot(y, s, g)
    r = {"bolum": bolum, "esik": esik, "yapilandirma": ad, "n_pos": int(y.sum()),
         "n_neg": int((y == 0).sum()), "kat_auc": round(m, 4), "kat_std": round(sd, 4),
         "havuz_auc": round(auc(y, s), 4), "ga_alt": round(lo, 4), "ga_ust": round(hi, 4),
         "ap": round(ap(y, s), 4)}
    rows.append(r)
    print(f"  {ad:30s} {m:.4f} +/- {sd:.3f}   {r['havuz_auc']:.4f}  [{lo:.3f}, {hi:.3f}]   {r['ap']:.4f}")
    return r


def _baslik():
    print(f"  {'yapilandirma':30s} {'kat AUC':>15s}   {'havuz AUC [%95 GA]':>24s}   {'AP':>6s}")
    print("  " + "-" * 84)


def _fark(farklar, bolum, esik, a_ad, b_ad, y, a, b, g):
    a_ad, b_ad = _a(a_ad), _a(b_ad)
    mu, lo, hi, p = boot(y, a, g, b)
    karar = "ANLAMLI" if lo > 0 else ("ANLAMLI (ters yonde)" if hi < 0 else "anlamli degil")
    farklar.append({"bolum": bolum, "esik": esik, "fark": f"{a_ad} - {b_ad}", "ort": round(mu, 4),
                    "ga_alt": round(lo, 4), "ga_ust": round(hi, 4), "p_fark_le0": round(p, 4),
                    "karar": karar})
    print(f"  {a_ad:>30s} - {b_ad:<18s}: {mu:+.4f}  %95 GA [{lo:+.4f}, {hi:+.4f}]  "
          f"P(fark<=0)={p:.3f}  -> {karar}")


def _csv(yol, rows):
    if not rows:
        return
    alan = list(dict.fromkeys(k for r in rows for k in r))
    with open(yol, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=alan)
        w.writeheader()
        w.writerows(rows)


def _oof_yaz(yol, keys, y, g, sy, pi, skorlar):
    rows = []
    for i in range(len(y)):
        r = {"anahtar": keys[i], "etiket": int(y[i]), "grup": g[i], "sybil": sy[i], "pillar": pi[i]}
        r.update({_a(k): float(v[i]) for k, v in skorlar.items()})
        rows.append(r)
    _csv(yol, rows)


def _nihai(yol, X, y, ek, meta):
    Hat(C.PCA_BOYUT, C.LR_C, ek=ek).fit(X, y).kaydet(yol, meta)


def egit():
    son, mod = C.calisma("sonuclar", C.varyant()), C.calisma("modeller", C.varyant())
    os.makedirs(son, exist_ok=True)
    os.makedirs(mod, exist_ok=True)
    eski = sys.stdout
    sys.stdout = _Tee(os.path.join(son, "egit_log.txt"))
    try:
        _egit(son, mod)
    finally:
        sys.stdout.f.close()
        sys.stdout = eski


def _egit(son, mod):
    global _G
    t0 = time.time()
    d = veri_yukle()
    X = d["X"].astype(np.float64)
    y = d["etiket"].astype(int)
    g = d["grup"].astype(str)
    sy = d["sybil"].astype(np.float64)
    pi = d["pillar"].astype(np.float64)
    keys = d["anahtar"].astype(str)
    on = str(d["on_isleme"]) if "on_isleme" in d else "?"
    gv = str(d["govde"]) if "govde" in d else "?"
    _G = gv if gv not in ("?", "") else "oznitelik"
    print(f"egitim |{time.strftime('%Y-%m-%d %H:%M')} | govde: {gv} | on isleme: {on}")
    print(f"veri: {len(y)} seri, {len(set(g.tolist()))} hasta grubu | etiket 1: {int(y.sum())}, 0: {int((y == 0).sum())}")
    print(f"model: PCA-{C.PCA_BOYUT} + lojistik C={C.LR_C} (dengeli) | {C.K_KAT} kat, hasta duzeyi | "
          f"null {C.N_KARISTIRMA}x | bootstrap {C.N_BOOT}x")

    n1, n0 = int((y == 1).sum()), int((y == 0).sum())
    if min(n1, n0) < 2 * C.K_KAT:
        print(f"\nYETERSIZ VERI: etiket 1 = {n1}, etiket 0 = {n0}. Egitim icin her iki etiketten "
              f"en az {2 * C.K_KAT} seri gerekiyor ({C.K_KAT} katli capraz dogrulama).")
        print("Daha fazla seri cikarin (ornegin: --step cikar --limit 600 --karistir) ve tekrar deneyin.")
        return

    var_p = bool(np.isfinite(pi).mean() >= 0.9)
    if not var_p:
        print(f"UYARI: Pillar skoru serilerin yalnizca %{100 * np.isfinite(pi).mean():.0f}'inde var; "
              f"Pillar yapilandirmalari atlandi")
    m = np.isfinite(sy) & (np.isfinite(pi) if var_p else True)
    if (~m).sum():
        print(f"skoru eksik oldugu icin disarida kalan: {int((~m).sum())} seri")

    rows, farklar, nuller, butceler = [], [], [], []

    # ============================================================ A) tum kohort
    Xa, ya, ga, sa, pa, ka = X[m], y[m], g[m], sy[m], pi[m], keys[m]
    kat = katlar(ga, ya)
    print(f"\n{'=' * 88}\nA) TUM KOHORT -- kanserli {int(ya.sum())} / kansersiz {int((ya == 0).sum())} seri\n{'=' * 88}")
    _baslik()
    _satir(rows, "A_tum", "", "sybil (ham skor)", ya, sa, kat, ga)
    if var_p:
        _satir(rows, "A_tum", "", "pillar (ham skor)", ya, pa, kat, ga)
    oa = {"astra": oof(Xa, ya, kat)}
    _satir(rows, "A_tum", "", "astra", ya, oa["astra"], kat, ga)
    Xs = np.hstack([Xa, sa[:, None]])
    oa["astra+sybil_tekpca"] = oof(Xs, ya, kat)
    _satir(rows, "A_tum", "", "astra+sybil (tek PCA)", ya, oa["astra+sybil_tekpca"], kat, ga)
    oa["astra+sybil"] = oof(Xs, ya, kat, ek=1)
    _satir(rows, "A_tum", "", "astra+sybil (skor PCA disi)", ya, oa["astra+sybil"], kat, ga)
    if var_p:
        Xp = np.hstack([Xa, pa[:, None]])
        oa["astra+pillar_tekpca"] = oof(Xp, ya, kat)
        _satir(rows, "A_tum", "", "astra+pillar (tek PCA)", ya, oa["astra+pillar_tekpca"], kat, ga)
        oa["astra+pillar"] = oof(Xp, ya, kat, ek=1)
        _satir(rows, "A_tum", "", "astra+pillar (skor PCA disi)", ya, oa["astra+pillar"], kat, ga)
    print("\n  Farklar (hasta duzeyi bootstrap, havuzlanmis OOF):")
    _fark(farklar, "A_tum", "", "astra", "sybil", ya, oa["astra"], sa, ga)
    _fark(farklar, "A_tum", "", "astra+sybil (skor PCA disi)", "sybil", ya, oa["astra+sybil"], sa, ga)
    if var_p:
        _fark(farklar, "A_tum", "", "astra+pillar (skor PCA disi)", "pillar", ya, oa["astra+pillar"], pa, ga)
    _oof_yaz(os.path.join(son, "oof_tum.csv"), ka, ya, ga, sa, pa, oa)
    meta = {"kohort": "tum", "n_pos": int(ya.sum()), "n_neg": int((ya == 0).sum()), "govde": gv, "on_isleme": on}
    _nihai(os.path.join(mod, f"tum_{_G}.npz"), Xa, ya, 0, dict(meta, girdi="oznitelik"))
    _nihai(os.path.join(mod, f"tum_{_G}_sybil.npz"), Xs, ya, 1, dict(meta, girdi="oznitelik+sybil"))

    # ============================================================ B) dusuk risk kohortu
    for thr in C.ESIKLER:
        mb = np.isfinite(sy) & (sy < thr) & (np.isfinite(pi) if var_p else True)
        Xb, yb, gb, sb, pb, kb = X[mb], y[mb], g[mb], sy[mb], pi[mb], keys[mb]
        n_fn_h = len(set(gb[yb == 1].tolist()))
        print(f"\n{'=' * 88}\nB) SYBIL < {thr:.2f} -- FN {int(yb.sum())} seri ({n_fn_h} hasta) / "
              f"TN {int((yb == 0).sum())} seri\n{'=' * 88}")
        if yb.sum() < 2 * C.K_KAT or (yb == 0).sum() < 2 * C.K_KAT:
            print("  yetersiz ornek, atlandi")
            continue
        kat = katlar(gb, yb)
        _baslik()
        _satir(rows, "B_dusuk_risk", thr, "sybil (kohort ici)", yb, sb, kat, gb)
        if var_p:
            _satir(rows, "B_dusuk_risk", thr, "pillar (kohort ici)", yb, pb, kat, gb)
        ob = {"astra": oof(Xb, yb, kat)}
        ra = _satir(rows, "B_dusuk_risk", thr, "astra", yb, ob["astra"], kat, gb)
        Xbs = np.hstack([Xb, sb[:, None]])
        ob["astra+sybil_tekpca"] = oof(Xbs, yb, kat)
        _satir(rows, "B_dusuk_risk", thr, "astra+sybil (tek PCA)", yb, ob["astra+sybil_tekpca"], kat, gb)
        ob["astra+sybil"] = oof(Xbs, yb, kat, ek=1)
        _satir(rows, "B_dusuk_risk", thr, "astra+sybil (skor PCA disi)", yb, ob["astra+sybil"], kat, gb)

        print(f"\n  Etiket karistirma kontrolu ({C.N_KARISTIRMA}x, {_G}):")
        nl = karistir(Xb, yb, gb)
        p_null = (1 + int((nl >= ra["kat_auc"]).sum())) / (1 + len(nl))
        print(f"    gercek kat AUC {ra['kat_auc']:.4f} | null ort {nl.mean():.4f}, maks {nl.max():.4f} | p = {p_null:.3f}")
        nuller.append({"esik": thr, "gercek_kat_auc": ra["kat_auc"], "null_ort": round(float(nl.mean()), 4),
                       "null_maks": round(float(nl.max()), 4), "p": round(p_null, 4),
                       "degerler": ";".join(f"{v:.4f}" for v in nl)})

        print("\n  Farklar (hasta duzeyi bootstrap, havuzlanmis OOF):")
        _fark(farklar, "B_dusuk_risk", thr, "astra", "sybil (kohort ici)", yb, ob["astra"], sb, gb)
        _fark(farklar, "B_dusuk_risk", thr, "astra+sybil (skor PCA disi)", "sybil (kohort ici)",
              yb, ob["astra+sybil"], sb, gb)
        if var_p:
            _fark(farklar, "B_dusuk_risk", thr, "astra", "pillar (kohort ici)", yb, ob["astra"], pb, gb)
        rho = spearman(ob["astra"], sb)
        ek_p = f"  | Pillar ile: rho = {spearman(ob['astra'], pb):+.3f}" if var_p else ""
        print(f"\n  {_G} tahmini ile Sybil skoru arasindaki sira korelasyonu: rho = {rho:+.3f}{ek_p}")

        sk = {"astra": ob["astra"], "sybil": sb}
        if var_p:
            sk["pillar"] = pb
        bt = butce(yb, sk)
        print(f"\n  Butce: kohorttaki en yuksek k seri isaretlenirse kac FN yakalanir")
        print(f"    {'k':>5s} {'rastgele':>9s} " + " ".join(f"{_a(a):>8s}" for a in sk))
        for r in bt:
            print(f"    {r['k']:5d} {r['rastgele_beklenen']:9.1f} " + " ".join(f"{r[a]:8d}" for a in sk))
            butceler.append({_a(k): v for k, v in dict(r, esik=thr).items()})

        _oof_yaz(os.path.join(son, f"oof_esik{int(round(thr * 100)):03d}.csv"), kb, yb, gb, sb, pb, ob)
        meta = {"kohort": f"sybil<{thr}", "esik": thr, "n_pos": int(yb.sum()), "n_neg": int((yb == 0).sum()),
                "oof_kat_auc": ra["kat_auc"], "govde": gv, "on_isleme": on}
        e3 = f"{int(round(thr * 100)):03d}"
        _nihai(os.path.join(mod, f"esik{e3}_{_G}.npz"), Xb, yb, 0, dict(meta, girdi="oznitelik"))
        _nihai(os.path.join(mod, f"esik{e3}_{_G}_sybil.npz"), Xbs, yb, 1, dict(meta, girdi="oznitelik+sybil"))

    _csv(os.path.join(son, "ozet.csv"), rows)
    _csv(os.path.join(son, "farklar.csv"), farklar)
    _csv(os.path.join(son, "null.csv"), nuller)
    _csv(os.path.join(son, "butce.csv"), butceler)
    print(f"\nsure {(time.time() - t0) / 60:.1f} dk | sonuclar: {son} | modeller: {mod}")


def tahmin(model_yolu, npz=None, cikti=None):
    """Kayitli bir modeli oznitelik dosyasina uygular -> CSV."""
    h = Hat.yukle(model_yolu)
    d = veri_yukle(npz)
    X = d["X"].astype(np.float64)
    sy = d["sybil"].astype(np.float64)
    if str(h.meta.get("girdi", "")).endswith("+sybil"):
        X = np.hstack([X, sy[:, None]])
    s = np.full(len(X), np.nan)
    ok = np.isfinite(X).all(1)
    s[ok] = h.skor(X[ok])
    esik = h.meta.get("esik")
    kohort = (sy < esik) if esik is not None else np.ones(len(X), bool)
    cikti = cikti or C.calisma("sonuclar", C.varyant(), "tahmin_" + os.path.basename(model_yolu).replace(".npz", ".csv"))
    os.makedirs(os.path.dirname(cikti), exist_ok=True)
    rows = [{"anahtar": str(k), "etiket": int(e), "sybil": float(a), "pillar": float(p),
             "astra_skor": float(v), "kohortta": bool(c)}
            for k, e, a, p, v, c in zip(d["anahtar"], d["etiket"], sy, d["pillar"], s, kohort)]
    _csv(cikti, rows)
    print(f"{len(rows)} seri skorlandi ({int(kohort.sum())} kohortta) -> {cikti}")
    return cikti
