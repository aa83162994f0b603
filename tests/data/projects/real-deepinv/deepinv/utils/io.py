from __future__ import annotations
from typing import Callable, Iterator, TYPE_CHECKING
from pathlib import Path
from warnings import warn
from io import BytesIO
import os
import requests
import numpy as np
from numpy.lib.format import open_memmap
import torch
from deepinv.utils.mixins import MRIMixin
from urllib.parse import urlparse

if TYPE_CHECKING:
    import nibabel as nib
    import blosc2


def load_np(
    fname: str | Path,
    as_memmap: bool = False,
    dtype: np.dtype | str = np.float32,
    **kwargs,
) -> torch.Tensor | np.ndarray:
    """Load numpy array from file as torch tensor.

    :param str, pathlib.Path fname: file to load.
    :param bool, as_memmap: open this file as a memmap, which does not load the entire array into memory. This is useful when extracting patches from large arrays or to quickly infer dtype and shape.
    :param numpy.dtype, str dtype: data type to use when loading the numpy array. This is ignored if `as_memmap` is `True`.
    :return: :class:`torch.Tensor` containing loaded numpy array. If `as_memmap` is `True`, returns a numpy `memmap` object instead.
    """
    if as_memmap:
        return open_memmap(fname)
    else:
        return torch.from_numpy(np.load(fname, allow_pickle=False).astype(dtype))


def load_tiff(fname: str | Path, dtype: torch.dtype | None = None) -> torch.Tensor:
    """Load image or volume from a TIFF file as a torch tensor.

    Integer images are normalized to the range ``[0, 1]`` by dividing by the
    maximum value representable by their dtype; floating point images are
    cast as-is (values are preserved, but the dtype is recast to float64).
    2D images of shape `(H, W)` are loaded with a single channel,
    and 3D arrays of shape `(H, W, C)` are converted to channel-first `(C, H, W)`.
    In both cases a leading batch dimension is added.

    .. warning::
        Requires `tifffile` to be installed. Install it with `pip install tifffile`.

    :param str, pathlib.Path fname: path to TIFF file or buffer.
    :param torch.dtype dtype: if not ``None``, cast the output tensor to this dtype. If ``None``
        (default), the tensor is returned as ``torch.float64`` regardless of the TIFF's
        original dtype (e.g. a ``float32`` TIFF is upcast); pass ``dtype=torch.float32``
        to match the dtype commonly used in the library and PyTorch.
    :return: :class:`torch.Tensor` of shape `(1, C, H, W)` and dtype ``torch.float64`` unless
        `dtype` is specified.
    """
    try:
        import tifffile
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_tiff requires tifffile, which is not installed. Please install it with `pip install tifffile`."
        )

    x = tifffile.imread(fname)
    if x.dtype == np.uintc:
        x = x.astype(np.uint32)

    if np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float64) / np.iinfo(x.dtype).max
    else:
        x = x.astype(np.float64)  # already float, just cast

    x = torch.from_numpy(x)
    if x.ndim == 2:
        x = x.unsqueeze(0)  # (H, W) -> (1, H, W)
    elif x.ndim == 3:
        x = x.moveaxis(-1, 0)  # (H, W, C) -> (C, H, W)
    else:
        raise ValueError("Invalid tiff.")
    x = x.unsqueeze(0)  # add batch dim -> (1, C, H, W)

    return x if dtype is None else x.to(dtype)


