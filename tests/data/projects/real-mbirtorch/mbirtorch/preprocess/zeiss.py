import os, sys
from operator import itemgetter
import numpy as np
import warnings
import mbirtorch
import mbirtorch.preprocess as mtp
from . import _loader_utils as lu
import pprint
import olefile
from . import _xradia_ole
from ._xradia_ole import (_check_read, _get_ole_data_type, _log_imported_data, _read_ole_struct,
                          _read_ole_value, _read_ole_arr, _read_ole_image, _read_ole_str,
                          get_index_in_list)
pp = pprint.PrettyPrinter(indent=4)


def get_sino_and_model(dataset_dir, *, downsample_factor=(1, 1), subsample_view_factor=1,
                       crop_pixels_sides=0, crop_pixels_top=0, crop_pixels_bottom=0, alu_unit='mm',
                       bg_option="global", zinger_correction=True, auto_crop=False,
                       det_rotation=0.0, verbose=1):
    """
    This function loads a Zeiss Versa or Ultra scan, computes its sinogram, and returns a model
    that is ready to reconstruct.  An Ultra scan gives a ParallelBeamModel.  Any other scan
    gives a ConeBeamModel.  The file records a shift for each view.  The function applies
    these shifts to the sinogram.

    Args:
        dataset_dir (str): The path to the ``.txrm`` file.
        downsample_factor (tuple[int, int], optional): The downsampling factors along the
            detector rows and channels.  Defaults to (1, 1).
        subsample_view_factor (int, optional): The function keeps every n-th view.
            Defaults to 1.
        crop_pixels_sides (int, optional): The number of pixels to crop from each side of the
            detector.  Defaults to 0.
        crop_pixels_top (int, optional): The number of pixels to crop from the top.
            Defaults to 0.
        crop_pixels_bottom (int, optional): The number of pixels to crop from the bottom.
            Defaults to 0.
        alu_unit (str, optional): The length unit of the model: 'um', 'mm', 'cm', or 'm'.
            Defaults to 'mm'.
        bg_option (str or None, optional): The method of background offset removal: 'global',
            'per_view', or None for no removal.  See
            :func:`~mbirtorch.preprocess.correct_background_offset`.  Defaults to 'global'.
        zinger_correction (bool, optional): If True, the function replaces zinger pixels.  See
            :func:`~mbirtorch.preprocess.correct_zinger_pixels`.  Defaults to True.
        auto_crop (bool, optional): If True, the function removes the blank margins of the
            sinogram and shrinks the reconstruction to match.  Defaults to False.
        det_rotation (float, optional): The detector rotation in radians.  The function removes
            this rotation from every view.  Defaults to 0.0.
        verbose (int, optional): The value 0 prints nothing, and 1 prints progress.
            Defaults to 1.

    Returns:
        tuple: ``(sino, model)``.  sino is the sinogram, with shape (num_views, num_det_rows,
        num_det_channels).  model is the model with its parameters set.  Use
        ``mbirtorch.gen_weights`` to compute the weights.

    Example:
        .. code-block:: python

            sino, model = mbirtorch.preprocess.zeiss.get_sino_and_model(path_to_txrm)
            recon, recon_dict = model.recon(sino)
    """
    sino, required_params, optional_params = _compute_sino_and_params(
        dataset_dir, downsample_factor=downsample_factor, subsample_view_factor=subsample_view_factor,
        crop_pixels_sides=crop_pixels_sides, crop_pixels_top=crop_pixels_top,
        crop_pixels_bottom=crop_pixels_bottom, alu_unit=alu_unit, bg_option=bg_option,
        zinger_correction=zinger_correction, det_rotation=det_rotation, verbose=verbose)
    return lu.finalize_model(sino, required_params, optional_params, auto_crop=auto_crop)


