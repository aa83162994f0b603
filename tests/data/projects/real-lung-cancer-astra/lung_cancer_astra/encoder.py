# -*- coding: utf-8 -*-
"""Astra goruntu govdesi: Merlin Inflated 3D ResNet-152 (I3ResNet).

Astra deposundaki Merlin-main/merlin/models/{i3res,inflate,build}.py'nin
cikarim icin gereken kismi, saf torch ile yeniden yazildi. torchvision,
monai, transformers, huggingface_hub GEREKMEZ.

Katman adlari ve tensor bicimleri orijinalle birebir aynidir; bu sayede
Astra checkpoint'inden ayiklanan agirliklar strict=True ile yuklenir.

Orijinal akis (i3res.I3ResNet.forward):
    x [B, 1, X, Y, Z]  ->  permute(0,1,4,2,3)  ->  [B, 1, Z, X, Y]
    3 kanala kopyala -> conv1 -> bn1 -> relu -> maxpool -> layer1..4
    cikti [B, 2048, Z/16, X/32, Y/32]   (224x224x160 giriste 2048x10x7x7)

Orijinalde forward layer4'ten sonra doner (avgpool/classifier olu kod).
GAP = 490 konumun ortalamasi = 2048 boyutlu vektor.
"""
import torch
from torch import nn


class Bottleneck3d(nn.Module):
    """torchvision Bottleneck (v1.5, stride conv2'de) 'center' sisirmesiyle."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=False):
        super().__init__()
        s = stride
        self.conv1 = nn.Conv3d(inplanes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm3d(planes)
        self.conv2 = nn.Conv3d(planes, planes, kernel_size=3, stride=s,
                               padding=1, bias=False)
        self.bn2 = nn.BatchNorm3d(planes)
        self.conv3 = nn.Conv3d(planes, planes * 4, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm3d(planes * 4)
        self.relu = nn.ReLU(inplace=False)
        self.downsample = None
        if downsample:
            self.downsample = nn.Sequential(
                nn.Conv3d(inplanes, planes * 4, kernel_size=1, stride=s, bias=False),
                nn.BatchNorm3d(planes * 4),
            )

    def forward(self, x):
        r = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + r)


def _layer(inplanes, planes, blocks, stride):
    mods = [Bottleneck3d(inplanes, planes, stride, downsample=True)]
    for _ in range(1, blocks):
        mods.append(Bottleneck3d(planes * 4, planes))
    return nn.Sequential(*mods)


class I3ResNet152(nn.Module):
    """ResNet-152 = [3, 8, 36, 3] blok."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2),
                               padding=(1, 3, 3), bias=False)
        self.bn1 = nn.BatchNorm3d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool3d(kernel_size=3, stride=2, padding=1)
        self.layer1 = _layer(64, 64, 3, 1)
        self.layer2 = _layer(256, 128, 8, 2)
        self.layer3 = _layer(512, 256, 36, 2)
        self.layer4 = _layer(1024, 512, 3, 2)

    def forward(self, x):
        """x: [B, 1, X, Y, Z] (RAS, 0-1 olcekli). Donus: [B, 2048, z, x, y]."""
        x = x.permute(0, 1, 4, 2, 3)
        x = torch.cat((x, x, x), dim=1)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        return self.layer4(x)


# Astra checkpoint'inde govdenin anahtar oneki (infer_one_ct.py:
# AstraInference.visual_encoder = Merlin -> .model = MerlinArchitecture
# -> .encode_image = ImageEncoder -> .i3_resnet = I3ResNet)
ASTRA_ONEK = "visual_encoder.model.encode_image.i3_resnet."
# Merlin'in kendi checkpoint'inde (stanfordmimi/Merlin) ayni govde bu onekle durur
MERLIN_ONEK = "encode_image.i3_resnet."


def yukle(agirlik_yolu, device="cpu"):
    """Ayiklanmis govde agirligini (agirlik_ayikla.py ciktisi) yukler, eval moduna alir."""
    sd = torch.load(agirlik_yolu, map_location="cpu", weights_only=False)
    if isinstance(sd, dict) and "state_dict" in sd:
        meta, sd = sd.get("meta", {}), sd["state_dict"]
    else:
        meta = {}
    for onek in (ASTRA_ONEK, MERLIN_ONEK):
        if any(k.startswith(onek) for k in sd):
            sd = {k[len(onek):]: v for k, v in sd.items() if k.startswith(onek)}
            break
    # Merlin checkpoint'indeki siniflandirici / kontrastif basliklar govdeye ait degil
    sd = {k: v for k, v in sd.items() if not k.startswith(("classifier.", "contrastive_head."))}
    m = I3ResNet152()
    m.load_state_dict(sd, strict=True)
    m.eval().to(device)
    for p in m.parameters():
        p.requires_grad_(False)
    return m, meta
