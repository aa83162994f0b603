from __future__ import annotations
import torch
from torch import Tensor, nn
from deepinv.models import Denoiser
from .utils import (
    get_weights_url,
    fix_dim,
    conv_nd,
    conv_transpose_nd,
    initialize_3d_from_2d,
    load_state_dict_from_url,
)


class DScCP(Denoiser):
    r"""
    DScCP denoiser network.

    The network architecture is based on the paper from :footcite:t:`le2024unfolded`.
    and has an unrolled architecture based on the fast Chambolle-Pock algorithm using strong convexity.
    DScCP stands for Deep Strongly Convex Chambolle Pock.

    The pretrained weights are trained with the default parameters of the network, i.e. depth=20 layers, n_channels_per_layer=64 channels.
    They can be downloaded via setting ``pretrained='download'``.

    :param int depth: depth i.e. number of convolutional layers.
    :param int n_channels_per_layer: number of channels per convolutional layer.
    :param str, None pretrained: ``pretrained='download'`` to download pretrained weights, or path to local weights file. When building a 3D network, it is possible to initialize with 2D pretrained weights by using ``pretrained='download_2d'``, which provides a good starting point for fine-tuning.
    :param bool pretrained_2d_isotropic: when loading 2D pretrained weights into a 3D network, whether to initialize the 3D kernels isotropically. By default the weights are loaded axially, i.e., by initializing the central slice of the 3D kernels with the 2D weights.
    :param torch.device, str device: 'cuda', 'mps' or 'cpu'.
    :param str, int dim: Whether to build 2D or 3D network (if str, can be "2", "2d", "3D", etc.)

    """

    def __init__(
        self,
        depth: int = 20,
        n_channels_per_layer: int = 64,
        pretrained: str | None = "download",
        pretrained_2d_isotropic: bool = False,
        device: torch.device | str = None,
        dim: int | str = 2,
    ):
        super(DScCP, self).__init__()
        dim = fix_dim(dim)
        conv = conv_nd(dim)
        convtranspose = conv_transpose_nd(dim)
        self.depth = depth
        self.n_channels_per_layer = n_channels_per_layer
        self.norm_net = 0
        # convolution layers
        self.conv = nn.ModuleList()
        for i in range(self.depth):
            self.conv.append(
                conv(
                    in_channels=3,
                    out_channels=n_channels_per_layer,
                    kernel_size=3,
                    padding=1,
                    bias=False,
                    dtype=torch.float,
                )
            )
            self.conv.append(
                convtranspose(
                    in_channels=n_channels_per_layer,
                    out_channels=3,
                    kernel_size=3,
                    padding=1,
                    bias=False,
                    dtype=torch.float,
                )
            )
            self.conv[i * 2 + 1].weight = self.conv[i * 2].weight
            nn.init.kaiming_normal_(self.conv[i * 2].weight.data, nonlinearity="relu")

        self.mu = nn.Parameter(
            torch.ones(depth, dtype=torch.float32), requires_grad=True
        )

        # apply He's initialization
        for i in range(depth):
            nn.init.kaiming_normal_(self.conv[i].weight.data, nonlinearity="relu")

        if pretrained is not None:
            if pretrained == "download" or pretrained == "download_2d":
                if dim == 3 and pretrained == "download":  # pragma: no cover
                    raise ValueError(
                        "No 3D weights for DScCP are available for download. You can either initialize with 2D weights by using `download_2d`, which provides a good starting point for fine-tuning, or set pretrained to None or path to your own pretrained weights."
                    )
                url = get_weights_url(
                    model_name="dsccp", file_name="ckpt_dsccp.pth.tar"
                )
                ckpt = load_state_dict_from_url(
                    url,
                    map_location=lambda storage, loc: storage,
                    file_name="ckpt_dsccp.pth.tar",
                )
            else:
                ckpt = torch.load(pretrained, map_location=lambda storage, loc: storage)

            if dim == 3 and pretrained == "download_2d":
                initialize_3d_from_2d(self, ckpt, isotropic=pretrained_2d_isotropic)
            else:
                self.load_state_dict(ckpt)

        self.tol = 1e-4
        self.max_iter = 50

        if device is not None:
            self.to(device)

    def forward(self, x: Tensor, sigma: float = 0.03) -> Tensor:
        r"""
        Run the denoiser on noisy image.

        :param torch.Tensor x: noisy image.
        :param float sigma: noise level.
        """
        x_prev = x
        x_curr = x
        u = self.conv[0](x)
        gamma = 1
        sigma = self._handle_sigma(
            sigma, batch_size=x.size(0), ndim=x.ndim, device=x.device, dtype=x.dtype
        )

        for k in range(self.depth):
            xtmp = torch.randn_like(x)
            xtmp = xtmp / torch.linalg.norm(xtmp.flatten())
            val = 1
            for i in range(self.max_iter):
                old_val = val
                xtmp = self.conv[2 * k + 1](self.conv[2 * k](xtmp))
                val = torch.linalg.norm(xtmp.flatten())
                rel_val = torch.absolute(val - old_val) / old_val
                if rel_val < self.tol:
                    break
                xtmp = xtmp / val
            tau = 0.99 / val

            alphak = 1 / torch.sqrt(1 + 2 * gamma * self.mu.data[k])
            u_ = u + tau / self.mu[k] * self.conv[k * 2](
                (1 + alphak) * x_curr - alphak * x_prev
            )
            u = torch.clamp(u_, min=-(sigma**2), max=sigma**2)
            x_ = (
                (self.mu[k] / (self.mu[k] + 1)) * x
                + (1 / (1 + self.mu[k])) * x_curr
                - (self.mu[k] / (self.mu[k] + 1)) * self.conv[k * 2 + 1](u)
            )
            x_next = torch.clamp(x_, min=0, max=1)
            x_prev = x_curr
            x_curr = x_next

        return x_curr