def load_raw(
    fname: str | Path,
    dtype: torch.dtype = torch.float32,
    **kwargs,
) -> tuple[torch.Tensor, dict]:
    r"""Loads any RAW image file as a torch tensor along with a metadata dictionary.

    Reads any proprietary raw files supported by `LibRaw <https://www.libraw.org>`
    using `rawpy` (ie ``.arw``, ``.cr2``/``.cr3``, ``.nef``, ``.raf``,
    ``.orf``, ``.rw2``,``.pef``, ``.srw``,``.dng``...).
    Returns the sensor image as a tensor of shape `(1, 1, H, W)`
    along with a dict of ISP metadata.



    .. note::
        Only :math:`2\times 2` Bayer sensors are supported for now; non-Bayer CFAs
        (e.g. X-Trans) will raise an error.

    .. warning::
        Requires `rawpy` to be installed. Install it with `pip install rawpy`.

    :param str, pathlib.Path fname: path to the raw file.
    :param torch.dtype dtype: dtype of the returned tensor.
    :return: tuple ``(y, meta)`` where ``y`` is a :class:`torch.Tensor`
        of shape `(1, 1, H, W)` and ``meta`` is a ``dict`` of ISP metadata
        with keys ``cfa_pattern``, ``cfa_colors``, ``color_description``,
        ``num_colors``, ``black_level_per_channel``,
        ``camera_white_level_per_channel``, ``camera_whitebalance``,
        ``daylight_whitebalance``, ``color_matrix``, ``rgb_xyz_matrix``,
        ``tone_curve``, ``raw_shape``, ``visible_shape``, ``crop_margins``,
        ``pixel_aspect``, ``flip`` and ``raw_type``.
    """
    try:
        import rawpy
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_raw requires rawpy, which is not installed. Please install it with `pip install rawpy`."
        )

    with rawpy.imread(str(fname)) as raw:
        pattern = np.asarray(raw.raw_pattern)
        if pattern.shape != (2, 2):
            raise ValueError(
                "load_raw only supports 2x2 Bayer CFA sensors for now, but got a "
                f"raw_pattern of shape {tuple(pattern.shape)}."
            )
        ph, pw = pattern.shape

        # trim visible sensor area so CFA tiles it evenly
        x = raw.raw_image_visible
        h, w = x.shape
        x = x[: h - h % ph, : w - w % pw]

        x = np.ascontiguousarray(x, dtype=np.int32)
        x = torch.from_numpy(x).to(dtype)[None, None]

        color_desc = raw.color_desc.decode()
        black_pc = list(raw.black_level_per_channel)

        white_pc = getattr(raw, "camera_white_level_per_channel", None)
        if not white_pc or all(v == 0 for v in white_pc):
            white_pc = [int(raw.white_level)] * len(black_pc)

        sizes = raw.sizes
        meta = {
            "cfa_pattern": pattern,
            "cfa_colors": [
                [color_desc[int(pattern[i, j])] for j in range(pw)] for i in range(ph)
            ],
            "color_description": color_desc,
            "num_colors": int(raw.num_colors),
            "black_level_per_channel": black_pc,
            "camera_white_level_per_channel": list(white_pc),
            "camera_whitebalance": list(raw.camera_whitebalance),
            "daylight_whitebalance": list(raw.daylight_whitebalance),
            "color_matrix": np.asarray(raw.color_matrix, dtype=np.float64),
            "rgb_xyz_matrix": np.asarray(raw.rgb_xyz_matrix, dtype=np.float64),
            "tone_curve": np.asarray(raw.tone_curve),
            "raw_shape": (sizes.raw_height, sizes.raw_width),
            "visible_shape": (sizes.height, sizes.width),
            "crop_margins": (sizes.top_margin, sizes.left_margin),
            "pixel_aspect": float(sizes.pixel_aspect),
            "flip": int(sizes.flip),
            "raw_type": raw.raw_type.name,
        }

    return x, meta


def load_torch(
    fname: str | Path, device: torch.device | str = None, **kwargs
) -> torch.Tensor:
    """Load torch tensor from file.

    :param str, pathlib.Path fname: file to load.
    :param torch.device, str device: device to load onto.
    :return: :class:`torch.Tensor` containing loaded torch tensor.
    """
    return torch.load(fname, weights_only=True, map_location=device)


def get_cache_home() -> Path:
    """Return a folder to store deepinv cache (datasets, models, etc.).

    This folder can be specified by setting the environment variable ``DEEPINV_CACHE_DIR``.
    If ``DEEPINV_CACHE_DIR`` is not set, this defaults to ``XDG_CACHE_HOME/deepinv`` if the environment variable ``XDG_CACHE_HOME`` is set, otherwise to ``~/.cache/deepinv``.

    :return: pathlib Path for cache dir
    """

    cache_dir = os.environ.get("DEEPINV_CACHE_DIR", None)

    if cache_dir is not None:
        path = Path(cache_dir)
    else:
        xdg_cache_home = os.environ.get("XDG_CACHE_HOME", None)
        if xdg_cache_home is not None:
            path = Path(xdg_cache_home) / "deepinv"
        else:
            path = Path.home() / ".cache" / "deepinv"

    path.mkdir(parents=True, exist_ok=True)
    return path


