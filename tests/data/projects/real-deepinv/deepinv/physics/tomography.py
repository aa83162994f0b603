from __future__ import annotations
from typing import Any, Iterable
from types import MappingProxyType
from warnings import warn
import math

from numpy import ndarray
import torch

from deepinv.physics.forward import LinearPhysics, adjoint_function
from deepinv.physics.functional import (
    Radon,
    IRadon,
    RampFilter,
    ApplyRadon,
    XrayTransform,
)

from deepinv.physics.functional.astra import (
    AutogradTransform,
    create_projection_geometry,
    create_object_geometry,
)
from deepinv.utils.decorators import _deprecated_alias


class Tomography(LinearPhysics):
    r"""
    (Computed) Tomography operator.

    The Radon transform is the integral transform which takes a square image :math:`x` defined on the plane to a function
    :math:`y=\forw{x}` defined on the (two-dimensional) space of lines in the plane, whose value at a particular line is equal
    to the line integral of the function over that line.

    .. note::

        The pseudo-inverse is computed using the filtered back-projection algorithm with a Ramp filter.
        This is not the exact linear pseudo-inverse of the Radon transform, but it is a good approximation which is
        robust to noise.

    .. note::

        The measurements are not normalized by the image size, thus the norm of the operator depends on the image size.

    .. note::

        This operator only handles 2D images. For more advanced use-cases, see the :class:`deepinv.physics.TomographyWithAstra` operator which handles 2D and 3D geometries.

    .. warning::

        The adjoint operator has small numerical errors due to interpolation. Set ``adjoint_via_backprop=True`` if you want to use the exact adjoint (computed via autograd).

    .. warning::

        By default, ``normalize`` is set to ``True`` if not specified. Initializing the operator without specifying the normalization behavior will issue a warning. Note that normalizing the operator affects the reconstruction dynamics, which may not always be suitable for real-world applications.

    :param int, torch.Tensor angles: These are the tomography angles. If the type is ``int``, the angles are sampled uniformly between 0 and 360 degrees.
        If the type is :class:`torch.Tensor`, the angles are the ones provided (e.g., ``torch.linspace(0, 180, steps=10)``).
    :param int img_width: width/height of the square image input.
    :param bool circle: If ``True`` both forward and backward projection will be restricted to pixels inside a circle
        inscribed in the square image.
    :param bool parallel_computation: if ``True``, all projections are performed in parallel. Requires more memory but is faster on GPUs.
    :param bool adjoint_via_backprop: if ``True``, the adjoint will be computed via :func:`deepinv.physics.adjoint_function`. Otherwise the inverse Radon transform is used.
        The inverse Radon transform is computationally cheaper (particularly in memory), but has a small adjoint mismatch.
        The backprop adjoint is the exact adjoint, but might break random seeds since it backpropagates through :func:`torch.nn.functional.grid_sample`, see the note `here <https://docs.pytorch.org/docs/stable/generated/torch.nn.functional.grid_sample.html>`_.
    :param bool fbp_interpolate_boundary: the :func:`filtered back-projection <deepinv.physics.Tomography.A_dagger>` usually contains streaking artifacts on the boundary due to padding. For ``fbp_interpolate_boundary=True``
        these artifacts are corrected by cutting off the outer two pixels of the FBP and recovering them by interpolating the remaining image. This option
        only makes sense if ``circle`` is set to ``False``. Hence it will be ignored if ``circle`` is True.
    :param bool normalize: If ``True`` :func:`A <deepinv.physics.Tomography.A>` and :func:`A_adjoint <deepinv.physics.Tomography.A_adjoint>` are normalized so that the operator has unit norm. (default: ``True``)
    :param bool fan_beam: If ``True``, use fan beam geometry, if ``False`` use parallel beam
    :param dict[str, int | float] fan_parameters: Only used if fan_beam is ``True``. Contains the parameters defining the scanning geometry. The dict should contain the keys:

        - "pixel_spacing" defining the distance between two pixels in the image, default: 0.5 / (in_size)

        - "source_radius" distance between the x-ray source and the rotation axis (middle of the image), default: 57.5

        - "detector_radius" distance between the x-ray detector and the rotation axis (middle of the image), default: 57.5

        - "n_detector_pixels" number of pixels of the detector, default: 258

        - "detector_spacing" distance between two pixels on the detector, default: 0.077

        The default values are adapted from the geometry in :footcite:t:`khalil2023hyperspectral`.
        where pixel spacing, source and detector radius and detector spacing are given in cm.
        Note that a to small value of n_detector_pixels*detector_spacing can lead to severe circular artifacts in any reconstruction.
    :param str device: gpu or cpu.

    |sep|

    :Examples:

        Tomography operator with defined angles for 3x3 image:

        >>> from deepinv.physics import Tomography
        >>> seed = torch.manual_seed(0)  # Random seed for reproducibility
        >>> x = torch.randn(1, 1, 4, 4)  # Define random 4x4 image
        >>> angles = torch.linspace(0, 45, steps=3)
        >>> physics = Tomography(angles=angles, img_width=4, circle=True, normalize=False)
        >>> physics(x)
        tensor([[[[ 0.0000, -0.1791, -0.1719],
                  [-0.5713, -0.4521, -0.5177],
                  [ 0.0340,  0.1448,  0.2334],
                  [ 0.0000, -0.0448, -0.0430]]]])

        Tomography operator with 3 uniformly sampled angles in [0, 360] for 3x3 image:

        >>> from deepinv.physics import Tomography
        >>> seed = torch.manual_seed(0)  # Random seed for reproducibility
        >>> x = torch.randn(1, 1, 4, 4)  # Define random 4x4 image
        >>> physics = Tomography(angles=3, img_width=4, circle=True, normalize=False)
        >>> physics(x)
        tensor([[[[ 0.0000, -0.1806,  0.0500],
                  [-0.5713, -0.6076, -0.6815],
                  [ 0.0340,  0.3175,  0.0167],
                  [ 0.0000, -0.0452,  0.0989]]]])


    """

    def __init__(
        self,
        angles: int | Iterable[float],
        img_width: int,
        circle: bool = False,
        parallel_computation: bool = True,
        adjoint_via_backprop: bool = True,
        fbp_interpolate_boundary: bool = False,
        normalize: bool | None = None,
        fan_beam: bool = False,
        fan_parameters: dict[str, int | float] = None,
        device: torch.device | str = torch.device("cpu"),
        dtype: torch.dtype = torch.float,
        **kwargs,
    ):
        super().__init__(device=device, **kwargs)

        if isinstance(angles, int):
            angles = torch.linspace(0, 180, steps=angles + 1, device=device)[:-1].to(
                device
            )
        elif isinstance(angles, (list, tuple, ndarray)):
            angles = torch.tensor(angles).to(device)
        elif not isinstance(angles, torch.Tensor):
            raise ValueError(
                f"angles must be int, float, iterable or Tensor, but got {type(angles)}"
            )

        self.register_buffer("angles", angles)
        self.fan_beam = fan_beam
        self.adjoint_via_backprop = adjoint_via_backprop
        if fan_beam or adjoint_via_backprop:
            self._auto_grad_adjoint_fn = None
            self._auto_grad_adjoint_input_shape = (1, 1, img_width, img_width)
        if circle and fbp_interpolate_boundary:
            # interpolate boundary does not make sense if circle is True
            warn(
                "The argument fbp_interpolate_boundary=True is not applicable if circle=True. The value fbp_interpolate_boundary will be changed to False..."
            )
            fbp_interpolate_boundary = False
        self.fbp_interpolate_boundary = fbp_interpolate_boundary
        self.img_width = img_width
        self.dtype = dtype
        self.radon = Radon(
            img_width,
            angles,
            circle=circle,
            parallel_computation=parallel_computation,
            fan_beam=fan_beam,
            fan_parameters=fan_parameters,
            device=device,
            dtype=dtype,
        ).to(device)
        if not self.fan_beam:
            self.iradon = IRadon(
                img_width,
                angles,
                circle=circle,
                parallel_computation=parallel_computation,
                device=device,
                dtype=dtype,
            ).to(device)
        else:
            self.filter = RampFilter(dtype=dtype)

        if normalize is None:
            warn(
                "The default value of `normalize` is not specified and will be automatically set to `True`. Set `normalize` explicitly to `True` or `False` to avoid this warning.",
            )
            normalize = True

        self.normalize = False
        if normalize:
            operator_norm = self.compute_norm(
                torch.randn(
                    (1, img_width, img_width),
                    generator=torch.Generator(device).manual_seed(0),
                    device=device,
                )[None],
                squared=False,
                verbose=False,
            )
            # NOTE: we need to reset the A_adjoint via backprop to account for the added normalization in A
            self._auto_grad_adjoint_fn = None
            self.register_buffer("operator_norm", operator_norm)
            self.normalize = True

        self.to(device)

    @property
    def theta(self) -> torch.Tensor:
        warn(
            "The attribute `theta` is deprecated and will be removed in a "
            "future version. Use `angles` instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.angles

    @theta.setter
    def theta(self, value: torch.Tensor) -> None:
        warn(
            "The attribute `theta` is deprecated and will be removed in a "
            "future version. Use `angles` instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        self.angles = value

    @theta.deleter
    def theta(self) -> None:
        warn(
            "The attribute `theta` is deprecated and will be removed in a "
            "future version. Use `angles` instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        del self.angles

    def A(self, x: torch.Tensor, **kwargs) -> torch.Tensor:
        """Forward projection.

        :param torch.Tensor x: input of shape [B,C,H,W]
        :return: measurement of shape [B,C,N,A], with A the number of angular positions, and N the number of detector cells.
        """
        if not x.shape[-2:] == (self.img_width, self.img_width):
            raise ValueError(
                f"Input image size {x.shape[-2:]} does not match the operator image size {(self.img_width, self.img_width)}."
            )

        if self.fan_beam or self.adjoint_via_backprop:
            output = self.radon(x)
        else:
            output = ApplyRadon.apply(x, self.radon, self.iradon, False)
        if self.normalize:
            output = output / self.operator_norm

        return output

    def fbp(self, y: torch.Tensor, **kwargs) -> torch.Tensor:
        r"""
        Computes the filtered back-projection (FBP) of the measurements.

        .. tip::

            By default, the FBP reconstruction can display artifacts at the borders. Set ``fbp_interpolate_boundary=True`` to remove them with padding.


        :param torch.Tensor y: measurements of shape [B,C,N,A], with A the number of angular positions, and N the number of detector cells
        :return: filtered back-projection of shape [B,C,H,W]
        """
        if self.fan_beam or self.adjoint_via_backprop:
            if self.fan_beam:
                y = self.filter(y)
            else:
                y = self.iradon.filter(y)
            output = (
                self.A_adjoint(y, **kwargs) * torch.pi / (2 * len(self.radon.theta))
            )
            if self.normalize:
                output = output * self.operator_norm**2
        else:
            y = self.iradon.filter(y)
            output = (
                ApplyRadon.apply(y, self.radon, self.iradon, True)
                * torch.pi
                / (2 * len(self.iradon.theta))
            )
            if self.normalize:
                output = output * self.operator_norm

        if self.fbp_interpolate_boundary:
            output = output[:, :, 2:-2, 2:-2]
            output = torch.nn.functional.pad(output, (2, 2, 2, 2), mode="replicate")
        return output

    def A_dagger(self, y: torch.Tensor, fbp: bool = False, **kwargs) -> torch.Tensor:
        r"""
        Computes the solution in :math:`x` to :math:`y = Ax` using a least squares solver. A faster approximation can be obtained by setting ``fbp=True``, which computes the filtered back-projection of the measurements.

        .. warning::

            The filtered back-projection algorithm is not the exact linear pseudo-inverse of the Radon transform, but it is a good approximation that is robust to noise.

        :param torch.Tensor y: measurements of shape [B,C,N,A], with A the number of angular positions, and N the number of detector cells
        :return: filtered back-projection of shape [B,C,H,W]
        """
        if fbp:
            return self.fbp(y, **kwargs)
        else:
            return super(Tomography, self).A_dagger(y, **kwargs)

    def A_adjoint(self, y: torch.Tensor, **kwargs) -> torch.Tensor:
        r"""
        Computes adjoint of the tomography operator.

        .. warning::

            The default adjoint operator has small numerical errors due to interpolation. Set ``adjoint_via_backprop=True`` if you want to use the exact adjoint (computed via autograd).

        :param torch.Tensor y: measurements of shape [B,C,N,A]
        :return: scaled back-projection of shape [B,C,H,W]
        """
        if self.fan_beam or self.adjoint_via_backprop:
            # lazy implementation for the adjoint
            if (
                self._auto_grad_adjoint_fn is None
                or self._auto_grad_adjoint_input_shape
                != (y.size(0), y.size(1), self.img_width, self.img_width)
            ):
                self._auto_grad_adjoint_fn = adjoint_function(
                    self.A,
                    (y.shape[0], y.shape[1], self.img_width, self.img_width),
                    device=y.device,
                    dtype=self.dtype,
                )
                self._auto_grad_adjoint_input_shape = (
                    y.size(0),
                    y.size(1),
                    self.img_width,
                    self.img_width,
                )

            output = self._auto_grad_adjoint_fn(y)
        else:
            output = ApplyRadon.apply(y, self.radon, self.iradon, True)

            if self.normalize:
                # NOTE: if adjoint_via_backprop = True, the normalization is already done in A.
                output = output / self.operator_norm

        return output


class TomographyWithAstra(LinearPhysics):
    r"""Computed Tomography operator with `astra-toolbox <https://astra-toolbox.com/>`_ backend.
    It is more memory efficient than the :class:`deepinv.physics.Tomography` operator and support 3D geometries.
    See documentation of :class:`deepinv.physics.functional.XrayTransform` for more
    information on the ``astra`` wrapper.

    Mathematically, it is described as a ray transform
    :math:`A` which linearly integrates an object :math:`x` along straight
    lines

    .. math::
        y = \forw{x}

    where :math:`y` is the set of line integrals, called sinogram in 2D, or
    radiographs in 3D. An object is typically scanned using a surrounding circular
    trajectory. Given different acquisition systems, the lines along which
    the integrals are computed follow different geometries:

    * parallel. (2D and 3D)
        Per view, all rays intersecting the object are parallel. In 2D, all rays live on the same plane, perpendicular
        to the axis of rotation.
    * fanbeam. (2D)
        Per view, all rays come from a single source and intersect the object at a certain angle. The detector consists of a 1d line of cells. Similar to
        the 2D "parallel", all rays live on the same plane, perpendicular to the axis of rotation.
    * conebeam. (3D)
        Per view, all rays come from a single source. The detector consists of a 2D grid of cells. Apart from the central plane, the set of rays coming onto
        a line of cells live on a tilted plane.

    .. note::

        The pseudo-inverse is computed using the filtered back-projection
        algorithm with a Ramp filter, and its equivalent for conebeam 3D, the
        Feldkamp-Davis-Kress algorithm. This is not the exact linear pseudo-inverse
        of the Ray Transform, but it is a good approximation which is robust to noise.

    .. note::

        In the default configuration, reconstruction cells and detector cells are
        set to have isotropic unit lengths. The geometry is set to 2D parallel
        and matches the default configuration of the :class:`deepinv.physics.Tomography` operator with
        ``circle=False``.

    .. note::

        When the acquisition geometry is already described by ``astra`` geometry objects,
        the operator can be built directly from them with :func:`from_astra_geometry
        <deepinv.physics.TomographyWithAstra.from_astra_geometry>`.

    .. warning::

        By default, ``normalize`` is set to ``True`` if not specified. Initializing the operator without specifying the normalization behavior will issue a warning. Note that normalizing the operator affects the reconstruction dynamics, which may not always be suitable for real-world applications.

    .. warning::

        Due to computational efficiency reasons, the projector and backprojector
        implemented in ``astra`` are not matched. The projector is typically ray-driven,
        while the backprojector is pixel-driven. The adjoint of the forward Ray Transform
        is approximated by rescaling the backprojector.

    .. warning::

        The :class:`deepinv.physics.functional.XrayTransform` used in :class:`deepinv.physics.TomographyWithAstra` sequentially processes batch elements, which can make the 2D parallel beam operator significantly slower than its native torch counterpart with :class:`deepinv.physics.Tomography` (though still more memory-efficient).

    :param tuple[int, ...], None img_size: Shape of the object grid, either a 2 or 3-element tuple, for respectively 2D or 3D. If ``None``, ``object_geometry`` and ``is_2d`` must be specified.
    :param int angles: Number of angular positions sampled uniformly in ``angular_range`` or a Tensor containing angular positions in degrees. (default: 180)
    :param int | tuple[int, ...], None n_detector_pixels: In 2D, specify an integer for a single line of detector cells. In 3D, specify a 2-element tuple for (row,col) shape of the detector.  If ``None`` and ``projection_geometry`` is specified, ``is_2d`` must be specified. (default: None)
    :param tuple[float, float] angular_range: Angular range, defaults to ``(0, 180)``.
    :param float | tuple[float, float] detector_spacing: In 2D the width of a detector cell. In 3D a 2-element tuple specifying the (vertical, horizontal) dimensions of a detector cell. (default: 1.0)
    :param float | tuple[float, ...] pixel_spacing: In 2D, the (x,y) dimensions of a pixel in the reconstructed image. In 3D, the (x,y,z) dimensions of a voxel. Scalar value is interpreted as the same dimension along all axes (default: 1.0)
    :param tuple[float, ...], None bounding_box: Axis-aligned bounding-box of the reconstruction area [min_x, max_x, min_y, max_y, ...]. Optional argument, if specified, overrides argument ``object_spacing``. (default: None)
    :param str geometry_type: The type of geometry among ``'parallel'``, ``'fanbeam'`` in 2D and ``'parallel'`` and ``'conebeam'`` in 3D. (default: ``'parallel'``)
    :param dict[str, float] geometry_parameters: Contains extra parameters specific to certain geometries. When ``geometry_type='fanbeam'`` or  ``'conebeam'``, the dictionary should contains the keys

        - ``"source_radius"``: the distance between the x-ray source and the rotation axis, denoted :math:`D_{s0}`, (default: 80.),

        - ``"detector_radius"``: the distance between the x-ray detector and the rotation axis, denoted :math:`D_{0d}`. (default: 20.)

    :param torch.Tensor, None geometry_vectors: Alternative way to describe a 3D geometry. It is a torch.Tensor of shape [num_angles, 12], where for each angular position of index ``i`` the row consists of a vector of size (12,) with

        - ``(sx, sy, sz)``: the position of the source,

        - ``(dx, dy, dz)``: the center of the detector,

        - ``(ux, uy, uz)``: the horizontal unit vector of the detector,

        - ``(vx, vy, vz)``: the vertical unit vector of the detector.

        When specified, ``geometry_vectors`` overrides ``detector_spacing``, ``angles`` and ``geometry_parameters``. It is particularly useful to build the geometry for the `Walnut-CBCT dataset <https://zenodo.org/records/2686726>`_, where the acquisition parameters are provided via such vectors.
    :param dict, None object_geometry: Pre-created ``astra`` volume geometry, as returned by ``astra.create_vol_geom``. If specified, overrides ``img_size``, ``pixel_spacing`` and ``bounding_box``.
    :param dict, None projection_geometry: Pre-created ``astra`` projection geometry, as returned by ``astra.create_proj_geom``. If specified, overrides ``angles``, ``n_detector_pixels``, and ``geometry_parameters``.
    :param bool is_2d: If ``True``, the operator is 2D, otherwise it is 3D. If ``object_geometry`` and ``projection_geometry`` are not specified, this argument is ignored and inferred from the ``img_size`` argument.
    :param bool normalize: If ``True`` :func:`A` and :func:`A_adjoint` are normalized so that the operator has unit norm. (default: ``True``)
    :param torch.device | str device: The operator only supports CUDA computation. (default: ``torch.device('cuda')``)

    |sep|

    :Examples:

        Tomography operator with a 2D ``'fanbeam'`` geometry, 10 uniformly sampled angles in ``[0, 360]``, a detector line of 5 cells with length 2., a source-radius of 20.0 and a detector_radius of 20.0 for 5x5 image:

        .. doctest::

            >>> import torch
            >>> if torch.cuda.is_available():
            ...     from deepinv.physics import TomographyWithAstra
            ...     x = torch.randn(1, 1, 5, 5, device='cuda') # Define random 5x5 image
            ...     physics = TomographyWithAstra(
            ...             img_size=(5,5),
            ...             angles=10,
            ...             angular_range=(0, 360),
            ...             n_detector_pixels=5,
            ...             detector_spacing=2.0,
            ...             geometry_type='fanbeam',
            ...             geometry_parameters={
            ...                 'source_radius': 20.,
            ...                 'detector_radius': 20.
            ...             },
            ...             normalize=False
            ...     )
            ...     sinogram = physics(x)
            ...     print(sinogram.shape)
            ... else:
            ...     print(torch.Size([1, 1, 10, 5]))
            torch.Size([1, 1, 10, 5])

        Tomography operator with a 3D ``'conebeam'`` geometry, 10 uniformly sampled angles in ``[0, 360]``, a detector grid of 5x5 cells of size (2.,2.), a source-radius of 20.0 and a detector_radius of 20.0 for a 5x5x5 volume:

        .. doctest::

            >>> if torch.cuda.is_available():
            ...     x = torch.randn(1, 1, 5, 5, 5, device='cuda')  # Define random 5x5x5 volume
            ...     angles = torch.linspace(0, 360, steps=4)[:-1]
            ...     physics = TomographyWithAstra(
            ...            img_size=(5,5,5),
            ...            angles = angles,
            ...            n_detector_pixels=(5,5),
            ...            pixel_spacing=(1.0,1.0,1.0),
            ...            detector_spacing=(2.0,2.0),
            ...            geometry_type='conebeam',
            ...            geometry_parameters={
            ...                 'source_radius': 20.,
            ...                 'detector_radius': 20.
            ...            },
            ...            normalize=False
            ...     )
            ...     sinogram = physics(x)
            ...     print(sinogram.shape)
            ... else:
            ...     print(torch.Size([1, 1, 5, 3, 5]))
            torch.Size([1, 1, 5, 3, 5])


    .. note::

        This class requires the ``astra-toolbox`` package to be installed. Install with ``pip install astra-toolbox``.
    """

    @_deprecated_alias(
        num_angles="angles",
        num_detectors="n_detector_pixels",
        object_spacing="pixel_spacing",
    )
    def __init__(
        self,
        img_size: tuple[int, ...] = None,
        angles: int | torch.Tensor = 180,
        n_detector_pixels: int | tuple[int, ...] | None = None,
        angular_range: tuple[float, float] = (0, 180),
        detector_spacing: float | tuple[float, float] = 1.0,
        pixel_spacing: float | tuple[float, ...] = 1.0,
        bounding_box: tuple[float, ...] | None = None,
        geometry_type: str = "parallel",
        geometry_parameters: dict[str, float] = MappingProxyType(
            {
                "source_radius": 80.0,
                "detector_radius": 20.0,
            }
        ),
        geometry_vectors: torch.Tensor | None = None,
        object_geometry: dict[str, Any] | None = None,
        projection_geometry: dict[str, Any] | None = None,
        is_2d: bool | None = None,
        normalize: bool | None = None,
        device: torch.device | str = torch.device("cuda"),
        **kwargs,
    ):
        super().__init__(device=device, **kwargs)

        if isinstance(geometry_parameters, MappingProxyType):
            geometry_parameters = geometry_parameters.copy()

        if img_size is None:
            if object_geometry is None or is_2d is None:
                raise ValueError(
                    "When img_size is None, object_geometry and is_2d must be specified."
                )

            img_size = (
                (object_geometry["GridRowCount"], object_geometry["GridColCount"])
                if is_2d
                else (
                    object_geometry["GridSliceCount"],
                    object_geometry["GridRowCount"],
                    object_geometry["GridColCount"],
                )
            )

        if n_detector_pixels is None and projection_geometry is not None:
            if is_2d is None:
                raise ValueError(
                    "When n_detector_pixels is None and projection_geometry is specified, is_2d must be specified."
                )

            n_detector_pixels = (
                projection_geometry["DetectorColCount"]
                if is_2d
                else (
                    projection_geometry["DetectorRowCount"],
                    projection_geometry["DetectorColCount"],
                )
            )
            geometry_parameters = (
                {
                    "source_radius": projection_geometry["DistanceOriginSource"],
                    "detector_radius": projection_geometry["DistanceOriginDetector"],
                }
                if "DistanceOriginSource" in projection_geometry
                else None
            )

        assert len(img_size) in (
            2,
            3,
        ), f"len(img_size) is {len(img_size)}, must be either 2 or 3 (for 2D and 3D respectively)"

        if torch.device(device).type != "cuda":
            warn(
                f"TomographyWithAstra only supports CUDA Tensors and CUDA operations, got device={device}",
                RuntimeWarning,
            )

        self.img_size = img_size
        self.is_2d = len(img_size) == 2
        self.n_detector_pixels = (
            math.ceil(math.sqrt(2) * img_size[0])
            if n_detector_pixels is None
            else n_detector_pixels
        )
        self.geometry_parameters = (
            None if geometry_parameters is None else dict(geometry_parameters)
        )

        if isinstance(angles, int):
            angles = torch.linspace(*angular_range, steps=angles + 1)[:-1]

        if self.is_2d:
            n_rows, n_cols = img_size
            n_slices = 1
        else:
            n_slices, n_rows, n_cols = img_size

        self.object_geometry = (
            create_object_geometry(
                n_rows=n_rows,
                n_cols=n_cols,
                n_slices=n_slices,
                bounding_box=bounding_box,
                pixel_spacing=pixel_spacing,
                is_2d=self.is_2d,
            )
            if object_geometry is None
            else object_geometry
        )

        self.projection_geometry = (
            create_projection_geometry(
                geometry_type=geometry_type,
                detector_spacing=detector_spacing,
                n_detector_pixels=self.n_detector_pixels,
                angles=angles,
                is_2d=self.is_2d,
                geometry_parameters=geometry_parameters,
                geometry_vectors=geometry_vectors,
            )
            if projection_geometry is None
            else projection_geometry
        )

        self.xray_transform = XrayTransform(
            object_geometry=self.object_geometry,
            projection_geometry=self.projection_geometry,
            is_2d=self.is_2d,
        )

        self.filter = RampFilter(dtype=torch.float32)

        if normalize is None:
            warn(
                "The default value of `normalize` is not specified and will be automatically set to `True`. Set `normalize` explicitly to `True` or `False` to avoid this warning.",
            )
            normalize = True

        self.normalize = False
        if normalize:
            self.register_buffer(
                "operator_norm",
                self.compute_norm(
                    torch.randn(
                        self.img_size,
                        generator=torch.Generator(device).manual_seed(0),
                        device=device,
                    )[None, None],
                    squared=False,
                ),
            )
            self.normalize = True

        self.to(device)

    @classmethod
    def from_astra_geometry(
        cls,
        object_geometry: dict[str, Any],
        projection_geometry: dict[str, Any],
        is_2d: bool,
        normalize: bool | None = None,
        device: torch.device | str = torch.device("cuda"),
        **kwargs,
    ) -> TomographyWithAstra:
        r"""Build the operator from pre-created ``astra`` geometries.

        Alternative constructor for the cases where ``astra`` geometries are already available.

        .. note::

            Both geometries must be 3D, even for a 2D acquisition.
            For 2D, use one slice and set `is_2d=True`.


        :param dict object_geometry: An ``astra`` volume geometry, as returned by ``astra.create_vol_geom``.
        :param dict projection_geometry: An ``astra`` projection geometry, as returned by ``astra.create_proj_geom``.
        :param bool is_2d: Whether the geometries describe a 2D slice or a 3D volume.
        :param bool normalize: If ``True`` :func:`A` and :func:`A_adjoint` are normalized so that the operator has unit norm. (default: ``True``)
        :param torch.device | str device: The operator only supports CUDA computation. (default: ``torch.device('cuda')``)
        :return: (:class:`deepinv.physics.TomographyWithAstra`) the tomography operator.
        """

        if is_2d and (
            object_geometry["GridSliceCount"] != 1
            or projection_geometry["DetectorRowCount"] != 1
        ):
            raise ValueError(
                "`is_2d=True` but `object_geometry` has "
                f"{object_geometry['GridSliceCount']} slices and `projection_geometry` has "
                f"{projection_geometry['DetectorRowCount']} detector rows, which must both "
                "be 1. Use `is_2d=False` instead."
            )

        return cls(
            object_geometry=object_geometry,
            projection_geometry=projection_geometry,
            is_2d=is_2d,
            normalize=normalize,
            device=device,
            **kwargs,
        )

    @property
    def measurement_shape(self) -> tuple[int, ...]:
        if self.is_2d:
            return self.xray_transform.range_shape[1:]
        else:
            return self.xray_transform.range_shape

    @property
    def geometry_type(self) -> str:
        """The geometry type represented by the X-ray transform."""
        geometry_type = self.xray_transform.projection_geometry["type"]
        if geometry_type.startswith("parallel"):
            return "parallel"
        return "fanbeam" if self.is_2d else "conebeam"

    @property
    def detector_spacing(self) -> float | tuple[float, float]:
        """The detector-cell spacing represented by the X-ray transform."""
        if self.is_2d:
            return self.xray_transform.detector_cell_u_length
        return (
            self.xray_transform.detector_cell_v_length,
            self.xray_transform.detector_cell_u_length,
        )

    @property
    def pixel_spacing(self) -> tuple[float, ...]:
        """The reconstruction-cell spacing represented by the X-ray transform."""
        geometry = self.xray_transform.object_geometry
        spacing = (
            (geometry["option"]["WindowMaxX"] - geometry["option"]["WindowMinX"])
            / geometry["GridColCount"],
            (geometry["option"]["WindowMaxY"] - geometry["option"]["WindowMinY"])
            / geometry["GridRowCount"],
        )
        if self.is_2d:
            return spacing
        return spacing + (
            (geometry["option"]["WindowMaxZ"] - geometry["option"]["WindowMinZ"])
            / geometry["GridSliceCount"],
        )

    @property
    def bounding_box(self) -> tuple[float, ...]:
        """The reconstruction bounding box represented by the X-ray transform."""
        geometry = self.xray_transform.object_geometry["option"]
        bounding_box = (
            geometry["WindowMinX"],
            geometry["WindowMaxX"],
            geometry["WindowMinY"],
            geometry["WindowMaxY"],
        )
        if self.is_2d:
            return bounding_box
        return bounding_box + (geometry["WindowMinZ"], geometry["WindowMaxZ"])

    @property
    def angular_range(self) -> tuple[float, float] | None:
        """The angular range represented by the X-ray transform in degrees."""
        angles = self.angles
        if angles is None:
            return None
        return (angles.min().item(), angles.max().item())

    @property
    def num_angles(self) -> int:
        return self.xray_transform.range_shape[1]

    @property
    def angles(self) -> torch.Tensor | None:
        """Astra projection geometry angles tensor in degrees, or ``None`` for vector geometries."""

        # The type ends with "_vec" for vector-based geometries
        if "vec" in self.projection_geometry["type"]:
            return None
        return -torch.rad2deg(
            torch.as_tensor(
                self.projection_geometry["ProjectionAngles"], device=self.device
            )
        )

    @property
    def geometry_vectors(self) -> torch.Tensor | None:
        """Astra projection geometry vectors, or ``None`` for angle geometries."""
        if "vec" not in self.projection_geometry["type"]:
            return None
        return torch.as_tensor(self.projection_geometry["Vectors"], device=self.device)

    def fbp_weighting(self, sinogram: torch.Tensor) -> torch.Tensor:
        r"""Scales the computation by the inverse number of views and
        object-to-detector cell ratio.

        In conebeam 3D, compute FDK weights to correct inflated distances due to
        tilted rays. Given coordinate :math:`(x,y)`  of a detector cell, the corresponding
        weight is :math:`\omega(x,y) = \frac{D_{s0}}{\sqrt{D_{sd}^2 + x^2 + y^2}}`.

        :param torch.Tensor sinogram: Sinogram of shape [B,C,...,A,N].
        :return: Weighted sinogram.
        """
        import astra

        sinogram_scaled = torch.clone(sinogram)
        is_3d = len(sinogram.shape) == 5

        if self.geometry_type == "conebeam" and is_3d:
            # dimensions (V,N) are (row,col) of the 2D detector
            # A is the number of angles
            B, C, V, A, N = sinogram.shape

            # vecs.shape = (num_angles, 12) with
            # (sx, sy, sz, dx, dy, dz, ux, uy, uz, vx, vy, vz) coordinates
            # - (sx, sy, sz) is the position of the source
            # - (dx, dy, dz) is the center of the detector
            # - (ux, uy, uz) is the horizontal unit vector of the detector
            # - (vx, vy, vz) is the vertical unit vector of the detector
            vecs = torch.from_numpy(
                astra.geom_2vec(self.projection_geometry)["Vectors"]
            )

            source_object_distance = torch.linalg.norm(
                vecs[:, [0, 1, 2]], axis=1, keepdims=False
            )

            v_range = torch.arange(V, dtype=torch.float64) - (V - 1) / 2
            u_range = torch.arange(N, dtype=torch.float64) - (N - 1) / 2

            v_grid, u_grid = torch.meshgrid(v_range, u_range, indexing="ij")
            weights = torch.ones((V, N), dtype=torch.float, device=sinogram.device)
            for i in range(A):
                source_position = vecs[i, [0, 1, 2]]
                detector_center_position = vecs[i, [3, 4, 5]]

                u_basis = vecs[i, [6, 7, 8]]
                v_basis = vecs[i, [9, 10, 11]]

                detector_pixel_positions = (
                    u_grid[..., None] * u_basis
                    + v_grid[..., None] * v_basis
                    + detector_center_position
                )

                pixel_ray_lengths = torch.linalg.norm(
                    detector_pixel_positions - source_position, dim=-1
                )

                weights[:] = source_object_distance[i] / pixel_ray_lengths

                sinogram_scaled[:, :, :, i, :] *= weights

        sinogram_scaled *= self.xray_transform.detector_cell_v_length
        sinogram_scaled /= self.xray_transform.object_cell_volume
        sinogram_scaled *= torch.pi / (2 * self.num_angles)

        return sinogram_scaled

    def A(self, x: torch.Tensor, **kwargs) -> torch.Tensor:
        """Forward projection.

        In 2D, the output is a sinogram of shape [B,C,A,N],
        with A the number of angular positions, and N the number of detector cells.
        In 3D, the output is a stack of sinograms of shape [B,C,V,A,N], with A the
        number of angular positions, and (V,N) the shape of the 2D detector grid,
        where V is the number of rows of the detector and N the number of columns.
        :param torch.Tensor x: input of shape [B,C,...,H,W]
        :return: projection of shape [B,C,...,A,N]
        """
        out = AutogradTransform.apply(x, self.xray_transform)
        if self.normalize:
            out /= self.operator_norm

        return out

    def fbp(self, y: torch.Tensor, **kwargs) -> torch.Tensor:
        filtered_y = self.filter(y, dim=-1)
        out = self.A_adjoint(self.fbp_weighting(filtered_y))
        if self.normalize:
            out *= self.operator_norm**2

        return out

    def A_dagger(self, y: torch.Tensor, fbp: bool = False, **kwargs) -> torch.Tensor:
        r"""
        Computes the solution in :math:`x` to :math:`y = Ax` using a least squares solver. A faster approximation can be obtained by setting ``fbp=True``, which computes the filtered back-projection of the measurements, or the Feldkamp-Davis-Kress algorithm (FDK) in cone-beam 3D.

        .. warning::

            The filtered back-projection algorithm is not the exact linear pseudo-inverse of the Radon transform, but it is a good approximation that is robust to noise.

        :param torch.Tensor y: input of shape [B,C,...,A,N]
        :return: filtered back-projection of shape [B,C,...,H,W]
        """

        if fbp:
            return self.fbp(y, **kwargs)
        else:
            return super(TomographyWithAstra, self).A_dagger(y, **kwargs)

    def A_adjoint(self, y: torch.Tensor, **kwargs) -> torch.Tensor:
        """Approximation of the adjoint.

        In 2D, expected input is a sinogram of
        shape [B,C,A,N], with A the number of angular positions, and N the number
        of detector cells. In 3D, expected input is a stack of sinograms of shape [B,C,V,A,N],
        with A the number of angular positions, and (V,N) the shape of the 2D detector grid,
        where V is the number of rows of the detector and N the number of columns.

        :param torch.Tensor y: input of shape [B,C,...,A,N]
        :return: scaled back-projection of shape [B,C,...,H,W]
        """
        out = AutogradTransform.apply(y, self.xray_transform.T)
        if self.normalize:
            out /= self.operator_norm

        return out
