from __future__ import annotations
from warnings import warn
import torch
import torch.fft as fft
from torch import Tensor
import torch.nn.functional as F
from deepinv.physics.forward import LinearPhysics, DecomposablePhysics, adjoint_function
import deepinv.physics.functional as dF
from deepinv.utils.mixins import TiledMixin2d
from deepinv.utils._internal import _as_pair, _add_tuple
from deepinv.utils._tiling import _resolve_tiling_params, _compute_needed_pad
from deepinv.utils.decorators import _deprecated_func_replaced_by


class Downsampling(LinearPhysics):
    r"""
    Downsampling operator for super-resolution problems.

    It is defined as

    .. math::

        y = S (h*x)

    where :math:`h` is a low-pass filter and :math:`S` is a subsampling operator.

    :param torch.Tensor, str, None filter: Downsampling filter. It can be ``'gaussian'``, ``'bilinear'``, ``'bicubic'``
        , ``'sinc'`` or a custom ``torch.Tensor`` filter. If ``None``, no filtering is applied. Bicubic downsampling is a sensible default if you are not sure which filter to use.
    :param tuple[int], None img_size: optional size of the high resolution image `(C, H, W)`.
        If `tuple`, use this fixed image size.
        If `None`, override on-the-fly using input data size and `factor` (note that here, `A_adjoint` will
        only produce even img shapes).
    :param int factor: downsampling factor
    :param str padding: options are ``'valid'``, ``'circular'``, ``'replicate'`` and ``'reflect'``.
        If ``padding='valid'`` the blurred output is smaller than the image (no padding)
        otherwise the blurred output has the same size as the image.
    :param torch.device, str device: Device on which the physics' buffers will be created. If a buffer is updated via ``physics.update_parameters()``, if not None, it will be automatically casted to the device of the replaced buffer, else, use the device of the provided value. To change the device of all buffers, please use ``physics.to(device)``.

    |sep|

    :Examples:

        Downsampling operator with a gaussian filter:

        >>> from deepinv.physics import Downsampling
        >>> x = torch.zeros((1, 1, 32, 32)) # Define black image of size 32x32
        >>> x[:, :, 16, 16] = 1 # Define one white pixel in the middle
        >>> physics = Downsampling(filter = "gaussian", img_size=(1, 32, 32), factor=2)
        >>> y = physics(x)
        >>> y[:, :, 7:10, 7:10] # Display the center of the downsampled image
        tensor([[[[0.0146, 0.0241, 0.0146],
                  [0.0241, 0.0398, 0.0241],
                  [0.0146, 0.0241, 0.0146]]]])

    """

    def __init__(
        self,
        img_size: tuple[int, ...] = None,
        filter: str | Tensor = "warn",
        factor: int = 2,
        device: torch.device | str = "cpu",
        padding: str = "circular",
        **kwargs,
    ):
        if filter == "warn":
            warn(
                'Leaving the filter as default is deprecated and will be removed in future versions. Please specify filter=None for bare decimation, or one of the available filters (gaussian, bilinear, bicubic, sinc) for filtered downsampling. You can use filter="bicubic" as a sensible anti-aliasing filter if you are not sure which one to use.',
                stacklevel=2,
            )
            filter = None
        super().__init__(device=device, **kwargs)
        self.imsize = tuple(img_size) if isinstance(img_size, list) else img_size
        self.imsize_dynamic = (3, 128, 128)  # placeholder
        self.padding = padding

        imsize = self.imsize if self.imsize is not None else self.imsize_dynamic
        filter_parameters = self.get_filter_parameters(
            img_size=imsize, filter=filter, factor=factor, device=device
        )
        self.factor = filter_parameters["factor"]

        self.register_buffer("filter", filter_parameters["filter"])

        # Used for prox_l2 computation when `use_fft=True` and `padding='circular'`
        self.register_buffer("Fh", filter_parameters["Fh"])
        self.register_buffer("Fhc", filter_parameters["Fhc"])
        self.register_buffer("Fh2", filter_parameters["Fh2"])

        self.to(device)

    @staticmethod
    def get_filter_parameters(
        img_size: tuple[int, ...] | None = None,
        filter: Tensor | str | list[str] | None = None,
        factor: int | float | Tensor | None = None,
        device: torch.device | str = "cpu",
    ) -> dict[str, torch.Tensor]:
        r"""
        Create a filter tensor with specified downsampling factor

        :param tuple[int] img_size: size of the high resolution image `(C, H, W)`.
        :param torch.Tensor, str, list[str] filter: Filter name or tensor
         to be applied to the input image before downsampling.
        :param int, float, torch.Tensor factor: Downsampling factor to be applied to the input image.
        :param torch.device, str device: Device where the filter tensor will be created or pushed to.
        """

        parameters = {}

        if factor is not None:
            factor = Downsampling.check_factor(factor=factor)
            parameters["factor"] = factor
        else:
            parameters["factor"] = None

        if filter is not None:
            assert (
                factor is not None
            ), "factor must be provided when filter is not None."
            assert (
                img_size is not None
            ), "img_size must be provided when filter is not None."

            if isinstance(filter, list):
                # Batched filter strings
                if len(set(filter)) == 1 and isinstance(filter[0], str):
                    filter = filter[0]
                else:
                    raise ValueError(
                        f"Downsampling supports filter string lists if they are identical, but got unique filters {set(filter)}."
                    )

            if isinstance(filter, torch.Tensor):
                filter = filter.to(device)
            elif filter == "gaussian":
                filter = dF.gaussian_blur(sigma=(factor, factor), device=device)
            elif filter == "bilinear":
                filter = dF.bilinear_filter(factor, device=device)
            elif filter == "bicubic":
                filter = dF.bicubic_filter(factor, device=device)
            elif filter == "sinc":
                filter = dF.sinc_filter(factor, length=4 * factor, device=device)

            # `Fh` is initialized on `filter.device`
            Fh = dF.filter_fft(filter, img_size, real_fft=False)
            Fhc = torch.conj(Fh)
            Fh2 = Fhc * Fh

            parameters["filter"] = filter
            parameters["Fh"] = Fh
            parameters["Fhc"] = Fhc
            parameters["Fh2"] = Fh2
        else:
            parameters["filter"] = None
            parameters["Fh"] = None
            parameters["Fhc"] = None
            parameters["Fh2"] = None

        return parameters

    def update_parameters(
        self,
        filter: Tensor | str | list[str] = None,
        factor: int | float | Tensor = None,
        device: torch.device | str = None,
        **kwargs,
    ):
        r"""
        Updates the current filter and/or factor.

        :param torch.Tensor, str, list[str] filter: New filter to be applied to the input image.
        :param int, float, torch.Tensor factor: New downsampling factor to be applied to the input image.
        :param torch.device, str device: When``self.filter`` is ``None`` and if ``filter`` is a ``str`, specifies the device where the new filter will be created. When``self.filter`` is ``None`` and ``filter`` is a ``torch.Tensor``, the device is inferred from the provided ``filter`` tensor. Ignored otherwise.
        """
        if factor is not None and filter is None and self.filter is not None:
            warn(
                "Updating factor but not filter. Filter will not be valid for new factor. Pass filter string or new filter to resolve this."
            )

        imsize = self.imsize if self.imsize is not None else self.imsize_dynamic

        # self.filter can be None after initialization
        if self.filter is None:
            if device is None and not isinstance(filter, Tensor):
                _self_device = self._device_holder.device
                warn(
                    "The current filter is None and no device is provided."
                    f"Will proceed with self.device={_self_device}"
                    "The self.device attribute is deprecated and will be removed. Please pass the `device` argument to update_parameters. In future versions, device will be set to'cpu'.",
                    stacklevel=2,
                )

                device = _self_device

            if isinstance(filter, Tensor):
                if device is not None:
                    warn(
                        f"Got device={device}. The device argument is ignored since the provided ``filter`` is a Tensor. To change the device of the underlying filter, please use physics.to(device).",
                        stacklevel=2,
                    )

                device = filter.device

                # NOTE: to properly handle self._device_holder, which tracks the
                # deprecated self.device property.
                # When self.device is no longer supported, this line can be removed
                # as no "implicit" device will be tied to self when self.filter is None.
                self.to(device)

        # the device of self.filter (which is equal to self._device_holder.device) takes precedence
        elif isinstance(self.filter, Tensor):
            if isinstance(filter, Tensor):
                if self.filter.device.type != filter.device.type:
                    warn(
                        "The provided ``filter`` is on a different device than the current filter ``self.filter``. The current underlying self.filter.device={self.filter.device} will be used.",
                        stacklevel=2,
                    )

            device = self.filter.device

        # filter_parameters contains keys "factor", "filter", "Fh", "Fhc", "Fh2"
        # "filter", "Fh", "Fhc", "Fh2" are Tensor arguments
        filter_parameters = self.get_filter_parameters(
            img_size=imsize,
            filter=filter,
            factor=factor if factor is not None else self.factor,
            device=device,
        )
        if filter_parameters["factor"] is not None:
            self.factor = filter_parameters.pop("factor")

        # IF filter_parameters["filter"] is not None then update of "Fh", "Fhc", "Fh2" has
        # already been triggered in `self.get_filter_parameters`
        # ELSE, computation of "Fh", "Fhc", "Fh2" is triggered here in case a
        # change of domain size (imsize_dynamic) has occurred
        # FIXME: When `self.imsize` is None, need to track changes of `self.imsize_dynamic`
        # to avoid recomputation of "Fh" when not needed
        if filter_parameters["filter"] is None and self.filter is not None:
            imsize = self.imsize if self.imsize is not None else self.imsize_dynamic

            filter_parameters["Fh"] = dF.filter_fft(
                self.filter, imsize, real_fft=False, dims=(-2, -1)
            ).to(device)
            filter_parameters["Fhc"] = torch.conj(filter_parameters["Fh"])
            filter_parameters["Fh2"] = (
                filter_parameters["Fhc"] * filter_parameters["Fh"]
            )

        # user is allowed to override parameters updates
        filter_parameters.update(**kwargs)

        super().update_parameters(**filter_parameters)

    def A(
        self,
        x: Tensor,
        filter: Tensor | str | list[str] = None,
        factor: int | float | Tensor = None,
        **kwargs,
    ) -> Tensor:
        r"""
        Applies the downsampling operator to the input image.

        :param torch.Tensor x: input image.
        :param None, str, torch.Tensor, list[str] filter: Filter :math:`h` to be applied to the input image before downsampling.
            If not ``None``, it uses this filter and stores it as the current filter.
        :param int, float, torch.Tensor factor: downsampling factor. If not `None`, use this factor and store it as current factor.

        .. warning::

            If `factor` is passed, `filter` must also be passed as a `str` or `Tensor`, in order to update the filter to the new factor.

        """
        self.imsize_dynamic = x.shape[-3:]
        self.update_parameters(filter=filter, factor=factor, device=x.device, **kwargs)

        if self.filter is not None:
            x = dF.conv2d(x, self.filter, padding=self.padding)

        x = x[:, :, :: self.factor, :: self.factor]  # downsample

        return x

    def A_adjoint(
        self,
        y: Tensor,
        filter: Tensor | str | list[str] = None,
        factor: int | float | Tensor = None,
        **kwargs,
    ) -> Tensor:
        r"""
        Adjoint operator of the downsampling operator.

        :param torch.Tensor y: downsampled image.
        :param None, str, torch.Tensor, list[str] filter: Filter :math:`h` to be applied to the input image before downsampling.
            If not ``None``, it uses this filter and stores it as the current filter.
        :param int, float, torch.Tensor factor: downsampling factor. If not `None`, use this factor and store it as current factor.

        .. warning::

            If `factor` is passed, `filter` must also be passed as a `str` or `Tensor`, in order to update the filter to the new factor.

        """
        self.imsize_dynamic = (
            y.shape[-3],
            y.shape[-2] * self.factor,
            y.shape[-1] * self.factor,
        )
        self.update_parameters(filter=filter, factor=factor, device=y.device, **kwargs)

        imsize = self.imsize if self.imsize is not None else self.imsize_dynamic

        if self.filter is not None and self.padding == "valid":
            imsize = (
                imsize[0],
                imsize[1] - self.filter.shape[-2] + 1,
                imsize[2] - self.filter.shape[-1] + 1,
            )
        else:
            imsize = imsize[:3]

        x = torch.zeros((y.shape[0],) + imsize, device=y.device, dtype=y.dtype)
        x[:, :, :: self.factor, :: self.factor] = y  # upsample
        if self.filter is not None:
            x = dF.conv_transpose2d(
                x, self.filter, padding=self.padding
            )  # Note: this may be slow against x = conv_transpose2d_fft(x, self.filter) in the case of circular padding

        return x

    def prox_l2(
        self, z: Tensor, y: Tensor, gamma: float, use_fft: bool = True, **kwargs
    ) -> Tensor:
        r"""
        If the padding is circular, it computes the proximal operator with the closed-formula of :footcite:t:`zhu2014fast`.

        Otherwise, it computes it using the conjugate gradient algorithm which can be slow if applied many times.
        """

        if use_fft and self.padding == "circular":  # Formula from (Zhao, 2016)
            z_hat = self.A_adjoint(y) + 1 / gamma * z
            Fz_hat = fft.fft2(z_hat)

            def splits(a, sf):
                """split a into sfxsf distinct blocks
                Args:
                    a: NxCxWxH
                    sf: split factor
                Returns:
                    b: NxCx(W/sf)x(H/sf)x(sf^2)
                """
                b = torch.stack(torch.chunk(a, sf, dim=2), dim=4)
                b = torch.cat(torch.chunk(b, sf, dim=3), dim=4)
                return b

            top = torch.mean(splits(self.Fh * Fz_hat, self.factor), dim=-1)
            below = torch.mean(splits(self.Fh2, self.factor), dim=-1) + 1 / gamma
            rc = self.Fhc * (top / below).repeat(1, 1, self.factor, self.factor)
            r = torch.real(fft.ifft2(rc))
            return (z_hat - r) * gamma
        else:
            return LinearPhysics.prox_l2(self, z, y, gamma, **kwargs)

    @staticmethod
    def check_factor(factor: int | float | Tensor) -> int:
        """Check new downsampling factor.

        :param int, float, torch.Tensor factor: downsampling factor to be checked and cast to `int`. If :class:`torch.Tensor`,
            it must be 1D and all its elements must be the same, since downsampling only supports one factor per batch.
        :return: `int`: factor
        """
        if isinstance(factor, (int, float)):
            return int(factor)
        elif isinstance(factor, Tensor):
            if factor.ndim > 1:
                raise ValueError("Factor tensor must be 1D.")

            factor = torch.unique(factor)
            if len(factor) > 1:
                raise ValueError(
                    f"Downsampling only supports one unique factor per batch, but got factors {torch.unique(factor).tolist()}."
                )

            return int(factor.item())
        else:
            raise ValueError(
                f"Factor must be an integer, got {factor} of type {type(factor)}."
            )