class DownloadError(requests.exceptions.RequestException):
    r"""Raised when a network download initiated by deepinv fails.

    Wraps any underlying network error (HTTP status, connection failure,
    SSL error, DNS failure, timeout, …) so that callers — and the test
    suite in particular — can detect download failures with a single
    ``except DownloadError:`` rather than enumerating every exception
    type that the network stack may raise. The original exception is
    chained via ``__cause__``.

    Inherits from :class:`requests.exceptions.RequestException` (and
    transitively from `IOError`) so existing handlers that catch
    those broader types keep working.
    """


def load_url(url: str, **kwargs) -> BytesIO:
    """Load URL to a buffer.

    This can be used as the argument for other IO functions such as
    :func:`deepinv.utils.load_torch`, :func:`deepinv.utils.load_np` etc.
    to load data directly from a URL.

    Downloaded content is cached under :func:`deepinv.utils.get_cache_home`
    so repeated calls for the same URL do not hit the network again. The
    cache layout mirrors the URL: a file fetched from
    ``https://huggingface.co/datasets/deepinv/images/resolve/main/celeba_example.jpg``
    is stored at
    ``<cache_home>/url_cache/huggingface.co/datasets/deepinv/images/resolve/main/celeba_example.jpg``.
    Two URLs that differ only in their query string share the same cache
    entry — fine for the ``?download=true`` query used by HuggingFace.

    The HTTP request uses a ``(connect, read)`` timeout of
    ``(10, 60)`` seconds; a hung connection or stalled stream raises a
    :class:`deepinv.utils.DownloadError` rather than blocking indefinitely.

    :param str url: URL of the file to load
    :return: `BytesIO` buffer.
    :raises deepinv.utils.DownloadError: if the file cannot be downloaded.
    """
    cache_home = get_cache_home()
    cache_dir = cache_home / "url_cache"
    cache_path = _get_url_cache_path(url, cache_dir)

    if not cache_path.exists():
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp_path = cache_path.with_suffix(cache_path.suffix + ".part")

        # (connect_timeout, read_timeout) in seconds, passed to ``requests.get``.
        # ``read_timeout`` applies between received chunks, not to the whole download,
        # so large files are still allowed as long as the server keeps streaming.
        # See https://requests.readthedocs.io/en/latest/user/advanced/#timeouts
        timeout = (10, 60)

        try:
            with requests.get(url, stream=True, timeout=timeout) as response:
                response.raise_for_status()
                with open(tmp_path, "wb") as file:
                    for chunk in response.iter_content(chunk_size=1024 * 1024):
                        if chunk:
                            file.write(chunk)
            tmp_path.replace(cache_path)
        except requests.exceptions.RequestException as exc:
            raise DownloadError(f"Failed to download {url}: {exc}") from exc
        finally:
            if tmp_path.exists():
                tmp_path.unlink()

    return BytesIO(cache_path.read_bytes())


def _get_url_cache_path(url: str, cache_dir: Path) -> Path:
    """Map a URL to a deterministic on-disk path under ``cache_dir``.

    Layout: ``<cache_dir>/<host>/<path>``. The query string is dropped on
    purpose so e.g. ``…/celeba_example.jpg?download=true`` and
    ``…/celeba_example.jpg`` share a cache entry. Any ``..`` segments are
    stripped so a malicious URL cannot escape the cache directory.
    """
    parsed = urlparse(url)
    host = parsed.netloc or "_no_host"
    parts = [p for p in parsed.path.split("/") if p and p != ".."]
    if not parts:
        parts = ["index.bin"]
    return cache_dir.joinpath(host, *parts)