def _compute_sino_and_params(dataset_dir, downsample_factor=(1, 1), subsample_view_factor=1, crop_pixels_sides=0, crop_pixels_top=0, crop_pixels_bottom=0, alu_unit='mm', bg_option="global", zinger_correction=True, det_rotation=0.0, verbose=1):
    """
    This function computes the sinogram and the model parameters from a Zeiss Ultra or Versa
    ``.txrm`` dataset.  :func:`get_sino_and_model` calls this function and documents the
    arguments.  Thanks to Amir Koushyar Ziabari of ORNL.  Portions are adapted from the
    DXchange library.

    Returns:
        tuple: ``(sino, required_params, optional_params)``.  ``required_params`` holds the
        arguments of the model constructor and ``geometry_type``.  ``optional_params`` holds
        the arguments for ``set_params``.
    """
    if verbose > 0:
        print("\n\n########## Loading object, blank, dark scans, and geometry parameters from Zeiss dataset directory")
    obj_scan, blank_scan, dark_scan, zeiss_params = load_scans_and_params(dataset_dir, subsample_view_factor)

    geometry_params, optional_params, zeiss_metadata = convert_zeiss_to_mbirtorch_params(zeiss_params, downsample_factor=downsample_factor,
                                                                          crop_pixels_sides=crop_pixels_sides,
                                                                          crop_pixels_top=crop_pixels_top,
                                                                          crop_pixels_bottom=crop_pixels_bottom,
                                                                          alu_unit=alu_unit)

    if verbose > 0:
        print("\n\n########## Cropping scans")
    obj_scan, blank_scan, dark_scan, defective_pixel_array = mtp.crop_view_data(obj_scan, blank_scan, dark_scan,
                                                                                crop_pixels_sides=crop_pixels_sides,
                                                                                crop_pixels_top=crop_pixels_top,
                                                                                crop_pixels_bottom=crop_pixels_bottom)

    if verbose > 0:
        print("\n\n########## Computing sinogram")
    sino = mtp.scan_to_sino(obj_scan, blank_scan, dark_scan, defective_pixel_array,
                            downsample_factor=downsample_factor, det_rotation=det_rotation)

    if verbose > 0:
        print("\n\n########## Correcting any residual background sinogram offset")
    sino = mtp.correct_background_offset(sino, option=bg_option)

    # Zinger detection must run after the background correction and before the view shifts.
    if zinger_correction:
        if verbose > 0:
            print("\n\n########## Correcting zinger pixels")
        sino = mtp.correct_zinger_pixels(sino, zinger_pixel_ratio=0.1)

    if verbose > 0:
        print("\n\n########## Correcting per-view sinogram shifts")
    sino = correct_sino_shifts(sino, zeiss_params, downsample_factor, subsample_view_factor)

    if verbose > 0:
        print('obj_scan shape = ', obj_scan.shape)
        print('blank_scan shape = ', blank_scan.shape)
        print('dark_scan shape = ', dark_scan.shape)

    # An 'ultra' scan is parallel beam.  Every other scanner type is cone beam.
    scanner_type = zeiss_metadata['scanner_type']
    if scanner_type == 'ultra':
        geometry_params['geometry_type'] = str(mbirtorch.ParallelBeamModel)
    else:
        geometry_params['geometry_type'] = str(mbirtorch.ConeBeamModel)
    return sino, geometry_params, optional_params