class Upsampling(Downsampling):
    r"""
    Upsampling operator.

    This operator performs the operation

    .. math::
        y = h^T * S^T (x)

    where :math:`S^T` is the adjoint of the subsampling operator and :math:`h` is a low-pass filter.

    :param torch.Tensor, str, None filter: Upsampling filter. It can be ``'gaussian'``, ``'bilinear'``, ``'bicubic'``,
        ``'sinc'`` or a custom ``torch.Tensor`` filter. If ``None``, no filtering is applied.
    :param tuple[int] img_size: size of the output image
    :param int factor: upsampling factor
    :param str padding: options are ``'circular'``, ``'replicate'`` and ``'reflect'``.
    :param torch.device, str device: Device on which the physics' buffers will be created. To change the device of the physics, please use ``physics.to(device)``.
    """

    def __init__(
        self,
        img_size: tuple[int, ...],
        filter: Tensor | str = None,
        factor: int = 2,
        padding: str = "circular",
        device: torch.device | str = "cpu",
        **kwargs,
    ):
        assert (
            padding != "valid"
        ), "Padding 'valid' is not supported for Upsampling operator."

        super().__init__(
            img_size=img_size,
            filter=filter,
            factor=factor,
            padding=padding,
            device=device,
            **kwargs,
        )

    def A(self, x: Tensor, **kwargs) -> Tensor:
        return super().A_adjoint(x, **kwargs)

    def A_adjoint(self, y: Tensor, **kwargs) -> Tensor:
        return super().A(y, **kwargs)

    def prox_l2(self, z: Tensor, y: Tensor, gamma: float, **kwargs) -> Tensor:
        return super().prox_l2(z, y, gamma, **kwargs)


