# -*- coding: utf-8 -*-
"""Standartlastirma -> PCA -> L2 lojistik regresyon; yalnizca numpy.

scikit-learn'deki su hattin karsiligi:
    Pipeline([StandardScaler(), PCA(k), LogisticRegression(C, class_weight="balanced")])
scikit-learn gerektirmesin diye yeniden yazildi. Amac fonksiyonu ayni
(0.5*||w||^2 + C * sum_i s_i * logloss_i, kesisim cezasiz, s_i = n / (2 * n_sinif));
dis bukey oldugu icin Newton yontemi ayni optimuma iner.
"""
import json

import numpy as np


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


class Hat:
    """ek > 0 ise X'in son `ek` sutunu (orn. Sybil skoru) PCA'ya girmez,
    standartlastirilip PCA bilesenlerinin yanina eklenir."""

    def __init__(self, pca=16, C=0.01, dengeli=True, ek=0):
        self.pca, self.C, self.dengeli, self.ek = int(pca), float(C), bool(dengeli), int(ek)
        self.meta = {}

    def _ayir(self, Z):
        return (Z[:, :-self.ek], Z[:, -self.ek:]) if self.ek else (Z, None)

    # ---------------------------------------------------------------- egitim
    def fit(self, X, y):
        X = np.asarray(X, np.float64)
        y = np.asarray(y, np.float64)
        self.mu = X.mean(0)
        sd = X.std(0)
        sd[sd == 0] = 1.0
        self.sd = sd
        Z = (X - self.mu) / sd
        if self.pca:
            Z, Ze = self._ayir(Z)
            self.pmu = Z.mean(0)
            Zc = Z - self.pmu
            n, d = Zc.shape
            if n >= d:                                   # d x d kovaryans
                val, vec = np.linalg.eigh(Zc.T @ Zc)
                W = vec[:, ::-1][:, :self.pca]
            else:                                        # n x n Gram
                val, vec = np.linalg.eigh(Zc @ Zc.T)
                val, vec = val[::-1][:self.pca], vec[:, ::-1][:, :self.pca]
                W = Zc.T @ vec / np.sqrt(np.maximum(val, 1e-12))
            self.W = W
            Z = Zc @ W
            if self.ek:
                Z = np.hstack([Z, Ze])
        self._lr(Z, y)
        return self

    def _lr(self, Z, y):
        n, d = Z.shape
        A = np.hstack([Z, np.ones((n, 1))])
        if self.dengeli:
            n1 = y.sum()
            s = np.where(y == 1, n / (2 * n1), n / (2 * (n - n1)))
        else:
            s = np.ones(n)
        R = np.eye(d + 1)
        R[-1, -1] = 0.0
        C = self.C

        def amac(w):
            z = A @ w
            return 0.5 * w @ R @ w + C * np.sum(s * (np.logaddexp(0, z) - y * z))

        w = np.zeros(d + 1)
        f = amac(w)
        for _ in range(200):
            p = _sigmoid(A @ w)
            g = R @ w + C * A.T @ (s * (p - y))
            H = R + C * (A.T * (s * p * (1 - p))) @ A + 1e-10 * np.eye(d + 1)
            adim = np.linalg.solve(H, g)
            t = 1.0
            while True:                                  # geri izlemeli cizgi aramasi
                wn = w - t * adim
                fn = amac(wn)
                if fn <= f - 1e-4 * t * (g @ adim) or t < 1e-8:
                    break
                t *= 0.5
            w, f = wn, fn
            if np.abs(t * adim).max() < 1e-9:
                break
        self.coef, self.b = w[:-1], w[-1]

    # ---------------------------------------------------------------- tahmin
    def skor(self, X):
        Z = (np.asarray(X, np.float64) - self.mu) / self.sd
        if self.pca:
            Z, Ze = self._ayir(Z)
            Z = (Z - self.pmu) @ self.W
            if self.ek:
                Z = np.hstack([Z, Ze])
        return _sigmoid(Z @ self.coef + self.b)

    # ---------------------------------------------------------------- disa aktarim
    def kaydet(self, yol, meta=None):
        self.meta = meta or {}
        d = {"mu": self.mu, "sd": self.sd, "coef": self.coef, "b": np.array([self.b]),
             "ayar": np.array(json.dumps({"pca": self.pca, "C": self.C, "dengeli": self.dengeli,
                                          "ek": self.ek, "meta": self.meta}))}
        if self.pca:
            d.update(pmu=self.pmu, W=self.W)
        np.savez(yol, **d)

    @classmethod
    def yukle(cls, yol):
        d = np.load(yol, allow_pickle=False)
        a = json.loads(str(d["ayar"]))
        h = cls(a["pca"], a["C"], a["dengeli"], a.get("ek", 0))
        h.mu, h.sd, h.coef, h.b = d["mu"], d["sd"], d["coef"], float(d["b"][0])
        if h.pca:
            h.pmu, h.W = d["pmu"], d["W"]
        h.meta = a.get("meta", {})
        return h


# -------------------------------------------------------------------- metrikler
def _ort_sira(x):
    """1'den baslayan siralar; esit degerlere ortalama sira."""
    _, inv, cnt = np.unique(np.asarray(x, np.float64), return_inverse=True, return_counts=True)
    bas = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    return (bas + (cnt - 1) / 2.0 + 1.0)[inv.ravel()]


def auc(y, s):
    """ROC AUC (Mann-Whitney); esit skorlar yarim sayilir."""
    y = np.asarray(y).astype(int)
    n1, n0 = int((y == 1).sum()), int((y == 0).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    r = _ort_sira(s)
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def ap(y, s):
    o = np.argsort(-np.asarray(s, np.float64), kind="mergesort")
    y = np.asarray(y)[o]
    tp = np.cumsum(y)
    return float(((tp / np.arange(1, len(y) + 1)) * y).sum() / max(y.sum(), 1))


def spearman(a, b):
    ra, rb = _ort_sira(a), _ort_sira(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float((ra @ rb) / np.sqrt((ra @ ra) * (rb @ rb)))