def load_dicom(
    fname: str | Path,
    as_tensor: bool = True,
    apply_rescale: bool = False,
    dtype: np.dtype | str = np.float32,
    **kwargs,
) -> torch.Tensor | np.ndarray:
    """Load image from DICOM file.

    Requires `pydicom` to be installed. Install it with `pip install pydicom`.

    :param str, pathlib.Path fname: path to DICOM file or buffer.
    :param bool as_tensor: if `True`, return as torch tensor (default), otherwise return as numpy array.
    :param bool apply_rescale: if `True`, map the stored values (SV) to output values according to the pydicom `apply_rescale`, default False.
        See `pydicom docs <https://pydicom.github.io/pydicom/3.0/tutorials/pixel_data/introduction.html>`_
        and `apply_rescale <https://pydicom.github.io/pydicom/2.4/reference/generated/pydicom.pixel_data_handlers.apply_rescale.html>`_ for details.
        Note this is only useful when the appropriate dicom tags are present, for example in CT for :class:`deepinv.datasets.LidcIdriSliceDataset`
        for converting to Hounsfield Units. For other applications such as SUV/PET, we recommend applying the rescaling yourself.
    :param numpy.dtype, str dtype: data type to use when loading the nifti file.
    :return: either numpy array of shape of raw data `(...)`, or torch float tensor of shape `(1, ...)` where `...` are the DICOM image dimensions.
    """
    try:
        import pydicom
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_dicom requires pydicom, which is not installed. Please install it with `pip install pydicom`."
        )
    fname = str(fname) if isinstance(fname, Path) else fname
    data = pydicom.dcmread(fname)
    x = data.pixel_array

    if apply_rescale:
        # Sources:
        # * https://pydicom.github.io/pydicom/3.0/tutorials/pixel_data/introduction.html
        # * https://pydicom.github.io/pydicom/3.0/release_notes/v3.0.0.html
        # * https://pydicom.github.io/pydicom/2.4/reference/generated/pydicom.pixel_data_handlers.apply_rescale.html
        # NOTE: This function is deprecated in pydicom 3.0.0 in favor of
        # the new function pydicom.pixels.apply_rescale. It is currently
        # kept for compatibility with Python 3.9 which is only compatible
        # with versions of pydicom older than version 3.0.0.
        if not hasattr(pydicom, "pixel_data_handlers") or not hasattr(
            pydicom.pixel_data_handlers, "apply_rescale"
        ):
            raise ImportError(
                "pydicom version is unsupported. Please install a version of pydicom ≥ 2.0.0 and < 4.0.0"
            )
        x = pydicom.pixel_data_handlers.apply_rescale(x, data)

        # NOTE: apply_rescale returns float64 arrays. Most
        # applications do not need double precision so we cast it back to
        # float32 for improved memory efficiency.

    x = x.astype(dtype)

    return torch.from_numpy(x).unsqueeze(0) if as_tensor else x


def load_ismrmd(
    fname: str | Path,
    data_name: str = "kspace",
    data_slice: tuple | None = None,
    **kwargs,
) -> torch.Tensor:
    """Load complex MRI data from ISMRMD format.

    Uses `h5py` to load data specified by `data_name` key. The data is assumed to be stored in complex type.

    .. note::
        To speed up loading, slice/index the data before converting to tensor.

    :param str, pathlib.Path fname: file to load.
    :param str data_name: key of data in file, defaults to "kspace".
    :param tuple data_slice: slice or index to use before converting to tensor, such as `int`, `slice` or `tuple` of these.
    :return: data loaded in :class:`torch.Tensor` of shape `(2, ...)` containing real and imaginary parts,
        where `...` are dimensions of the raw data.
    """
    try:
        import h5py
    except ImportError:  # pragma: no cover
        raise ImportError(
            "The h5py package is not installed. Please install it with `pip install h5py`."
        )

    with h5py.File(fname, "r") as hf:
        data = hf[data_name]
        data = data[()] if data_slice is None else data[data_slice]
        data = MRIMixin.from_torch_complex(torch.from_numpy(data).unsqueeze(0)).squeeze(
            0
        )

    return data