class Blur(LinearPhysics):
    r"""

    Blur operator.

    This forward operator performs

    .. math::

        y = w*x

    where :math:`*` denotes convolution and :math:`w` is a filter.

    :param torch.Tensor filter: Tensor of size (b, 1, h, w) or (b, c, h, w) in 2D; (b, 1, d, h, w) or (b, c, d, h, w) in 3D,
        containing the blur filter, e.g., :func:`deepinv.physics.functional.gaussian_blur`. If ``None``, a filter must be passed to the physics before calling it . (default is ``None``)
    :param str padding: options are ``'valid'``, ``'circular'``, ``'replicate'`` and ``'reflect'``.
        If ``padding='valid'`` the blurred output is smaller than the image (no padding)
        otherwise the blurred output has the same size as the image. (default is ``'valid'``).
        Only ``padding='valid'`` and  ``padding = 'circular'`` are implemented in 3D.
    :param bool use_fft: whether to use FFT-based convolutions. If ``True``, it uses FFT-based convolutions which can be faster for large kernels.
        If ``False``, it uses the standard convolution functions from ``torch.nn.functional``.
    :param torch.device, str device: Device on which the physics' buffers will be created. When a buffer is updated via ``physics.update_parameters()``, if the current buffer is None, use the device of the incoming value, else, the incoming value is casted to the device of the current buffer. To change the device of all buffers, please use ``physics.to(device)``.

    .. note::

        This class makes it possible to change the filter at runtime by passing a new filter to the forward method, e.g.,
        ``y = physics(x, w)``. The new filter :math:`w` is stored as the current filter.

    .. note::

        This class performs a true convolution, not a cross-correlation as the standard convolution functions in ``torch.nn.functional``.
        It is recommended to use ``use_fft=True`` for large filters, and ``use_fft=False`` for small filters, since FFT-based convolutions can be faster for large kernels but slower for small kernels.

    |sep|

    :Examples:

        Blur operator with a basic averaging filter applied to a 16x16 black image with
        a single white pixel in the center:

        >>> from deepinv.physics import Blur
        >>> x = torch.zeros((1, 1, 16, 16)) # Define black image of size 16x16
        >>> x[:, :, 8, 8] = 1 # Define one white pixel in the middle
        >>> w = torch.ones((1, 1, 2, 2)) / 4 # Basic 2x2 averaging filter
        >>> physics = Blur(filter=w)
        >>> y = physics(x)
        >>> y[:, :, 7:10, 7:10] # Display the center of the blurred image
        tensor([[[[0.2500, 0.2500, 0.0000],
                  [0.2500, 0.2500, 0.0000],
                  [0.0000, 0.0000, 0.0000]]]])

    """

    def __init__(
        self,
        filter: Tensor = None,
        padding: str = "valid",
        use_fft: bool = False,
        device: torch.device = torch.device("cpu"),
        **kwargs,
    ):
        super().__init__(**kwargs, device=device)
        self.padding = padding
        assert (
            isinstance(filter, Tensor) or filter is None
        ), f"The filter must be a torch.Tensor or None, got filter of type {type(filter)}."

        self.register_buffer("filter", filter)
        self.use_fft = use_fft
        self.conv = {
            2: dF.conv2d_fft if use_fft else dF.conv2d,
            3: dF.conv3d_fft if use_fft else dF.conv3d,
        }
        self.conv_transpose = {
            2: dF.conv_transpose2d_fft if use_fft else dF.conv_transpose2d,
            3: dF.conv_transpose3d_fft if use_fft else dF.conv_transpose3d,
        }
        self.to(device)

    def A(self, x: Tensor, filter: Tensor = None, **kwargs) -> Tensor:
        r"""
        Applies the filter to the input image.

        :param torch.Tensor x: input image.
        :param torch.Tensor filter: Filter :math:`w` to be applied to the input image.
            If not ``None``, it uses this filter instead of the one defined in the class, and
            the provided filter is stored as the current filter.
        :raises ValueError: if the input tensor does not have 4 or 5 dimensions.
        """
        self.update_parameters(filter=filter, **kwargs)

        if self.filter is None:
            raise ValueError("self.filter is None, provide a filter when calling A.")

        dim = (
            x.dim() - 2
        )  # get the spatial dimensions to select the right convolution function
        if dim in [2, 3]:  # either 2D or 3D convolution
            return self.conv[dim](x, filter=self.filter, padding=self.padding)
        else:
            raise ValueError(f"Expected Tensor dimension to be 4 or 5, is {x.dim()}")

    def A_adjoint(self, y: Tensor, filter: Tensor = None, **kwargs) -> Tensor:
        r"""
        Adjoint operator of the blur operator.

        :param torch.Tensor y: blurred image.
        :param torch.Tensor filter: Filter :math:`w` to be applied to the input image.
            If not ``None``, it uses this filter instead of the one defined in the class, and
            the provided filter is stored as the current filter.
        :raises ValueError: if the input tensor does not have 4 or 5 dimensions.
        """
        self.update_parameters(filter=filter, **kwargs)

        if self.filter is None:
            raise ValueError(
                "self.filter is None, provide a filter when calling A_adjoint."
            )

        dim = (
            y.dim() - 2
        )  # get the spatial dimensions to select the right convolution function
        if dim in [2, 3]:  # either 2D or 3D convolution
            return self.conv_transpose[dim](y, filter=self.filter, padding=self.padding)
        else:
            raise ValueError(f"Expected Tensor dimension to be 4 or 5, is {y.dim()}")