def load_scans_and_params(dataset_dir, subsample_view_factor, verbose=1):
    """
    This function loads the scan data and geometry from a Zeiss ``.txrm`` file.  Thanks to Amir
    Koushyar Ziabari of ORNL.  Portions are adapted from the DXchange library.

    Args:
        dataset_dir (str): The path to the Zeiss ``.txrm`` file itself, not to a directory.
        subsample_view_factor (int): The view subsampling factor.  The function reads every
            n-th view.
        verbose (int, optional): The verbosity level.  Defaults to 1.

    Returns:
        tuple: (obj_scan, blank_scan, dark_scan, zeiss_params)

            - obj_scan (numpy.ndarray): The 3D object scan with shape
              ``(num_views, num_det_rows, num_channels)``.
            - blank_scan (numpy.ndarray): The 3D blank scan with shape
              ``(num_reference, num_det_rows, num_channels)``.  It holds one image for each
              reference image in the file.
            - dark_scan (numpy.ndarray): An array of zeros with the shape of ``obj_scan``.  The
              ``.txrm`` format has no dark scan.
            - zeiss_params (dict): The geometry parameters read from the ``.txrm`` file.
    """
    data_dir = _parse_filenames_from_dataset_dir(dataset_dir)

    if verbose > 0:
        print("The following files will be used to compute the Zeiss reconstruction:\n",
              f"    - txrm file: {data_dir}\n")

    file_name = _check_read(data_dir)
    try:
        ole = olefile.OleFileIO(file_name)
    except IOError as e:
        print('No such file or directory: %s', file_name)
        raise e

    scanner_type = classify_zeiss_system(file_name)

    zeiss_params = read_metadata(ole)

    obj_scan = np.empty(
        (
            zeiss_params["num_views"],
            zeiss_params["num_det_rows"],
            zeiss_params["num_det_channels"],
        ),
        dtype=_get_ole_data_type(zeiss_params)
    )

    view_indices = np.arange(zeiss_params["num_views"], step=subsample_view_factor)
    obj_scan = np.zeros((len(view_indices), zeiss_params["num_det_rows"], zeiss_params["num_det_channels"]),
                        dtype=_get_ole_data_type(zeiss_params))
    for i, idx in enumerate(view_indices):
        img_string = "ImageData{}/Image{}".format(
            int(np.ceil((idx + 1) / 100.0)), int(idx + 1))
        obj_scan[i] = _read_ole_image(ole, img_string, zeiss_params)

    blank_scan = zeiss_params["reference"]

    # TODO: The txrm file is assumed to have no dark scan.
    dark_scan = np.zeros(obj_scan.shape, dtype=obj_scan.dtype)

    try:
        axis_names = zeiss_params.get("axis_names")  # ['Sample X', ..., 'CCD_X', ...]
        axis_units = zeiss_params.get("axis_units")  # This is a list of units: ['um', 'um', ..., ]

        source_iso_dist = zeiss_params["source_iso_dist"]
        source_iso_dist = float(np.abs(source_iso_dist))
        source_iso_dist_index = get_index_in_list(axis_names, 'Source Z')
        source_iso_dist_unit = axis_units[source_iso_dist_index] if source_iso_dist_index > -1 else 'mm'

        iso_det_dist = zeiss_params["iso_det_dist"]
        iso_det_dist = float(np.abs(iso_det_dist)) if iso_det_dist is not None else 0.0
        iso_det_dist_unit = source_iso_dist_unit

        det_pixel_pitch = zeiss_params["det_pixel_pitch"]
        det_pixel_pitch = float(np.abs(det_pixel_pitch))

        # A Zeiss detector pixel has equal width and height.
        delta_det_row = det_pixel_pitch
        delta_det_channel = det_pixel_pitch
        delta_det_index = get_index_in_list(axis_names, 'CCD_X')
        delta_det_row_unit = axis_units[delta_det_index] if delta_det_index > -1 else 'um'
        delta_det_channel_unit = delta_det_row_unit

        iso_pixel_pitch = zeiss_params["iso_pixel_pitch"]
        iso_pixel_pitch = float(np.abs(iso_pixel_pitch))
        iso_pixel_pitch_index = get_index_in_list(axis_names, 'Sample X')
        iso_pixel_pitch_unit = axis_units[iso_pixel_pitch_index] if iso_pixel_pitch_index > -1 else 'um'

        angle_index = get_index_in_list(axis_names, 'Sample Theta')
        angle_unit = axis_units[angle_index] if angle_index > -1 else 'deg'

        x_shifts = zeiss_params["x_shifts"]
        y_shifts = zeiss_params["y_shifts"]

    except ValueError as e:
        print("Unable to determine units for geometry parameters; cannot safely convert to mbirtorch format.")
        raise e

    opt_mag = zeiss_params["opt_mag"]
    opt_mag = 1 if opt_mag is None else opt_mag

    num_views = zeiss_params["num_views"]
    num_det_channels = zeiss_params["num_det_channels"]
    num_det_rows = zeiss_params["num_det_rows"]

    angles = -np.array(zeiss_params['thetas'], dtype=float).ravel()
    angles = angles[view_indices]

    # MBIRTORCH uses the opposite sign convention for the channel shift.
    det_channel_offset = -zeiss_params["center_shift"]
    det_row_offset = 0.0    # There doesn't appear to be a Zeiss parameter for detector row offset

    zeiss_params = {
        'scanner_type': scanner_type,
        'source_iso_dist': source_iso_dist,
        'iso_det_dist': iso_det_dist,
        'delta_det_channel': delta_det_channel,
        'delta_det_row': delta_det_row,
        'iso_pixel_pitch': iso_pixel_pitch,
        'opt_mag': opt_mag,
        'num_views': num_views,
        'num_det_channels': num_det_channels,
        'num_det_rows': num_det_rows,
        'angles': angles,
        'det_row_offset': det_row_offset,
        'det_channel_offset': det_channel_offset,
        'source_iso_dist_unit': source_iso_dist_unit,
        'iso_det_dist_unit': iso_det_dist_unit,
        'delta_det_row_unit': delta_det_row_unit,
        'delta_det_channel_unit': delta_det_channel_unit,
        'iso_pixel_pitch_unit': iso_pixel_pitch_unit,
        'angle_unit': angle_unit,
        'x_shifts': x_shifts,
        'y_shifts': y_shifts,
    }

    if verbose > 0:
        print("############ Zeiss geometry parameters ############")
        print(f"Source to iso distance: {source_iso_dist} [{source_iso_dist_unit}]")
        print(f"Iso to detector distance: {iso_det_dist} [{iso_det_dist_unit}]")
        print(f"Detector pixel pitch: {det_pixel_pitch:.3f} [{delta_det_row_unit}]")
        print(f"Pixel pitch at iso: {iso_pixel_pitch} [{iso_pixel_pitch_unit}]")
        print(f"Optical magnification: {opt_mag}")
        print(f"Number of views: {num_views}")
        print(f"Detector size: (num_det_rows, num_det_channels) = ({num_det_rows}, {num_det_channels})")
        print("############ End Zeiss geometry parameters ############")

    return obj_scan, blank_scan, dark_scan, zeiss_params


