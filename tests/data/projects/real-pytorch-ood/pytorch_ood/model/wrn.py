"""
Wide Resnet

See https://github.com/wetliu/energy_ood/blob/master/CIFAR/models/wrn.py

Pre-trained weights are available through the model registry, see
:func:`load_model <pytorch_ood.model.load_model>`.
"""

import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class BasicBlock(nn.Module):
    def __init__(self, in_planes, out_planes, stride, dropRate=0.0):
        super(BasicBlock, self).__init__()
        self.bn1 = nn.BatchNorm2d(in_planes)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(
            in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False
        )
        self.bn2 = nn.BatchNorm2d(out_planes)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(
            out_planes, out_planes, kernel_size=3, stride=1, padding=1, bias=False
        )
        self.droprate = dropRate
        self.equalInOut = in_planes == out_planes
        self.convShortcut = (
            (not self.equalInOut)
            and nn.Conv2d(
                in_planes,
                out_planes,
                kernel_size=1,
                stride=stride,
                padding=0,
                bias=False,
            )
            or None
        )

    def forward(self, x):
        if not self.equalInOut:
            x = self.relu1(self.bn1(x))
        else:
            out = self.relu1(self.bn1(x))
        if self.equalInOut:
            out = self.relu2(self.bn2(self.conv1(out)))
        else:
            out = self.relu2(self.bn2(self.conv1(x)))
        if self.droprate > 0:
            out = F.dropout(out, p=self.droprate, training=self.training)
        out = self.conv2(out)
        if not self.equalInOut:
            return torch.add(self.convShortcut(x), out)

        else:
            return torch.add(x, out)


class NetworkBlock(nn.Module):
    def __init__(self, nb_layers, in_planes, out_planes, block, stride, dropRate=0.0):
        super(NetworkBlock, self).__init__()
        self.layer = self._make_layer(block, in_planes, out_planes, nb_layers, stride, dropRate)

    def _make_layer(self, block, in_planes, out_planes, nb_layers, stride, dropRate):
        layers = []
        for i in range(nb_layers):
            layers.append(
                block(
                    i == 0 and in_planes or out_planes,
                    out_planes,
                    i == 0 and stride or 1,
                    dropRate,
                )
            )
        return nn.Sequential(*layers)

    def forward(self, x):
        return self.layer(x)


class WideResNet(nn.Module):
    """
    ResNet architecture with large number of channels and variable depth, which has been used in a number of
    publications.

    Pre-trained weights, e.g. for models trained with
    :class:`OutlierExposureLoss <pytorch_ood.loss.OutlierExposureLoss>` or
    :class:`Energy Regularization <pytorch_ood.loss.EnergyRegularizedLoss>`, are available
    through the model registry, see :func:`load_model <pytorch_ood.model.load_model>`.

    The pooling is hard-coded for :math:`32 \\times 32` inputs (as in CIFAR), for which the
    feature maps have a spatial size of :math:`8 \\times 8`. For the default WRN-40-2, the
    feature dimension is :math:`D = 128`.

    :see Paper: `Wide Residual Networks (BMVC 2016) <https://arxiv.org/pdf/1605.07146v4.pdf>`__
    :see Implementation: `Energy-based OOD detection WRN on GitHub <https://github.com/wetliu/energy_ood/blob/master/CIFAR/models/wrn.py>`__
    """

    def __init__(
        self,
        num_classes,
        depth=40,
        widen_factor=2,
        drop_rate=0.3,
        in_channels=3,
    ):
        """
        :param num_classes: number of classes :math:`K`
        :param depth: depth of the network; must satisfy ``(depth - 4) % 6 == 0``
        :param widen_factor: factor used for channel increase per block
        :param drop_rate: dropout probability
        :param in_channels: number of input planes
        """
        super(WideResNet, self).__init__()
        nChannels = [16, 16 * widen_factor, 32 * widen_factor, 64 * widen_factor]
        assert (depth - 4) % 6 == 0
        n = (depth - 4) // 6
        block = BasicBlock
        # 1st conv before any network block
        self.conv1 = nn.Conv2d(
            in_channels, nChannels[0], kernel_size=3, stride=1, padding=1, bias=False
        )
        # 1st block
        self.block1 = NetworkBlock(n, nChannels[0], nChannels[1], block, 1, drop_rate)
        # 2nd block
        self.block2 = NetworkBlock(n, nChannels[1], nChannels[2], block, 2, drop_rate)
        # 3rd block
        self.block3 = NetworkBlock(n, nChannels[2], nChannels[3], block, 2, drop_rate)
        # global average pooling and classifier
        self.bn1 = nn.BatchNorm2d(nChannels[3])
        self.relu = nn.ReLU(inplace=True)
        self.fc = nn.Linear(nChannels[3], num_classes)
        self.nChannels = nChannels[3]
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                m.weight.data.normal_(0, math.sqrt(2.0 / n))
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()
            elif isinstance(m, nn.Linear):
                m.bias.data.zero_()

    def forward(self, x: Tensor) -> Tensor:
        """
        Forward propagate

        :param x: input images of shape :math:`B \\times C_{in} \\times 32 \\times 32`
        :return: class logits of shape :math:`B \\times K`
        """
        out = self.conv1(x)
        out = self.block1(out)
        out = self.block2(out)
        out = self.block3(out)
        out = self.relu(self.bn1(out))
        out = F.avg_pool2d(out, 8)
        out = out.view(-1, self.nChannels)
        return self.fc(out)

    def feature_maps(self, x: Tensor) -> Tensor:
        """
        Spatial feature maps before global average pooling.

        :param x: input images of shape :math:`B \\times C_{in} \\times 32 \\times 32`
        :return: feature maps of shape :math:`B \\times D \\times 8 \\times 8`
        """
        out = self.conv1(x)
        out = self.block1(out)
        out = self.block2(out)
        out = self.block3(out)
        out = self.relu(self.bn1(out))
        return out

    def forward_feature_maps(self, x: Tensor) -> Tensor:
        """
        Maps spatial feature maps (as returned by :meth:`feature_maps`) to logits.

        :param x: feature maps of shape :math:`B \\times D \\times 8 \\times 8`
        :return: class logits of shape :math:`B \\times K`
        """
        out = F.avg_pool2d(x, 8)
        out = out.view(-1, self.nChannels)
        return self.fc(out)

    def features(self, x: Tensor) -> Tensor:
        """
        Extracts (flattened) features before the last fully connected layer.

        :param x: input images of shape :math:`B \\times C_{in} \\times 32 \\times 32`
        :return: features of shape :math:`B \\times D`
        """
        out = self.conv1(x)
        out = self.block1(out)
        out = self.block2(out)
        out = self.block3(out)
        out = self.relu(self.bn1(out))
        out = F.avg_pool2d(out, 8)
        out = out.view(-1, self.nChannels)
        return out

    def feature_list(self, x: Tensor) -> List[Tensor]:
        """
        Extracts features at three stages of the network.

        :param x: input images of shape :math:`B \\times C_{in} \\times 32 \\times 32`
        :return: list with the feature maps (:math:`B \\times D \\times 8 \\times 8`), the pooled
            features (:math:`B \\times D \\times 1 \\times 1`) and the logits (:math:`B \\times K`)
        """
        out_list = []
        out = self.conv1(x)
        out = self.block1(out)
        out = self.block2(out)
        out = self.block3(out)
        out = self.relu(self.bn1(out))
        out_list.append(out)
        out = F.avg_pool2d(out, 8)
        out_list.append(out)
        out = out.view(-1, self.nChannels)
        out_list.append(self.fc(out))
        return out_list