class BlurFFT(DecomposablePhysics):
    """

    FFT-based blur operator.

    It performs the operation

    .. math::

        y = w*x

    where :math:`*` denotes convolution and :math:`w` is a filter.

    Blur operator based on ``torch.fft`` operations, which assumes a circular padding of the input, and allows for
    the singular value decomposition via ``deepinv.Physics.DecomposablePhysics`` and has fast pseudo-inverse and prox operators.

    .. warning::
        The FFT computations can lead to small numerical errors, which may result in negative values in the output even when the input is non-negative.
        If used in combination with :class:`deepinv.physics.PoissonNoise`, it is recommended to set ``clip_positive=True`` in the noise model to avoid runtime errors.

    :param tuple img_size: Input image size in the form `(C, H, W)`.
    :param torch.Tensor filter: torch.Tensor of size `(1, c, h, w)` containing the blur filter with h<=H, w<=W and c=1 or c=C e.g.,
        :func:`deepinv.physics.functional.gaussian_blur`. If ``None``, a filter must be passed to the physics before calling it . (default is ``None``)
    :param torch.device, str device: Device on which the physics' buffers will be created. If a buffer is updated via ``physics.update_parameters()``, if not None, it will be automatically casted to the device of the replaced buffer, else, use the device of the provided value. To change the device of all buffers, please use ``physics.to(device)``.

    |sep|

    :Examples:

        BlurFFT operator with a basic averaging filter applied to a 16x16 black image with
        a single white pixel in the center:

        >>> from deepinv.physics import BlurFFT
        >>> x = torch.zeros((1, 1, 16, 16)) # Define black image of size 16x16
        >>> x[:, :, 8, 8] = 1 # Define one white pixel in the middle
        >>> filter = torch.ones((1, 1, 2, 2)) / 4 # Basic 2x2 filter
        >>> physics = BlurFFT(filter=filter, img_size=(1, 16, 16))
        >>> y = physics(x)
        >>> y[y<1e-5] = 0.
        >>> y[:, :, 7:10, 7:10] # Display the center of the blurred image
        tensor([[[[0.2500, 0.2500, 0.0000],
                  [0.2500, 0.2500, 0.0000],
                  [0.0000, 0.0000, 0.0000]]]])
    """

    def __init__(
        self,
        img_size: tuple[int, ...],
        filter: Tensor | None = None,
        device: str | torch.device = "cpu",
        **kwargs,
    ):
        super().__init__(device=device, **kwargs)
        self.img_size = img_size
        assert (
            isinstance(filter, Tensor) or filter is None
        ), f"The filter must be a torch.Tensor or None, got filter of type {type(filter)}."

        filter_parameters = self.get_filter_parameters(
            img_size=img_size, filter=filter, device=device
        )
        self.register_buffer("filter", filter_parameters["filter"])
        self.register_buffer("angle", filter_parameters["angle"])
        self.register_buffer("mask", filter_parameters["mask"])

        self.to(device)

    def A(self, x: Tensor, filter: Tensor | None = None, **kwargs) -> Tensor:

        if self.filter is None and filter is None:
            raise ValueError("self.filter is None, provide a filter when calling A.")

        # updating the parameters is already handled in DecomposablePhysics.A
        return super().A(x, filter=filter)

    def A_adjoint(self, x: Tensor, filter: Tensor | None = None, **kwargs) -> Tensor:

        if self.filter is None and filter is None:
            raise ValueError(
                "self.filter is None, provide a filter when calling A_adjoint."
            )

        # updating the parameters is already handled in DecomposablePhysics.A_adjoint
        return super().A_adjoint(x, filter=filter)

    def V_adjoint(self, x: Tensor) -> Tensor:
        return torch.view_as_real(
            fft.rfft2(x, norm="ortho")
        )  # make it a true SVD (see J. Romberg notes)

    def U(self, x: Tensor) -> Tensor:
        return fft.irfft2(
            torch.view_as_complex(x) * self.angle,
            norm="ortho",
            s=self.img_size[-2:],
        )

    def U_adjoint(self, x: Tensor) -> Tensor:
        return torch.view_as_real(
            fft.rfft2(x, norm="ortho") * torch.conj(self.angle)
        )  # make it a true SVD (see J. Romberg notes)

    def V(self, x: Tensor) -> Tensor:
        return fft.irfft2(torch.view_as_complex(x), norm="ortho", s=self.img_size[-2:])

    @staticmethod
    def get_filter_parameters(
        img_size: tuple[int, ...], filter: Tensor, device: torch.device | str = "cpu"
    ) -> dict[str, torch.Tensor]:
        r"""
        Create filter parameters for BlurFFT operator.

        :param tuple[int] img_size: size of the input image `(C, H, W)`.
        :param torch.Tensor filter: Filter to be applied to the input image.
        :param torch.device, str device: Device where the filter tensor will be created.
        """

        parameters = {}

        if filter is not None and isinstance(filter, Tensor):
            filter = filter.to(device)
            if img_size[0] > filter.shape[1]:
                filter = filter.repeat(1, img_size[0], 1, 1)
            mask = dF.filter_fft(filter, img_size, dims=(-2, -1), real_fft=True)
            angle = torch.angle(mask)
            mask = torch.abs(mask).unsqueeze(-1)
            mask = torch.cat([mask, mask], dim=-1)

            parameters = {
                "filter": filter,
                "angle": torch.exp(1.0j * angle),  # phase: e^{i*angle}
                "mask": mask,
            }
        else:
            parameters["filter"] = None
            parameters["angle"] = None
            parameters["mask"] = None

        return parameters

    def update_parameters(self, filter: Tensor | None = None, **kwargs):
        r"""
        Updates the current filter.

        :param torch.Tensor filter: New filter to be applied to the input image.
        """

        device = None

        # self.filter can be None after initialization
        if self.filter is None:
            if isinstance(filter, Tensor):
                device = filter.device

                # NOTE: to properly handle self._device_holder, which tracks the
                # deprecated self.device property.
                # When self.device is no longer supported, this line can be removed
                # as no "implicit" device will be tied to self when self.filter is None.
                self.to(device)

            # elif filter is None:
            #   `self.get_filter_parameters` will return
            #   parameters with None values
            #   so no update is performed and device is not needed

        elif isinstance(self.filter, Tensor):
            if isinstance(filter, Tensor):
                if self.filter.device != filter.device:
                    warn(
                        "The provided ``filter`` is on a different device than the current filter ``self.filter``. The current underlying self.filter.device={self.filter.device} will be used.",
                        stacklevel=2,
                    )
            device = self.filter.device

        filter_parameters = self.get_filter_parameters(
            img_size=self.img_size, filter=filter, device=device
        )

        # In BlurFFT.A, `update_parameters` is called from DecomposablePhysics.A
        # with mask=None if not specified otherwise by user.
        # Pop "mask" from kwargs if kwargs.get("mask") is None to avoid overwriting
        # filter_parameters["mask"] with None
        if kwargs.get("mask") is None and "mask" in kwargs:
            kwargs.pop("mask")

        super().update_parameters(**filter_parameters)


