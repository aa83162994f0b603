from __future__ import annotations
import inspect
from pathlib import Path

import torch

from deepinv.models.base import Reconstructor
from deepinv.models.utils import load_state_dict_from_url
from deepinv.utils.mixins import MRIMixin
from deepinv.physics.mri import MultiCoilMRI, MRI


class DIRECTModel(Reconstructor, MRIMixin):
    r"""Pretrained MRI reconstruction models from DIRECT library.

    Runs a pretrained model from `DIRECT <https://github.com/NKI-AI/direct>`_ for (multi-coil) MRI reconstruction from kspace to images.

    Available models:

    **Models trained on Calgary-Campinas 12-coil brain** (downloaded from `here <https://huggingface.co/NKI-AI/direct-calgary-campinas>`__)

    - `jointicnet_5x` (or `_10x`) :footcite:p:`jun2021joint`,
    - `recurrentvarnet_5x` (or `_10x`) :footcite:p:`yiasemis2021recurrent`,
    - `varnet_5x` (or `_10x`) :footcite:p:`sriram2020end`,
    - `conjgradnet_5x` (or `_10x`) :footcite:p:`shewchuk1994conjugate`,
    - `iterdualnet_5x` (or `_10x`) :footcite:p:`moriakov2026conditional`,
    - `kikinet_5x` (or `_10x`) :footcite:p:`eo2018kiki`,
    - `lpdnet_5x` (or `_10x`) :footcite:p:`adler2018learned`,
    - `unet_5x` (or `_10x`) :footcite:p:`ronneberger2015unet`,
    - `xpdnet_5x` (or `_10x`) :footcite:p:`ramzi2021xpdnet`,
    - `multidomainnet` :footcite:p:`muckley2021results` (downloaded from `DIRECT <https://files.aiforoncology.nl/direct-project>`__, repaired locally, uploaded to `HF <https://huggingface.co/Andrewwango/direct>`__).

    **Models trained on a mix of MRI datasets (including brain, cardiac, knee and prostate)** (downloaded from `here <https://huggingface.co/NKI-AI/direct-uniform>`__)

    - `vsharp_brain` :footcite:p:`yiasemis2024vsharp,yiasemis2025uniform`,
    - `vsharp_cardiac`,
    - `vsharp_knee`,
    - `vsharp_prostate`

    The wrapped models handle the MRI physics and estimate coil maps themselves.

    .. note::
        deepinv uses centered FFTs but DIRECT uses uncentered, so we pre-shift `y` (a checkerboard modulation) into
        DIRECT's convention.

        Also, the output scale is not preserved, so its intensity is proportional to but not equal to `y`.

    .. note::
        This model requires DIRECT >=2.2.0 and Python >=3.12. Install it with `pip install deepinv[direct]`.
        The model should be used on non-CPU devices.
        CPU support is experimental and depends on your platform due to DIRECT requirement constraints.


    .. warning::
        Currently, this model can only be used for evaluation, not training/fine-tuning. If you want to use the model in training mode, please open a feature request issue on GitHub.

    :param str model_name: model name, see list above.
    :param bool, str pretrained: If `True`, the model will be initialized with pretrained weights from DIRECT. If `str`, load from file.
    :param torch.device, str device: device.

    |sep|

    :Example:

        >>> import deepinv as dinv
        >>> model = dinv.models.DIRECTModel("vsharp_brain")  # doctest: +SKIP
        >>> x_hat = model(y, physics)  # y: multicoil k-space, physics: dinv.physics.MultiCoilMRI  # doctest: +SKIP
    """

    def __init__(
        self,
        model_name: str = "jointicnet_5x",
        pretrained: bool | str | Path = True,
        device: str | torch.device = "cpu",
    ):  # pragma: no cover
        super().__init__(device=device)

        try:
            from omegaconf import OmegaConf
            from direct.config.defaults import DefaultConfig
            from direct.environment import (
                load_models_into_environment_config,
                build_operators,
                initialize_models_from_config,
                setup_engine,
            )
        except ImportError as e:  # pragma: no cover
            raise ImportError(
                "DIRECT package not found. Install it with `pip install deepinv[direct]` (requires Python >=3.12)."
            ) from e

        # Download weights from HF
        if model_name.startswith("vsharp_"):
            repo = "NKI-AI/direct-uniform"
            weights_file = "uniform_vsharp.pt"
            cfg_file = f"uniform_{model_name[len('vsharp_'):]}.yaml"
        elif model_name == "multidomainnet":
            repo = "deepinv/direct-mri"
            weights_file = f"{model_name}.pt"
            cfg_file = f"{model_name}.yaml"
        else:
            repo = "NKI-AI/direct-calgary-campinas"
            weights_file = f"{model_name}.pt"
            cfg_file = f"{model_name}.yaml"

        cfg_path = Path(torch.hub.get_dir()) / cfg_file

        if pretrained:
            if isinstance(pretrained, (str, Path)) and str(pretrained) != "download":
                state = torch.load(pretrained, map_location=device, weights_only=False)
                cfg_path = Path(pretrained).parent / cfg_file
            else:
                base = f"https://huggingface.co/{repo}/resolve/main"
                state = load_state_dict_from_url(
                    f"{base}/{weights_file}", map_location=device
                )
                if not cfg_path.exists():
                    torch.hub.download_url_to_file(f"{base}/{cfg_file}", str(cfg_path))

        # Load DIRECT config, code adapted from direct.environment.setup_common_environment
        file_cfg = OmegaConf.load(str(cfg_path))
        cfg = OmegaConf.structured(DefaultConfig)
        model_classes, models_cfg = load_models_into_environment_config(file_cfg)
        cfg.model = models_cfg.model
        del models_cfg["model"]
        cfg.additional_models = models_cfg
        cfg.physics = OmegaConf.merge(cfg.physics, file_cfg.physics)

        # Build DIRECT operators (type direct.types.FFTOperator)
        forward_operator, self.backward_operator = build_operators(cfg.physics)

        # Build DIRECT model (nn.Module)
        model, additional = initialize_models_from_config(
            cfg, model_classes, forward_operator, self.backward_operator, str(device)
        )

        # Build the DIRECT engine (direct.engine.Engine class (not nn.Module yet, need to register below...))
        self.engine = setup_engine(
            cfg,
            str(device),
            model,
            additional,
            forward_operator=forward_operator,
            backward_operator=self.backward_operator,
            mixed_precision=False,
        )
        self.engine.ndim = 2
        # Some engines (e.g. vSHARP) refine the sensitivity maps inside forward_function, whereas others (e.g. JointICNet) expect pre-refined maps.
        self._sens_in_forward = "compute_sensitivity_map" in inspect.getsource(
            type(self.engine).forward_function
        )

        if pretrained:
            self.engine.model.load_state_dict(state["model"], strict=False)
            for name, module in self.engine.models.items():
                if name in state:
                    module.load_state_dict(state[name], strict=False)

        # Fix DIRECT to allow simple .to(...), .eval() and .train()
        self.engine_model = self.engine.model
        self.engine_models = torch.nn.ModuleDict(self.engine.models)
        self.to(device)
        self.eval()

    def forward(
        self,
        y: torch.Tensor,
        physics: MultiCoilMRI | MRI,
        **kwargs,
    ) -> torch.Tensor:  # pragma: no cover
        r"""Reconstruct image from k-space `y` and `physics`.

        :param torch.Tensor y: k-space of shape `(B,2,N,H,W)` for multicoil or `(B,2,H,W)` for singlecoil MRI.
        :param deepinv.physics.MultiCoilMRI, deepinv.physics.MRI physics: MRI physics with mask (coil maps ignored).
        """
        from direct.data.mri_transforms import (
            EstimateSensitivityMapModule,
            ComputeScalingFactorModule,
            NormalizeModule,
        )

        if isinstance(physics, MRI):
            y = y.unsqueeze(2).contiguous()
        elif not isinstance(physics, MultiCoilMRI):
            raise NotImplementedError("DIRECTModel supports only MRI or MultiCoilMRI.")

        y = y.moveaxis(1, -1).contiguous()  # BNHW2
        device = y.device
        mask = physics.mask[:, :1].bool().cpu()

        # Get ACS size from fully-sampled center
        h2, w2 = y.shape[2] // 2, y.shape[3] // 2

        def get_acs_size(centerline, centerloc):
            return 2 * min(
                (
                    int((centerline[:centerloc].flip(0) == 0).int().argmax())
                    if not centerline[:centerloc].all()
                    else centerloc
                ),
                (
                    int((centerline[centerloc:] == 0).int().argmax())
                    if not centerline[centerloc:].all()
                    else centerline.numel() - centerloc
                ),
            )

        acs_size_h = max(get_acs_size(mask[0, 0, :, w2], h2), 1) // 2
        acs_size_w = max(get_acs_size(mask[0, 0, h2], w2), 1) // 2

        acs_mask = torch.zeros(y.shape[0], 1, y.shape[2], y.shape[3], 1, dtype=y.dtype)
        acs_mask[
            :, :, h2 - acs_size_h : h2 + acs_size_h, w2 - acs_size_w : w2 + acs_size_w
        ] = 1.0

        # DIRECT's transforms before the model forward need cpu tensors
        kspace = y.cpu()

        # DIRECT for Calgary use uncentered FFTs whereas for FastMRI it uses centered FFTs (as deepinv). Correct for uncentered:
        if not getattr(self.backward_operator, "keywords", {}).get("centered", True):
            kspace *= (
                (-1.0)
                ** (
                    torch.arange(y.shape[2])[:, None]
                    + torch.arange(y.shape[3])[None, :]
                )
            ).to(y.dtype)[None, None, :, :, None]

        # Prepare forward pass
        sample = {
            "masked_kspace": kspace,
            "sampling_mask": mask.to(y.dtype).unsqueeze(-1),
            "acs_mask": acs_mask,
        }

        # Estimate sensitivity map
        if kspace.shape[1] == 1:
            sample["sensitivity_map"] = torch.zeros_like(kspace).index_fill_(
                -1, torch.tensor([0]), 1.0
            )
        else:
            sample = EstimateSensitivityMapModule(
                kspace_key="masked_kspace",
                backward_operator=self.backward_operator,
                gaussian_sigma=0.7,
            )(sample)

        # ComputeScalingFactorModule returns the 99th percentile of "masked_space" magnitudes for each batch element
        sample = ComputeScalingFactorModule(
            normalize_key="masked_kspace", percentile=0.99
        )(sample)

        # NormalizedModule applies the scaling.
        sample = NormalizeModule(keys_to_normalize=["masked_kspace"])(sample)

        # Now ready for forward pass
        sample = {
            k: v.to(device) if torch.is_tensor(v) else v for k, v in sample.items()
        }

        # Model forward pass!
        with torch.no_grad():
            if not self._sens_in_forward:
                sample["sensitivity_map"] = self.engine.compute_sensitivity_map(
                    sample["sensitivity_map"]
                )
            x, _ = self.engine.forward_function(sample)

        if isinstance(x, (list, tuple)):  # vSHARP returns one image per unrolled step
            x = x[-1]

        x *= sample["scaling_factor"].view(-1, *([1] * (x.ndim - 1)))
        x = (
            torch.view_as_complex(x.contiguous())
            if x.dim() == 4 and x.shape[-1] == 2
            else x.to(torch.complex64)
        )
        return self.from_torch_complex(x)
