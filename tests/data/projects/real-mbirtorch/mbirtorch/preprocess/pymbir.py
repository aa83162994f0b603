import warnings
import numpy as np
import h5py


def get_sino_and_model(filename, *, bh_correction=True, auto_crop=False, subsample_view_factor=1):
    """
    This function loads an ORNL HDF5 scan and returns its sinogram and a cone beam model.
    The file holds the -log sinogram, the geometry, and the beam hardening parameters.  The
    function removes the detector rotation stored in the file.  The model measures lengths in
    detector pixels.

    Args:
        filename (str): The path to the HDF5 file.
        bh_correction (bool, optional): If True, the function applies the beam hardening
            correction with the parameters stored in the file.  Defaults to True.
        auto_crop (bool, optional): If True, the function removes the blank margins of the
            sinogram and shrinks the reconstruction to match.  Defaults to False.
        subsample_view_factor (int, optional): The function keeps every n-th view, where n is
            this value.  Defaults to 1.

    Returns:
        tuple: ``(sino, model)``.  sino is the sinogram, with shape (num_views, num_det_rows,
        num_det_channels).  model is a ConeBeamModel with its parameters set.  Use
        ``mbirtorch.gen_weights`` to compute the weights.

    Example:
        .. code-block:: python

            sino, model = mbirtorch.preprocess.pymbir.get_sino_and_model('scan.h5')
            weights = mbirtorch.gen_weights(sino, weight_type='transmission_root')
            recon, recon_dict = model.recon(sino, weights=weights)
    """
    from . import _loader_utils as lu
    sino, required_params, optional_params = _compute_sino_and_params(filename, bh_correction=bh_correction)
    if subsample_view_factor > 1:
        sino = sino[::subsample_view_factor]
        required_params['angles'] = required_params['angles'][::subsample_view_factor]
        required_params['sinogram_shape'] = sino.shape
    return lu.finalize_model(sino, required_params, optional_params, auto_crop=auto_crop)


def _compute_sino_and_params(filename, bh_correction=True):
    """This function reads an ORNL HDF5 scan and returns ``(sino, required_params,
    optional_params)``.  required_params holds the ConeBeamModel constructor arguments, and
    optional_params holds the settings for ``set_params()``.
    """
    import mbirtorch
    import mbirtorch.preprocess as mtp
    with h5py.File(filename, 'r') as h5_file:
        cone_beam_params, optional_params, det_rotation = create_proj_params_dict_ornl(h5_file)

        sinogram = load_projection_data_ornl(h5_file)
        if bh_correction:
            BHCN_params = h5_file.attrs['BHC_params']
            sinogram = apply_bh_correction(sinogram, BHCN_params)

        if np.abs(det_rotation) > 1e-6:
            sinogram = mtp.correct_det_rotation(sinogram, det_rotation=det_rotation)
            warnings.warn('The detector rotation stored in the file was removed from the sinogram; the sign of that rotation has not been checked against a scan.')

    # build_model resolves the model class from this entry.
    cone_beam_params['geometry_type'] = str(mbirtorch.ConeBeamModel)
    return sinogram, cone_beam_params, optional_params