class SpaceVaryingBlur(LinearPhysics):
    r"""
    Space varying blur via product-convolution.

    If ``mask_first=True`` (default), this linear operator performs

    .. math::

        y = \sum_{k=1}^K h_k \star (w_k \odot x)

    whereas if ``mask_first=False``, the multipliers are applied after the convolutions, i.e.

    .. math::

        y = \sum_{k=1}^K w_k \odot (h_k \star x)

    where :math:`\star` is a convolution, :math:`\odot` is a Hadamard product,  :math:`w_k` are multipliers :math:`h_k` are filters.

    .. tip::

        A comparison between both models can be found in :footcite:t:`denis2011fast`.

    :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size `(B, C, K, h, w)` where
        `B` is the batch size, `C` the number of channels, `K` the number of filters, `h` and `w` the filter height and width which
        should be smaller or equal than the image :math:`x` height and width respectively.
    :param torch.Tensor multipliers: Multipliers :math:`w_k`. Tensor of size `(B, C, K, H, W)` where
        `B` is the batch size, `C` the number of channels, `K` the number of multipliers, `H` and `W` the image :math:`x` height and width.
        If ``mask_first=False`` and ``padding='valid'``, the spatial size of the multipliers should match the size of the
        convolution output instead, i.e. `(B, C, K, H-h+1, W-w+1)`.
    :param str padding: options = ``'valid'``, ``'circular'``, ``'replicate'``, ``'reflect'``.
        If ``padding = 'valid'`` the blurred output is smaller than the image (no padding),
        otherwise the blurred output has the same size as the image.
    :param bool use_fft: whether to use FFT-based convolutions. If ``True``, it uses FFT-based convolutions which can be faster for large kernels.
    :param bool mask_first: whether the multipliers :math:`w_k` are applied before (``True``, default) or after
        (``False``) the convolutions.
    :param torch.device, str device: Device on which the physics' buffers will be created. If a buffer is updated via ``physics.update_parameters()``, if not None, it will be automatically casted to the device of the replaced buffer, else, use the device of the provided value. To change the device of all buffers, please use ``physics.to(device)``.

    |sep|

    :Examples:

        We show how to instantiate a spatially varying blur operator.

        >>> from deepinv.physics.generator import DiffractionBlurGenerator, ProductConvolutionBlurGenerator
        >>> from deepinv.physics.blur import SpaceVaryingBlur
        >>> from deepinv.utils.plotting import plot
        >>> psf_size = 32
        >>> img_size = (256, 256)
        >>> delta = 16
        >>> psf_generator = DiffractionBlurGenerator((psf_size, psf_size))
        >>> pc_generator = ProductConvolutionBlurGenerator(psf_generator=psf_generator, img_size=img_size)
        >>> params_pc = pc_generator.step(1)
        >>> physics = SpaceVaryingBlur(**params_pc)
        >>> dirac_comb = torch.zeros(img_size).unsqueeze(0).unsqueeze(0)
        >>> dirac_comb[0,0,::delta,::delta] = 1
        >>> psf_grid = physics(dirac_comb)
        >>> plot(psf_grid, titles="Space varying impulse responses")

    """

    def __init__(
        self,
        filters: Tensor = None,
        multipliers: Tensor = None,
        padding: str = "valid",
        use_fft: bool = False,
        mask_first: bool = True,
        device: torch.device | str = "cpu",
        **kwargs,
    ):
        super().__init__(device=device, **kwargs)

        self.register_buffer("filters", filters)
        self.register_buffer("multipliers", multipliers)
        self.padding = padding
        self.use_fft = use_fft
        self.mask_first = mask_first
        self.to(device)

    def A(
        self, x: Tensor, filters=None, multipliers=None, padding=None, **kwargs
    ) -> torch.Tensor:
        r"""
        Applies the space varying blur operator to the input image.

        It can receive new parameters  :math:`w_k`, :math:`h_k` and padding to be used in the forward operator, and stored
        as the current parameters.

        :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size (b, c, K, h, w). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`, :math:`h\leq H` and :math:`w\leq W`.
        :param torch.Tensor multipliers: Multipliers :math:`w_k`. Tensor of size (b, c, K, H, W). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`
        :param padding: options = ``'valid'``, ``'circular'``, ``'replicate'``, ``'reflect'``.
            If `padding = 'valid'` the blurred output is smaller than the image (no padding),
            otherwise the blurred output has the same size as the image.
        :param str device: cpu or cuda
        """
        self.update_parameters(filters, multipliers, padding, **kwargs)
        return dF.product_convolution2d(
            x,
            self.multipliers,
            self.filters,
            self.padding,
            use_fft=self.use_fft,
            mask_first=self.mask_first,
        )

    def A_adjoint(
        self,
        y: Tensor,
        filters: Tensor = None,
        multipliers: Tensor = None,
        padding: str = None,
        **kwargs,
    ) -> Tensor:
        r"""
        Applies the adjoint operator.

        It can receive new parameters :math:`w_k`, :math:`h_k` and padding to be used in the forward operator, and stored
        as the current parameters.

        :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size (b, c, K, h, w). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`, :math:`h\leq H` and :math:`w\leq W`.
        :param torch.Tensor multipliers: Multipliers :math:`w_k`. Tensor of size (b, c, K, H, W). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`
        :param str padding: options = ``'valid'``, ``'circular'``, ``'replicate'``, ``'reflect'``.
            If `padding = 'valid'` the blurred output is smaller than the image (no padding),
            otherwise the blurred output has the same size as the image.
        """
        self.update_parameters(
            filters=filters, multipliers=multipliers, padding=padding, **kwargs
        )
        return dF.product_convolution2d_adjoint(
            y,
            self.multipliers,
            self.filters,
            self.padding,
            use_fft=self.use_fft,
            mask_first=self.mask_first,
        )

    def update_parameters(
        self,
        filters: Tensor = None,
        multipliers: Tensor = None,
        padding: str = None,
        **kwargs,
    ):
        r"""
        Updates the current parameters.

        :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size (b, c, K, h, w). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`, :math:`h\leq H` and :math:`w\leq W`.
        :param torch.Tensor multipliers: Multipliers :math:`w_k`. Tensor of size (b, c, K, H, W). :math:`b \in \{1, B\}` and :math:`c \in \{1, C\}`
        :param padding: options = ``'valid'``, ``'circular'``, ``'replicate'``, ``'reflect'``.
        """
        if padding is not None:
            self.padding = padding

        super().update_parameters(filters=filters, multipliers=multipliers, **kwargs)