def convert_zeiss_to_mbirtorch_params(zeiss_params, downsample_factor=(1, 1), crop_pixels_sides=0, crop_pixels_top=0, crop_pixels_bottom=0, alu_unit='mm'):
    """
    This function converts Zeiss geometry parameters into mbirtorch parameters.  The mbirtorch
    parameters account for the crop.  Thanks to Amir Koushyar Ziabari of ORNL.

    Args:
        zeiss_params (dict): The Zeiss geometry parameters needed for reconstruction.
        downsample_factor ((int, int), optional): The downsampling factors along the detector
            rows and channels.  If the scan size is not divisible by a factor, the function
            first truncates the scan.  Defaults to (1, 1).
        crop_pixels_sides (int, optional): The number of pixels to crop from each side of the
            sinogram.  Defaults to 0.
        crop_pixels_top (int, optional): The number of pixels to crop from top of the sinogram.
            Defaults to 0.
        crop_pixels_bottom (int, optional): The number of pixels to crop from bottom of the
            sinogram.  Defaults to 0.
        alu_unit (str, optional): The physical unit of 1 ALU: 'um', 'mm', 'cm', or 'm'.
            Defaults to 'mm'.

    Returns:
        geometry_params (dict): The required parameters of the tomography model constructor.
        optional_params (dict): Additional model parameters to set with ``set_params()``.
        zeiss_metadata (dict): Metadata from the Zeiss txrm file.  It holds the scanner type.
    """
    source_iso_dist, iso_det_dist, source_iso_dist_unit, iso_det_dist_unit = itemgetter('source_iso_dist', 'iso_det_dist', 'source_iso_dist_unit', 'iso_det_dist_unit')(zeiss_params)
    delta_det_channel, delta_det_row, delta_det_channel_unit, delta_det_row_unit = itemgetter('delta_det_channel', 'delta_det_row', 'delta_det_channel_unit', 'delta_det_row_unit')(zeiss_params)
    iso_pixel_pitch, iso_pixel_pitch_unit = itemgetter('iso_pixel_pitch', 'iso_pixel_pitch_unit')(zeiss_params)
    opt_mag = itemgetter('opt_mag')(zeiss_params)
    num_det_rows, num_det_channels = itemgetter('num_det_rows', 'num_det_channels')(zeiss_params)
    angles, angle_unit = itemgetter('angles', 'angle_unit')(zeiss_params)
    det_row_offset, det_channel_offset = itemgetter('det_row_offset', 'det_channel_offset')(zeiss_params)

    scanner_type = zeiss_params['scanner_type']

    alu_value = 1

    source_iso_dist = lu.to_alu(source_iso_dist, source_iso_dist_unit, alu_unit)
    iso_det_dist = lu.to_alu(iso_det_dist, iso_det_dist_unit, alu_unit)
    delta_det_channel = lu.to_alu(delta_det_channel, delta_det_channel_unit, alu_unit)
    delta_det_row = lu.to_alu(delta_det_row, delta_det_row_unit, alu_unit)
    iso_pixel_pitch = lu.to_alu(iso_pixel_pitch, iso_pixel_pitch_unit, alu_unit)

    source_detector_dist = source_iso_dist + iso_det_dist

    if angle_unit == 'deg':
        angles = np.deg2rad(angles)
    else:
        pass

    # The detector is a scintillator.
    if opt_mag is not None and not np.isinf(opt_mag):
        scintillator_mag = source_detector_dist/source_iso_dist
        magnification = opt_mag * scintillator_mag
    else:
        magnification = 1.0

    source_detector_dist = magnification * source_iso_dist
    delta_det_channel = magnification * iso_pixel_pitch
    delta_det_row = magnification * iso_pixel_pitch

    # The offsets are in pixels here.  These lines convert them to ALU.
    det_channel_offset *= delta_det_channel
    det_row_offset *= delta_det_row

    # The crop is in detector pixels before downsampling.  The offsets are in ALU.
    num_det_rows, num_det_channels, det_row_offset, det_channel_offset = lu.apply_config_crop(
        num_det_rows, num_det_channels, det_row_offset, det_channel_offset, delta_det_row, delta_det_channel,
        crop_pixels_top=crop_pixels_top, crop_pixels_bottom=crop_pixels_bottom, crop_pixels_sides=crop_pixels_sides)

    num_det_rows = num_det_rows // downsample_factor[0]
    num_det_channels = num_det_channels // downsample_factor[1]

    delta_det_row *= downsample_factor[0]
    delta_det_channel *= downsample_factor[1]

    iso_pixel_pitch *= downsample_factor[0]

    if scanner_type == "ultra":
        num_views = len(angles)
        geometry_params = dict()
        geometry_params['sinogram_shape'] = (num_views, num_det_rows, num_det_channels)
        geometry_params["angles"] = angles

        optional_params = dict()
        optional_params['delta_det_channel'] = delta_det_channel
        optional_params['delta_det_row'] = delta_det_row
        optional_params['delta_voxel'] = delta_det_channel  # Parallel beam has no magnification.
        optional_params['det_row_offset'] = det_row_offset
        optional_params['det_channel_offset'] = det_channel_offset
        optional_params['alu_unit'] = alu_unit
        optional_params['alu_value'] = alu_value
    else:
        num_views = len(angles)
        geometry_params = dict()
        geometry_params['sinogram_shape'] = (num_views, num_det_rows, num_det_channels)
        geometry_params["angles"] = angles
        geometry_params['source_detector_dist'] = source_detector_dist
        geometry_params['source_iso_dist'] = source_iso_dist

        optional_params = dict()
        optional_params['delta_det_channel'] = delta_det_channel
        optional_params['delta_det_row'] = delta_det_row
        optional_params['delta_voxel'] = iso_pixel_pitch
        optional_params['det_row_offset'] = det_row_offset
        optional_params['det_channel_offset'] = det_channel_offset
        optional_params['alu_unit'] = alu_unit
        optional_params['alu_value'] = alu_value

    zeiss_metadata = {"scanner_type": scanner_type}

    return geometry_params, optional_params, zeiss_metadata