def load_mat(fname: str, mat73: bool = False, **kwargs) -> dict[str, np.ndarray]:
    """Load MATLAB array from file.

    This function depends on the ``scipy`` package. You can install it with ``pip install scipy``.

    :param str, pathlib.Path fname: filename to load
    :param bool mat73: if file is MATLAB 7.3 or above, load with ``mat73``. Requires
        ``mat73``, install with ``pip install mat73``.
    :return: dict with str keys and numpy array values.
    """
    if mat73:
        try:
            from mat73 import loadmat as loadmat73

            return loadmat73(fname)
        except ImportError:  # pragma: no cover
            raise ImportError("mat73 is required, install with 'pip install mat73'.")
        except TypeError:  # pragma: no cover
            warn(
                "Array is incompatible with MATLAB 7.3 loader. Using scipy loader instead..."
            )

    try:
        from scipy.io import loadmat as scipy_loadmat

        return scipy_loadmat(fname)
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_mat requires scipy, which is not installed. Install it with `pip install scipy`."
        )


def load_raster(
    fname: str,
    patch: bool | int | tuple[int, int] = False,
    patch_start: tuple[int, int] = (0, 0),
    transform: Callable | None = None,
    **kwargs,
) -> torch.Tensor | Iterator[torch.Tensor]:
    """
    Load a raster image and return patches as tensors using `rasterio`.

    This function allows you to stream patches from large rasters e.g. satellite imagery, SAR etc.
    and supports all file formats supported by `rasterio`.

    This function requires `rasterio`, and should not rely on external GDAL dependencies. Install it with `pip install rasterio`.

    :param str fname: Path to the raster file, such as `.geotiff`, `.tiff`, `.cos` etc., or buffer.
    :param bool, int, tuple[int, int], patch: Patch extraction mode. If ``False`` (default), return the entire image as a
        :class:`torch.Tensor` of shape `(C, H, W)` where C are bands.
        If ``True``, yield patches based on the raster's internal block windows
        (if no block windows are available, raises error; if any block has a dimension of 1 (strip layout), raise warning).
        If ``int`` or ``(int, int)``, yield patches of the manually specified size `h, w`.
    :param tuple[int, int] patch_start: h and w indices from which to start taking patches. Defaults to `0,0`.
    :param Callable, None transform: Optional transform applied to each patch.

    :return: Either (where C is the band dimension)
        * a full image :class:`torch.Tensor` of shape `(C, H, W)`, if ``patch=False``, or
        * an iterator of torch tensors over patches of shape `(C, h, w)`, if ``patch=True`` or a size is specified, where `h,w` is the patch size.

    |sep|

    :Examples:

    >>> from deepinv.utils.io import load_raster, load_url
    >>> file = load_url("https://download.osgeo.org/geotiff/samples/spot/chicago/SP27GTIF.TIF")
    >>> x = load_raster(file, patch=False) # Load whole image
    >>> x.shape
    torch.Size([1, 929, 699])
    >>> x = load_raster(file, patch=True) # Patch via internal block size
    >>> next(x).shape
    torch.Size([1, 11, 699])
    >>> all_patches = list(x) # Load all patches into memory
    >>> len(all_patches)
    84
    >>> from torch.utils.data import DataLoader
    >>> dataloader = DataLoader(all_patches, batch_size=2) # You can use this for training
    >>>
    >>> x = load_raster(file, patch=128, patch_start=(200, 200)) # Patch via manual size, pick away from origin
    >>> next(x).shape
    torch.Size([1, 128, 128])
    """
    try:
        import rasterio
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_raster requires rasterio, which is not installed. Install it with `pip install rasterio`."
        )

    def _process_array(arr: np.ndarray) -> torch.Tensor:
        """Validate, normalize dimensions, handle complex data, and apply transform."""
        arr: torch.Tensor = torch.from_numpy(arr).squeeze(
            0
        )  # Remove single-band dimension if exists
        if arr.ndim == 2:
            if arr.is_complex():
                arr = MRIMixin.from_torch_complex(arr.unsqueeze(0)).squeeze(
                    0
                )  # (2, H, W)
            else:
                arr = arr.unsqueeze(0)  # (1, H, W)
        elif arr.ndim == 3:
            if arr.is_complex():
                raise RuntimeError(
                    "If array is complex, it cannot have a band dimension."
                )
        else:
            raise RuntimeError("Array should have band, x and y dimensions.")

        if transform:
            arr = transform(arr)
        return arr.float()  # (C, H, W)

    if patch is False:
        with rasterio.open(fname) as src:
            return _process_array(src.read())

    def _patch_generator() -> Iterator[torch.Tensor]:
        src = rasterio.open(fname)

        if patch is True:
            block_windows = list(src.block_windows(1))  # use band 1 as representative
            if not block_windows:
                raise RuntimeError("No block windows available for this raster.")
            try:
                for _, window in block_windows:
                    w, h = window.width, window.height
                    if w == 1 or h == 1:
                        warn(
                            f"Block window {window} returns patches of width or height 1. Consider manually setting a patch size."
                        )
                    yield _process_array(src.read(window=window))
                return
            finally:
                src.close()

        elif isinstance(patch, int):
            patch_h, patch_w = patch, patch
        elif isinstance(patch, tuple) and len(patch) == 2:
            patch_h, patch_w = patch
        else:
            raise ValueError(f"Invalid value for patch: {patch}")
        try:
            for y in range(patch_start[0], src.height, patch_h):
                for x in range(patch_start[1], src.width, patch_w):
                    window = rasterio.windows.Window(
                        x,
                        y,
                        min(patch_w, src.width - x),
                        min(patch_h, src.height - y),
                    )
                    yield _process_array(src.read(window=window))
            return
        finally:
            src.close()

    return _patch_generator()