class TiledSpaceVaryingBlur(TiledMixin2d, LinearPhysics):
    r"""
    Space varying blur via tiled-convolution.

    This forward operator performs the space-varying blur using local convolutions on overlapping patches (tiles) of the image.
    The resulting images is then reconstructed using a smooth blending of the overlapping patches (`blending_mode`).

    Given an input image :math:`x`, this linear operator performs

    .. math::

        y = \sum_{k=1}^K h_k \star (m_k \odot x)

    where :math:`\star` is a convolution, :math:`\odot` is a Hadamard product, :math:`m_k` are binary masks defining the tiles and :math:`h_k` are filters.
    When the size of the image minus `stride` is not perfectly divisible by the `patch_size`, the image is padded with zeros to fit an integer number of patches and the extra padding is removed afterwards automatically.

    The number of patches (tiles) :math:`K` is determined by the `patch_size` and `stride` parameters: it is the product of the number of patches along each spatial dimension.
    A helper class method `num_filters(img_size, patch_size, stride)` is provided to compute the number of filters needed for a given image size, patch size and stride.

    .. note::

        For simplicity, we also provide the generator class :class:`deepinv.physics.generator.TiledBlurGenerator` to generate the filters, for example during training.


    .. note::

        This class supports both FFT-based convolutions and direct convolutions, see :func:`deepinv.physics.functional.conv2d_fft` and :func:`deepinv.physics.functional.conv2d`.
        FFT-based convolutions are typically faster for large filters. This can be selected via the `use_fft` parameter (default: `True`).

    .. note::

        This class supports broadcast between of batch and channel dimensions of the filters and the input image.
        See :func:`deepinv.physics.functional.conv2d` for more details.


    :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size `(B, C, K, h, w)` where
        `B` is the batch size, `C` the number of channels, `K` the number of filters, `h` and `w` the filter height and width which should be smaller or equal than the image :math:`x` height and width respectively.
        If `None`, filters must be provided during the forward pass.
    :param str blending_mode: Blending mode for overlapping patches. Options are `'bump'` (default) and `'linear'`.
    :param int, tuple[int, int] patch_size: Size of the patches (tiles). If `int`, the same size is used for both spatial dimensions.

    |sep|

    .. note::

        This class only supports `'valid'` padding. If you need other padding options, please raise an issue.

    |sep|

    :Examples:

    >>> import torch
    >>> from deepinv.physics import TiledSpaceVaryingBlur
    >>> from deepinv.physics.generator import MotionBlurGenerator, TiledBlurGenerator
    >>> import deepinv as dinv
    >>> img_size = (256, 256)
    >>> patch_size = (64, 64)
    >>> stride = (32, 32)
    >>> x = dinv.utils.load_example(
    ...        "butterfly.png", img_size=img_size, resize_mode="resize"
    ...    )
    >>> psf_generator = MotionBlurGenerator(psf_size=(31, 31))
    >>> generator = TiledBlurGenerator(
    ...     psf_generator=psf_generator,
    ...     patch_size=patch_size,
    ...     stride=stride,
    ... )
    >>> filters = generator.step(batch_size=1, img_size=img_size)["filters"]
    >>> physics = TiledSpaceVaryingBlur(patch_size=patch_size, stride=stride)
    >>> y = physics(x, filters=filters)
    >>> print(x.shape, y.shape)
    torch.Size([1, 3, 256, 256]) torch.Size([1, 3, 226, 226])
    >>> dinv.utils.plot([x, y], titles=["Original", "Blurred"])   # doctest: +SKIP
    """

    def __init__(
        self,
        filters: Tensor = None,
        patch_size: int | tuple[int, int] = None,
        stride: int | tuple[int, int] = None,
        blending_mode: str = "bump",
        use_fft: bool = True,
        device: torch.device | str = "cpu",
        dtype: str | torch.dtype = torch.float32,
        **kwargs,
    ):
        super().__init__(
            patch_size=patch_size, stride=stride, pad_if_needed=True, **kwargs
        )
        # Always use pad_if_needed=True to ensure that the image is padded to fit an integer number of patches, and the extra padding is removed automatically after processing.

        try:
            from einops import rearrange
        except ImportError:
            raise ImportError(
                "einops is required for TiledSpaceVaryingBlur. Please install it via 'pip install einops'."
            )

        self.rearrange = rearrange
        self._dynamic_img_size = None  # To track image size changes
        self._dynamic_psf_size = (
            filters.shape[-2:] if filters is not None else None
        )  # To track psf size changes

        self.use_fft = use_fft
        self.conv2d_fn = dF.conv2d if not use_fft else dF.conv2d_fft
        self.conv2d_adjoint_fn = (
            dF.conv_transpose2d if not use_fft else dF.conv_transpose2d_fft
        )
        self.blending_mode = blending_mode

        self.register_buffer("filters", filters)
        self.register_buffer("multipliers", None)
        self.to(device=device, dtype=dtype)

    def A(self, x: Tensor, filters: Tensor = None, **kwargs) -> torch.Tensor:
        r"""
        Applies the space varying blur operator to the input image.

        :param torch.Tensor x: input image.
        :param torch.Tensor filters: Filters :math:`h_k`.

        :return: torch.Tensor: Space varying blurred image.
        """
        img_size = x.shape[-2:]
        self.update_parameters(filters, img_size=img_size, device=x.device, **kwargs)
        w = self.multipliers  # (B, C, K, H, W)
        h = self.filters  # (B, C, K, h, w)
        h_size = h.shape[-2:]
        pad = self._get_pad(h_size)

        # Extract patches: (B, C, K1, K2, P1, P2)
        patches = self.image_to_patches(x, pad=pad)
        n_rows, n_cols = patches.size(2), patches.size(3)
        if n_rows * n_cols != h.size(2):
            raise ValueError(
                f"The total number of patches must be equal to the number of PSFs, "
                f"got {n_rows * n_cols} and {h.size(2)}"
            )

        # Flatten K1 and K2 to: (B, C, K, P1, P2)
        patches = patches.flatten(2, 3)

        # Pad each patch for local convolution: so that local convolution produce image of same size

        # Apply convolution per patch
        B, C = patches.shape[:2]
        h = dF.convolution._prepare_filter_for_grouped(h, B=B, C=C)
        result = self.conv2d_fn(
            self.rearrange(patches, "b c k h w -> (b k) c h w").contiguous(),
            self.rearrange(h, "b c k h w -> (b k) c h w").contiguous(),
            padding="valid",
        )
        result = self.rearrange(
            result, "(b k) c h w -> b c k h w", b=patches.size(0), k=h.size(2)
        )
        result = result * w

        B, C, K, H, W = result.size()
        result = self.patches_to_image(
            result.view(B, C, n_rows, n_cols, H, W),
            img_size=img_size,
        )
        # Remove pad
        result = self._crop(result, pad)
        return result

    def A_adjoint(
        self,
        y: Tensor,
        filters: Tensor = None,
        **kwargs,
    ) -> Tensor:
        r"""
        Applies the adjoint operator.

        :param torch.Tensor y: blurry image :math:`y`. Tensor of size `(B, C, H', W')`.
        :param torch.Tensor filters: Filters :math:`h_k`. Tensor of size `(b, c, K, h, w)`.

        :return: torch.Tensor: Adjoint result.
        """
        if filters is None:
            filters = self.filters

        # Infer original image size from y and filters, since the padding is 'valid'
        h_size = filters.shape[-2:]
        original_img_size = _add_tuple(y.shape[-2:], _add_tuple(h_size, (-1, -1)))

        self.update_parameters(
            filters=filters,
            img_size=original_img_size,
            device=y.device,
            dtype=y.dtype,
            **kwargs,
        )

        w = self.multipliers  # (B, C, K, H, W)
        h = self.filters  # (B, C, K, h, w)

        # Pad input
        pad = self._get_pad(h_size)
        y = self._pad(y, pad)

        # Extract patches
        patches = self.image_to_patches(y)
        n_rows, n_cols = patches.size(2), patches.size(3)
        if n_rows * n_cols != h.size(2):
            raise ValueError(
                f"The total number of patches must be equal to the number of PSFs, "
                f"got {n_rows * n_cols} and {h.size(2)}"
            )

        # Apply transpose convolution per patch
        patches = patches.flatten(2, 3)
        patches = patches * w
        B, C = patches.shape[:2]
        h = dF.convolution._prepare_filter_for_grouped(h, B=B, C=C)

        result = self.conv2d_adjoint_fn(
            self.rearrange(patches, "b c k h w -> (b k) c h w").contiguous(),
            self.rearrange(h, "b c k h w -> (b k) c h w").contiguous(),
            padding="valid",
        )

        result = self.rearrange(result, "(b k) c h w -> b c k h w", b=B, k=h.size(2))

        # Reconstruct image using overlapping patches
        B, C, _, H, W = result.size()
        result = self.patches_to_image(
            result.view(B, C, n_rows, n_cols, H, W),
        )

        # crop due to padding for convolution
        result = self._crop(result, pad)

        # crop due to padding for fitting integer number of patches
        result = result[..., : original_img_size[-2], : original_img_size[-1]]

        return result

    def update_parameters(
        self,
        filters: Tensor = None,
        img_size: int | tuple[int, int] = None,
        device: torch.device = None,
        dtype: torch.dtype = torch.float32,
        **kwargs,
    ):
        if filters is not None and isinstance(filters, Tensor):
            self.register_buffer("filters", filters.to(device))
            self._dynamic_psf_size = filters.shape[-2:]

        # Only generate multipliers if the image size changed
        if getattr(self, "multipliers", None) is None or (
            img_size is not None and img_size != self._dynamic_img_size
        ):
            multipliers = dF.generate_tiled_multipliers(
                self.get_compatible_img_size(img_size),
                self.patch_size,
                self.stride,
                mode=self.blending_mode,
                device=device,
                dtype=dtype,
            )
            self.register_buffer("multipliers", multipliers)
            self._dynamic_img_size = img_size

        super().update_parameters(**kwargs)

    @staticmethod
    def num_filters(
        img_size: tuple[int, int],
        patch_size: tuple[int, int],
        stride: tuple[int, int] = None,
    ) -> tuple[int, int]:
        r"""
        Computes the number of filters (tiles) required for a given image size, patch size and stride.
        Can be used to determine the required number of filters when instantiating the class.

        :param tuple[int, int] img_size: Image size `(H, W)`.
        :param tuple[int, int] patch_size: Patch size `(h, w)`.
        :param tuple[int, int] stride: Stride size `(sh, sw)`. If `None`, it is set equal to `patch_size // 2` (default).
        :return: Number of filters (tiles) required in each spatial dimension.
        """
        img_size = _as_pair(img_size)
        patch_size, stride = _resolve_tiling_params(patch_size, stride)
        pad = _compute_needed_pad(img_size, patch_size, stride)
        compatible_size = _add_tuple(img_size, pad)
        n_h = (compatible_size[0] - patch_size[0]) // stride[0] + 1
        n_w = (compatible_size[1] - patch_size[1]) // stride[1] + 1

        return n_h, n_w

    @staticmethod
    def _get_pad(filter_size: tuple[int, int]) -> tuple[int, int]:
        r"""
        Computes padding from the filters size: (left, right, top, bottom).
        """
        h, w = filter_size

        left = w // 2
        right = w - left - 1
        top = h // 2
        bottom = h - top - 1
        return (left, right, top, bottom)

    @staticmethod
    def _pad(x: Tensor, pad: tuple[int, int, int, int]) -> Tensor:
        r"""
        Pads the input tensor `x` with padding `pad`, in the order (left, right, top, bottom).
        """
        return F.pad(x, pad=pad, mode="constant", value=0)

    @staticmethod
    def _crop(x: Tensor, pad: tuple[int, int, int, int]) -> Tensor:
        r"""
        Removes padding from the input tensor `x` with padding `pad`, in the order (left, right, top, bottom).
        """
        left, right, top, bottom = pad
        h_slice = slice(top, -bottom if bottom > 0 else None)  # top, bottom
        w_slice = slice(left, -right if right > 0 else None)  # left, right
        return x[..., h_slice, w_slice]