######## subroutines for parsing Zeiss object scan, blank scan, and dark scan
def _parse_filenames_from_dataset_dir(dataset_dir):
    """
    This function checks that ``dataset_dir`` is an existing ``.txrm`` file and returns it.

    The function raises ValueError for any other file type.  It raises FileNotFoundError if the
    file does not exist.

    Args:
        dataset_dir (string): The path to the Zeiss ``.txrm`` file.

    Returns:
        The path to the ``.txrm`` file that holds the projection data.
    """
    if os.path.isfile(dataset_dir):
        if dataset_dir.endswith(".txrm"):
            return dataset_dir
        else:
            raise ValueError(f"Unsupported file type {dataset_dir}; only .txrm files are supported.")
    else:
        raise FileNotFoundError(dataset_dir)


def read_xrm(fname, normalize_to_float32=True):
    """
    This function reads a single Xradia ``.xrm`` radiograph and its metadata.  It calls
    :func:`mbirtorch.preprocess._xradia_ole.read_xrm` with the :func:`read_metadata` function
    of this module.
    """
    return _xradia_ole.read_xrm(fname, read_metadata, normalize_to_float32=normalize_to_float32)


def read_xrm_dir(dir_path):
    """
    This function reads all ``.xrm`` files in a directory and stacks them.  It calls
    :func:`mbirtorch.preprocess._xradia_ole.read_xrm_dir` with the :func:`read_metadata`
    function of this module.
    """
    return _xradia_ole.read_xrm_dir(dir_path, read_metadata)