def create_proj_params_dict_ornl(h5_file):
    """
    This function builds the cone beam geometry dictionaries from an open ORNL HDF5 file.
    The dictionaries give distances in detector pixels and angles in radians.

    Args:
        h5_file (h5py.File):
            An open NSI HDF5 file with these required attributes:
            - 'distance unit', 'det_pixel_size', 'iso_det_dist', 'src_iso_dist'
            - 'voxel_size', 'det_column_offset', 'det_row_offset'
            - 'angle unit', 'angles', 'det_angle'
            - Dataset group 'projection' with at least one entry

    Returns:
        tuple:
            cone_beam_params (dict):
                The required parameters for the ConeBeamModel constructor:
                  - "sinogram_shape" (tuple): The shape of the raw projection array.
                  - "angles" (ndarray): The projection angles in radians.
                  - "source_detector_dist" (float): The source to detector distance in pixels.
                  - "source_iso_dist" (float): The source to isocenter distance in pixels.
            optional_params (dict):
                Additional reconstruction settings for `set_params()`:
                  - "delta_det_channel" (float)
                  - "delta_det_row" (float)
                  - "delta_voxel" (float)
                  - "det_channel_offset" (float)
                  - "det_row_offset" (float)
    """
    # This code converts lengths to detector pixels.
    det_pixel_size = h5_file.attrs['det_pixel_size']
    iso_det_dist = h5_file.attrs['iso_det_dist'] / det_pixel_size
    source_iso_dist = h5_file.attrs['src_iso_dist'] / det_pixel_size
    source_detector_dist = source_iso_dist + iso_det_dist
    delta_voxel = h5_file.attrs['voxel_size'] / det_pixel_size
    det_channel_offset = -h5_file.attrs['det_column_offset'] / det_pixel_size
    det_row_offset = -h5_file.attrs['det_row_offset'] / det_pixel_size
    delta_det_channel = 1.0
    delta_det_row = 1.0

    # This code converts angles to radians.
    if h5_file.attrs['angle unit'] == 'radian':
        angles = h5_file.attrs['angles']
        det_rotation = h5_file.attrs['det_angle']
    else:
        angles = h5_file.attrs['angles'] * np.pi / 180
        det_rotation = h5_file.attrs['det_angle'] * np.pi / 180

    sinogram_shape = h5_file['projection']['NegativeLogNorm_Proj'].shape

    cone_beam_params = dict()
    cone_beam_params["sinogram_shape"] = sinogram_shape
    cone_beam_params["angles"] = angles
    cone_beam_params["source_detector_dist"] = source_detector_dist
    cone_beam_params["source_iso_dist"] = source_iso_dist

    optional_params = dict()
    optional_params["delta_det_channel"] = delta_det_channel
    optional_params["delta_det_row"] = delta_det_row
    optional_params['delta_voxel'] = delta_voxel
    optional_params["det_channel_offset"] = det_channel_offset
    optional_params["det_row_offset"] = det_row_offset

    return cone_beam_params, optional_params, det_rotation


def load_projection_data_ornl(h5_file):
    """
    This function reads the -log(I/I0) sinogram from the first entry of the 'projection' group
    of an ORNL HDF5 file.

    Args:
        h5_file (h5py.File):
            An open NSI HDF5 file that contains a 'projection' group.

    Returns:
        numpy.ndarray:
            The raw sinogram as a float32 array.
    """
    sinogram = h5_file['projection']['NegativeLogNorm_Proj'][()].astype(np.float32)
    return sinogram


def apply_bh_correction(sinogram, BHCN_params):
    """
    This function corrects the beam hardening in a sinogram.  The function fits a polynomial
    from the beam hardening parameters stored by ORNL, and it applies the polynomial to each
    sinogram value.

    Args:
        sinogram (numpy.ndarray):
            The uncorrected sinogram.
        BHCN_params (array-like of length 4):
            The beam hardening parameters [alpha, mu1, mu2, max_thickness].

    Returns:
        numpy.ndarray:
            The sinogram after beam hardening correction.
    """
    alpha, mu1, mu2, max_thickness = BHCN_params
    poly_coefs = find_linearization_fit(alpha, mu1, mu2, max_thick=max_thickness)
    corrected_sinogram = np.polyval(poly_coefs, sinogram)
    corrected_sinogram = np.asarray(corrected_sinogram)
    return corrected_sinogram


def find_linearization_fit(alpha, density1, density2, poly_order=8, max_thick=30.25, step_size=0.25):
    """
    This function fits a polynomial that linearizes the beam-hardened transmission curve.

    Args:
        alpha (float):
            The ratio parameter of the two-material model.
        density1 (float):
            The linear attenuation coefficient of material 1.
        density2 (float):
            The linear attenuation coefficient of material 2.
        poly_order (int, optional):
            The order of the polynomial.  Defaults to 8.
        max_thick (float, optional):
            The largest thickness sampled, in the same units as the sinogram.  Defaults to 30.25.
        step_size (float, optional):
            The spacing between sampled thicknesses.  Defaults to 0.25.

    Returns:
        numpy.ndarray:
            The coefficients of a polynomial that corrects the beam hardening in the measured
            attenuation, -log(I/I0).
    """
    uavg0 = (alpha * density1 + density2) / (1 + alpha)
    t_l = np.arange(0, max_thick, step_size)
    dut = (density2 - density1) * t_l
    prfit_l = density2 * t_l + np.log((1 + alpha) / (1 + alpha * np.exp(dut)))
    xxi_l = np.concatenate(([0], prfit_l))
    yyi_l = np.concatenate(([0], uavg0 * t_l))
    coefs = np.polyfit(xxi_l, yyi_l, poly_order)
    return coefs