class DownsamplingMatlab(Downsampling):
    """Downsampling with MATLAB imresize

    Downsamples with default MATLAB `imresize`, using a bicubic kernel, antialiasing and reflect padding.

    Wraps `imresize` from a modified version of the `original implementation <https://github.com/sanghyun-son/bicubic_pytorch>`_.

    The adjoint is computed using autograd via :func:`deepinv.physics.adjoint_function`.
    This is because `imresize` with reciprocal of scale is not a correct adjoint.
    Note however the adjoint is quite slow.

    :param int, float factor: downsampling factor
    :param str kernel: MATLAB kernel, supports only `cubic` for bicubic downsampling.
    :param str padding: MATLAB padding type, supports only `reflect` for reflect padding.
    :param bool antialiasing: whether to perform antialiasing in MATLAB downsampling.
        Recommended to set to `True` to match MATLAB.
    :param torch.device, str device: Device on which the physics' buffers will be created. If a buffer is updated via ``physics.update_parameters()``, if not None, it will be automatically casted to the device of the replaced buffer, else, use the device of the provided value. To change the device of all buffers, please use ``physics.to(device)``.
    """

    def __init__(
        self,
        factor: int | float = 2,
        kernel: str = "cubic",
        padding: str = "reflect",
        antialiasing: bool = True,
        device: torch.device | str = "cpu",
        **kwargs,
    ):
        super().__init__(filter=None, factor=factor, device=device, **kwargs)

        self.kernel = kernel
        self.padding = padding
        self.antialiasing = antialiasing

    def A(self, x: Tensor, factor: int | float = None, **kwargs) -> Tensor:
        """Downsample forward operator

        :param torch.Tensor x: input image
        :param int, float factor: downsampling factor. If not `None`, use this factor and store it as current factor.
        """
        self.update_parameters(factor=factor, device=x.device, **kwargs)
        # Clone because of in-place ops
        return dF.imresize_matlab(
            x.clone(),
            scale=1 / self.factor,
            antialiasing=self.antialiasing,
            kernel=self.kernel,
            padding_type=self.padding,
        )

    def A_adjoint(self, y: Tensor, factor: int | float = None, **kwargs) -> Tensor:
        """Downsample adjoint operator via autograd.

        :param torch.Tensor y: input measurement
        :param int, float factor: downsampling factor. If not `None`, use this factor and store it as current factor.
        """
        self.update_parameters(factor=factor, device=y.device, **kwargs)

        adj = adjoint_function(
            self.A,
            (*y.shape[:2], y.shape[-2] * self.factor, y.shape[-1] * self.factor),
            device=y.device,
            dtype=y.dtype,
        )
        return adj(y)