def read_metadata(ole):
    """
    This function reads metadata from an xradia OLE file (.xrm, .txrm, .txm).  Portions are
    adapted from the DXchange library: https://github.com/data-exchange/dxchange

    Args:
        ole (OleFileIO instance): The OLE file to read.

    Returns:
        dict: The image metadata.
    """

    number_of_images = _read_ole_value(ole, "ImageInfo/NoOfImages", "<I")
    number_of_reference = _read_ole_reference(
        ole, ["ReferenceData/ImageInfo/NoOfImages", "MultiReferenceData/ImageInfo/NoOfImages"], "<I")

    metadata = {
        'num_det_channels': _read_ole_value(ole, 'ImageInfo/ImageWidth', '<I'),
        'num_det_rows': _read_ole_value(ole, 'ImageInfo/ImageHeight', '<I'),
        'data_type': _read_ole_value(ole, 'ImageInfo/DataType', '<1I'),
        'reference_data_type': _read_ole_reference(
            ole, ['ReferenceData/DataType', 'MultiReferenceData/DataType'], '<1I'),
        'num_views': number_of_images,
        'num_reference': number_of_reference,
        'iso_pixel_pitch': _read_ole_value(ole, 'ImageInfo/PixelSize', '<f'),
        'det_pixel_pitch': _read_ole_value(ole, 'DetAssemblyInfo/CamPixelSize', '<f'),
        'iso_det_dist': _read_ole_value(ole, 'ImageInfo/DtoRADistance', "<{0}f".format(number_of_images)),
        'source_iso_dist': _read_ole_value(ole,'ImageInfo/StoRADistance', "<{0}f".format(number_of_images)),
        'thetas': _read_ole_arr(
            ole, 'ImageInfo/Angles', "<{0}f".format(number_of_images)),
        'x_positions': _read_ole_arr(
            ole, 'ImageInfo/XPosition', "<{0}f".format(number_of_images)),
        'y_positions': _read_ole_arr(
            ole, 'ImageInfo/YPosition', "<{0}f".format(number_of_images)),
        'z_positions': _read_ole_arr(
            ole, 'ImageInfo/ZPosition', "<{0}f".format(number_of_images)),
        'x_shifts':_read_ole_arr(
            ole, 'alignment/x-shifts', "<{0}f".format(number_of_images)),
        'y_shifts': _read_ole_arr(
            ole, 'alignment/y-shifts', "<{0}f".format(number_of_images)),
        'current': _read_ole_value(
            ole, "ImageInfo/XrayCurrent", "<{0}f".format(number_of_images)),
        'voltage': _read_ole_value(
            ole, "ImageInfo/XrayVoltage", "<{0}f".format(number_of_images)),
        'ExpTimes': _read_ole_value(
            ole, "ImageInfo/ExpTimes", "<{0}f".format(number_of_images)),
        'center_shift': _read_ole_reference(
            ole, ["AutoRecon/CenterShift", "ReconSettings/CenterShift"], '<f'),
        'opt_mag': _read_ole_value(ole, "DetAssemblyInfo/OpticalMagnification", '<f'),
        'fan_angle': _read_ole_reference(
            ole, ['ReferenceData/ImageInfo/FanAngle', 'MultiReferenceData/ImageInfo/FanAngle'], '<{0}f'.format(number_of_reference)),
        'cone_angle': _read_ole_reference(
            ole,['ReferenceData/ImageInfo/ConeAngle', 'MultiReferenceData/ImageInfo/ConeAngle'], '<{0}f'.format(number_of_reference)),
        'axis_names': _read_ole_str(ole, 'PositionInfo/AxisNames'),
        'axis_units': _read_ole_str(ole, 'PositionInfo/AxisUnits')
    }


    reference = None
    if ole.exists('ReferenceData'):
        reference = _read_ole_image(ole, 'ReferenceData/Image', metadata, metadata['reference_data_type'])
    elif ole.exists('MultiReferenceData'):
        array_of_reference = []
        for idx in range(metadata['num_reference']):
            img_string = f"MultiReferenceData/Image{idx + 1}"
            if ole.exists(img_string):
                array_of_reference.append(
                    _read_ole_image(ole, img_string, metadata, metadata['reference_data_type'])
                )

        if len(array_of_reference) > 0:
            reference = np.stack(array_of_reference, axis=0)
    else:
        warnings.warn('No reference data available.  Using an array of all 1s.')
        reference = np.ones((metadata['num_det_rows'], metadata['num_det_channels']))

    if reference.ndim == 2:
        reference = reference[None, :, :]

    metadata['reference'] = reference

    return metadata