def load_nifti(
    fname: str | Path,
    as_memmap: bool = False,
    dtype: np.dtype | str = np.float32,
    **kwargs,
) -> torch.Tensor | nib.arrayproxy.ArrayProxy:
    """Load volume from nifti file as torch tensor.

    We assume that the data contains a channel dimension. If not, unsqueeze the output to
    add a channel dimension `x = load_nifti(...).unsqueeze(0)`.

    .. warning::

        When loading zipped nifti files (e.g., .nii.gz), it is recommended to install indexed_gzip (`pip install indexed-gzip`) to speed up loading times.

    .. warning:

        Set the `dtype` correctly to load double or complex data.
        You can also inspect the `nibabel` image object headers (result of `nib.load`) prior to calling `get_fdata` or `dataobj`,
        to get the intended `dtype` and other metadata.

    :param str, pathlib.Path fname: file to load.
    :param bool, as_memmap: open this file as a proxy array, which does not eagerly load the entire array into memory. This is useful when extracting patches from large arrays or to quickly infer dtype and shape.
    :param numpy.dtype, str dtype: data type to use when loading the nifti file. This is ignored if `as_memmap` is `True`.
    :return: :class:`torch.Tensor` containing nifti image. If `as_memmap` is `True`, returns a proxy array instead.
    """
    try:
        import nibabel as nib
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_nifti requires nibabel, which is not installed. Please install it with `pip install nibabel`."
        )
    im = nib.load(fname)
    if as_memmap:
        return im.dataobj
    else:
        return torch.from_numpy(im.get_fdata(dtype=dtype))


def load_blosc2(
    fname: str | Path,
    as_memmap: bool = False,
    dtype: np.dtype | str = np.float32,
    **kwargs,
) -> torch.Tensor | blosc2.ndarray.NDArray:
    """Load volume from blosc2 file as torch tensor.

    :param str, pathlib.Path fname: file to load.
    :param bool, as_memmap: open this file as a memory-mapped array (which does not load the entire array into memory). This is useful when extracting patches from large arrays or to quickly infer dtype and shape.
    :param numpy.dtype, str dtype: data type to use when loading the blosc2 file. This is ignored if `as_memmap` is `True`.
    :return: :class:`torch.Tensor` containing loaded numpy array. If `as_memmap` is `True`, returns a blosc2 array object instead.
    """
    try:
        import blosc2
    except ImportError:  # pragma: no cover
        raise ImportError(
            "load_blosc2 requires blosc2, which is not installed. Please install it with `pip install blosc2`."
        )
    arr = blosc2.open(fname)
    if as_memmap:
        return arr
    else:
        return torch.from_numpy(arr[:].astype(dtype))