@_deprecated_func_replaced_by(dF.gaussian_blur, redirect=False, since="0.4.1")
def gaussian_blur(
    sigma: float | tuple[float, ...] = (1, 1),
    angle: float = 0,
    device: torch.device | str = "cpu",
) -> Tensor:
    # Match the old signature where gaussian_blur only produces 2D filters
    if isinstance(sigma, (int, float)):
        sigma = (sigma, sigma)
    return dF.gaussian_blur(psf_size=None, sigma=sigma, angle=angle, device=device)


@_deprecated_func_replaced_by(dF.bilinear_filter, redirect=True, since="0.4.1")
def bilinear_filter(
    factor: int = 2, device: torch.device | str = "cpu"
) -> torch.Tensor:
    pass


@_deprecated_func_replaced_by(dF.bicubic_filter, redirect=True, since="0.4.1")
def bicubic_filter(factor: int = 2, device: torch.device | str = "cpu") -> torch.Tensor:
    pass


@_deprecated_func_replaced_by(dF.sinc_filter, redirect=True, since="0.4.1")
def sinc_filter(
    factor: float | torch.Tensor = 2,
    length: int = 11,
    windowed: bool = True,
    device: torch.device | str = "cpu",
) -> torch.Tensor:
    pass


@_deprecated_func_replaced_by(dF.kaiser_window, redirect=True, since="0.4.1")
def kaiser_window(
    beta: float, length: int, device: torch.device | str = "cpu"
) -> torch.Tensor:
    pass