def _read_ole_reference(ole, labels, struct_fmt):
    """
    This function reads a reference value from the first matching label in an OLE file.  The
    function first tries to read the value as a scalar.  If that fails, it reads the value as a
    NumPy array.

    Args:
        ole (OleFileIO): The OLE file to read.
        labels (list of str): The possible labels of the reference data parameter.
        struct_fmt (str): The struct format string of the value.

    Returns:
        int, float, or ndarray: The value of the first matching label, or None if no label
        matches.
    """
    for label in labels:
        if ole.exists(label):
            try:
                return _read_ole_value(ole, label, struct_fmt)
            except Exception:
                try:
                    return _read_ole_arr(ole, label, struct_fmt)
                except Exception:
                    pass
    return None


def classify_zeiss_system(fname):
    """
    This function returns the Zeiss system type of a .txrm file.  An Ultra file contains the
    entry "ConfigZonePlates".  A Versa file contains the entry "ConfigXrayFilters/Filter0/Name".

    Args:
        fname (str): The path to a Zeiss .txrm file.

    Returns:
        str: 'versa'   -- cone-beam micro-CT (Xradia Versa)
             'ultra'   -- parallel-beam nano-CT (Xradia Ultra)
             'unknown'  -- The system type cannot be determined
    """

    if not olefile.isOleFile(str(fname)):
        raise ValueError(f"'{fname}' is not a valid Zeiss .txrm file.")

    with olefile.OleFileIO(str(fname)) as ole:
        paths = ["/".join(entry) for entry in ole.listdir()]

    if any("ConfigZonePlates" in path for path in paths):
        return 'ultra'

    if any(
        path == "ConfigXrayFilters/Filter0/Name"
        or path.endswith("/ConfigXrayFilters/Filter0/Name")
        for path in paths
    ):
        return 'versa'

    warnings.warn(
        f"Unable to determine the Zeiss system type from '{fname}'. "
        "Neither Ultra nor Versa metadata was found."
        "Assuming the file using cone beam geometry."
    )

    return 'unknown'

######## END subroutines for parsing Zeiss object scan, blank scan, and dark scan


def correct_sino_shifts(sino, zeiss_params, downsample_factor, subsample_view_factor):
    """
    This function shifts each sinogram view by the offset that the txrm file stores for that
    view.  The shifts remove the vibration of the object.  As seen from the source, a
    positive x-shift moves the view right, and a positive y-shift moves the view down.

    Args:
        sino (numpy.ndarray): The 3D sinogram with shape (num_views, num_det_rows,
            num_det_channels).
        zeiss_params (dict): The parameters stored in the Zeiss txrm file.
        downsample_factor (Tuple[int, int]): The downsampling factors for the detector rows and
            channels.
        subsample_view_factor (int): The view subsampling factor.

    Returns:
        corrected_sino (numpy.ndarray): The 3D sinogram after alignment.
    """
    # These are new arrays, so the zeiss_params of the caller is not rescaled.
    sino_x_offset = np.asarray(zeiss_params["x_shifts"][::subsample_view_factor],
                               dtype=np.float64) / downsample_factor[1]
    sino_y_offset = np.asarray(zeiss_params["y_shifts"][::subsample_view_factor],
                               dtype=np.float64) / downsample_factor[0]

    # The padding covers the largest shift in absolute value.
    pad_size = int(np.ceil(np.maximum(np.max(np.abs(sino_x_offset)),
                                      np.max(np.abs(sino_y_offset)))))

    if pad_size > 0:
        sino_pad = np.pad(sino, ((0, 0), (pad_size, pad_size), (pad_size, pad_size)), mode='edge')
    else:
        sino_pad = sino

    from .geometry_calibration import _translate_views_bilinear
    shifts = np.stack([sino_y_offset, sino_x_offset], axis=1)
    corrected_sino = _translate_views_bilinear(sino_pad, shifts).cpu().numpy()

    if pad_size > 0:
        corrected_sino = corrected_sino[:, pad_size:-pad_size, pad_size:-pad_size]

    return corrected_sino