def load_ismrmrd_raw(filename: str, ifft_slice_dim: bool = False) -> torch.Tensor:
    r"""Load ISMRMRD hdf5 raw Cartesian multi-coil MRI data.

    Saves the acquired lines of an ISMRMRD ``.h5`` dataset onto a Cartesian k-space grid of zeros
    as `(1, 2, N, D, H, W)` where N = num coils, D = slice/depth and `(H, W)` = 2D plane.

    The D dim is detected automatically for 2D vs 3D:

    - 3D acquisition: loads the entire 3D k-space, with `D = readout` and `(H, W) = (partition, phase-encode)`.
    - 2D slice-based acquisition: loads the first slice only, with `D = 1` (singleton) and `(H, W) = (phase-encode, readout)`.

    Code derived from `ISMRMRD <https://github.com/ismrmrd/ismrmrd-python>`_ and `examples <https://github.com/ismrmrd/ismrmrd-python-tools>`_.

    The dataset requirers ismrmrd: `pip install ismrmrd`

    Only the first average, contrast, phase, repetition and set is kept. Noise scans are dropped.

    .. note::

        Readout oversampling is removed by default, since scanners oversample the (fully-sampled) readout (typically 2x) to avoid frequency-encode aliasing,
        which doubles the readout FOV and is redundant for reconstruction.

    :param str filename: path to the ISMRMRD `.h5` file.
    :param bool ifft_slice_dim: if `True`, inverse FFT the slice/depth axis D so it is returned in image space, ready to index slices. Note for 2D it is ignored.
    :return: real tensor of shape `(1, 2, N, D, H, W)`, where N = num coils.
    """
    import ismrmrd
    import ismrmrd.xsd

    dset = ismrmrd.Dataset(filename, create_if_needed=False)
    hdr = ismrmrd.xsd.CreateFromDocument(dset.read_xml_header())
    enc = hdr.encoding[0]
    lim = enc.encodingLimits

    ncoils = hdr.acquisitionSystemInformation.receiverChannels
    nkx = enc.encodedSpace.matrixSize.x  # readout == number_of_samples
    nky = (
        lim.kspace_encoding_step_1.maximum + 1
    )  # phase-encode, robust to wrong matrix size
    nkz = lim.kspace_encoding_step_2.maximum + 1  # partition

    for name in (
        "average",
        "slice",
        "contrast",
        "phase",
        "repetition",
        "set",
    ):  # pragma: no cover
        el = getattr(lim, name)
        if el is not None and el.maximum > 0:
            warn(f"{name} has {el.maximum + 1} values, only index 0 is loaded")

    kspace = np.zeros((ncoils, nkz, nky, nkx), dtype=np.complex64)
    for i in range(dset.number_of_acquisitions()):
        acq = dset.read_acquisition(i)
        idx = acq.idx
        if acq.isFlagSet(ismrmrd.ACQ_IS_NOISE_MEASUREMENT):  # pragma: no cover
            continue
        if (
            idx.average
            or idx.slice
            or idx.contrast
            or idx.phase
            or idx.repetition
            or idx.set
        ):  # pragma: no cover
            continue
        kspace[:, idx.kspace_encode_step_2, idx.kspace_encode_step_1, :] = acq.data

    # remove readout oversampling by cropping the readout to the recon FOV in image space
    rNx = enc.reconSpace.matrixSize.x
    if not rNx:  # pragma: no cover
        eFOVx, rFOVx = (
            enc.encodedSpace.fieldOfView_mm.x,
            enc.reconSpace.fieldOfView_mm.x,
        )
        rNx = round(nkx * rFOVx / eFOVx) if eFOVx and rFOVx else nkx
    kspace = torch.from_numpy(kspace)  # (N, kz, ky, kx) complex
    if rNx < nkx:  # pragma: no cover
        img = MRIMixin.ifft(kspace, dim=(-1,))
        lo = (nkx - rNx) // 2
        kspace = MRIMixin.fft(img[..., lo : lo + rNx], dim=(-1,))

    # place the fully-sampled readout at the slice/depth axis (-3)
    # 3D: move the readout there; 2D: the partition axis is already a singleton D
    if nkz > 1:
        kspace = kspace.moveaxis(-1, -3)  # (N, kx, kz, ky) = (N, D, H, W)

    if ifft_slice_dim:
        kspace = MRIMixin.ifft(kspace, dim=(-3,))  # slice/depth -> image space

    return MRIMixin.from_torch_complex(kspace.unsqueeze(0))  # (1, 2, N, D, H, W)
