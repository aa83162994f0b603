"""The CV-DAS beamformer running on GPU. 
Coherence-to-variance DAS. (Jipeng Yan et al. 2022)
"""
import logging
import numpy as np

from .beamformer import Beamformer
from ultraspy.utils.beamformers import get_axes_to_reduce

from ultraspy.cpu.kernels.numpy_cores import cvdas as numpy_cvdas

from ultraspy.config import cfg
if cfg.GPU_AVAILABLE:
    from ultraspy.gpu import gpu_utils
    from ultraspy.gpu.kernels.beamformers_kernels import (k_cvdas,
                                                          k_packet_cvdas)


logger = logging.getLogger(__name__)


class CVDelayAndSum(Beamformer):
    """The CVDelayAndSum class performs CV-DAS beamforming on GPU.

    The class inherits from Beamformer, which handles the beamforming setups,
    and calls either the CUDA CV-DAS kernels or the Numpy CV-DAS kernel for
    the actual beamforming operation.

    :ivar str name: The name of the Beamforming method
    :ivar bool is_iq: If set to True, will perform the beamforming expecting
        I/Qs
    :ivar bool on_gpu: If set to True, will perform the beamforming on GPU
    :ivar bool is_same_probe: If set to True, the emission sequences and the
        reception sequences are the same (mostly standard plane waves),
        else case, both sequences are different (mostly STA)
    :ivar list transmissions_indices: The list of the transmissions indices to
        select
    :ivar dict setup: The characteristics of the beamformer, see the getter to
        have the list of the parameters
    :ivar dict options: The options of the beamformer, see the getter to have
        the list of the parameters
    :ivar numpy.ndarray delays: The delays applied to each element, for each
        transmission, of shape (nb_transmission, nb_emitted_elements)
    :ivar numpy.ndarray emitted_probe: The 3D position of each of the element
        of the emitted probe, per transmission, of shape (nb_transmission,
        nb_emitted_elements)
    :ivar numpy.ndarray received_probe: The 3D position of each of the element
        of the received probe, per transmission, of shape (nb_transmission,
        nb_received_elements)
    :ivar numpy.ndarray emitted_thetas: The thetas of each of the element
        of the emitted probe, per transmission, of shape (nb_transmission,
        nb_emitted_elements). Only used for convex probes
    :ivar numpy.ndarray received_thetas: The 3D position of each of the element
        of the received probe, per transmission, of shape (nb_transmission,
        nb_received_elements). Only used for convex probes
    """

    def __init__(self, is_iq=False, on_gpu=True):
        """Initialization for the CV-DAS beamformer.

        :param bool is_iq: If set to True, the beamformer expects to process
            I/Q data
        :param bool on_gpu: If True, all the setups are defined on GPU
        """
        super().__init__(is_iq=is_iq, on_gpu=on_gpu)
        self._name = 'cvDAS'

    def beamform_gpu(self, d_data, scan):
        """Runs the CV-DAS beamformer using cupy (CUDA kernel on GPU).

        :param cupy.array d_data: The cupy.array data to beamform, stored on
            GPU, either in float or complex, based on the beamforming mode. The
            shape should be (nb_transmissions, nb_emitted_elements,
            nb_time_samples)
        :param Scan scan: The scan to beamform, with the pixels we are willing
            to process

        :returns: The beamformed data. Its shape depends on the beamforming
            options, but its last dimensions will be the one requested in
            scan.shape. If compound option is set to False, it will preserve
            the transmissions and look like (nb_transmissions, \\*scan.shape)
        :return type: cupy.array
        """
        ss = self.setups
        so = self.options

        if not scan.on_gpu:
            scan.set_on_gpu(True)

        _, nb_re, nb_ts = d_data.shape
        nb_t, nb_ee = self.delays.shape
        d_xx, d_yy, d_zz = scan.ravel_pixels()
        nb_pixels = d_xx.size
        dim_nb_t = nb_t if so['compound'] == 0 else 1
        dim_nb_re = nb_re if so['reduce'] == 0 else 1
        d_grid = gpu_utils.send_to_gpu(
            np.zeros((dim_nb_t, dim_nb_re, nb_pixels)), np.complex64)
        d_focused_data = gpu_utils.send_to_gpu(
            np.zeros((nb_pixels, nb_re)), np.complex64)
        g_dim, b_dim = gpu_utils.compute_flat_grid_size(nb_pixels)
        k_cvdas(g_dim, b_dim,
                (d_data, np.uint32(self.is_iq),
                 self.emitted_probe, self.received_probe,
                 self.emitted_thetas, self.received_thetas, self.delays,
                 np.uint32(nb_t), np.uint32(nb_ee), np.uint32(nb_re),
                 np.uint32(nb_ts),
                 ss['sampling_freq'], ss['central_freq'], np.float32(self.t0),
                 ss['sound_speed'], ss['f_number'],
                 d_xx, d_yy, d_zz,
                 np.uint32(dim_nb_t), np.uint32(dim_nb_re),
                 d_focused_data, d_grid, np.uint32(nb_pixels),
                 so['interpolation'], so['reduction'], so['rx_apodization'],
                 so['rx_apodization_alpha'], so['emitted_aperture'],
                 so['compound'], so['reduce']))

        axes = get_axes_to_reduce(so['compound'], so['reduce'])
        d_grid = gpu_utils.squeeze_axes(d_grid, axes=axes)
        return gpu_utils.reshape(d_grid, d_grid.shape[:-1] + scan.shape)

    def beamform_cpu(self, data, scan):
        """Runs the CV-DAS beamformer using Numpy on CPU.

        :param numpy.ndarray data: the data to beamform, either in float or
            complex, based on the beamforming mode. The shape should be
            (nb_transmissions, nb_emitted_elements, nb_time_samples)
        :param Scan scan: the scan to beamform, with the pixels we are willing
            to process

        :returns: The beamformed data. Its shape depends on the beamforming
            options, but its last dimensions will be the one requested in
            scan.shape. If compound option is set to False, it will preserve
            the transmissions and look like (nb_transmissions, \\*scan.shape)
        :return type: numpy.ndarray
        """
        if scan.on_gpu:
            scan.set_on_gpu(False)

        xx, yy, zz = scan.ravel_pixels()
        grid = self._beamform_numpy(data, xx, yy, zz, self.setups,
                                    self.options)
        return np.reshape(grid, grid.shape[:-1] + scan.shape)

    def beamform_packet_gpu(self, d_data, scan):
        """Runs the CV-DAS beamformer on a packet of data using cupy.

        :param cupy.array d_data: The cupy.array data to beamform, stored on
            GPU, either in float or complex, based on the beamforming mode. The
            shape should be (nb_frames, nb_transmissions, nb_emitted_elements,
            nb_time_samples)
        :param Scan scan: The scan to beamform, with the pixels we are willing
            to process

        :returns: The beamformed data. Its shape depends on the beamforming
            options, but if compound and reduce are set to True, its shape
            would be (\\*scan.shape, nb_frames). If compound is set to False,
            the transmissions will be preserved in the first dimension as for
            the ::code::`beamform` method above
        :return type: cupy.array
        """
        ss = self.setups
        so = self.options

        if not scan.on_gpu:
            scan.set_on_gpu(True)

        nb_f, _, nb_re, nb_ts = d_data.shape
        nb_t, nb_ee = self.delays.shape
        d_xx, d_yy, d_zz = scan.ravel_pixels()
        nb_pixels = d_xx.size
        dim_nb_t = nb_t if so['compound'] == 0 else 1
        dim_nb_re = nb_re if so['reduce'] == 0 else 1
        d_grid = gpu_utils.send_to_gpu(
            np.zeros((dim_nb_t, dim_nb_re, nb_pixels, nb_f)), np.complex64)
        d_focused_data = gpu_utils.send_to_gpu(
            np.zeros((nb_pixels, nb_f, nb_re)), np.complex64)
        g_dim, b_dim = gpu_utils.compute_flat_grid_size(nb_pixels * nb_f)
        k_packet_cvdas(g_dim, b_dim,
                       (d_data, np.uint32(self.is_iq),
                        self.emitted_probe, self.received_probe,
                        self.emitted_thetas, self.received_thetas, self.delays,
                        np.uint32(nb_f), np.uint32(nb_t),
                        np.uint32(nb_ee), np.uint32(nb_re), np.uint32(nb_ts),
                        ss['sampling_freq'], ss['central_freq'],
                        np.float32(self.t0), ss['sound_speed'],
                        ss['f_number'],
                        d_xx, d_yy, d_zz,
                        np.uint32(dim_nb_t), np.uint32(dim_nb_re),
                        d_focused_data, d_grid, np.uint32(nb_pixels * nb_f),
                        so['interpolation'], so['reduction'],
                        so['rx_apodization'], so['rx_apodization_alpha'],
                        so['emitted_aperture'], so['compound'],
                        so['reduce']))

        axes = get_axes_to_reduce(so['compound'], so['reduce'])
        d_grid = gpu_utils.squeeze_axes(d_grid, axes=axes)
        return gpu_utils.reshape(
            d_grid, d_grid.shape[:-2] + scan.shape + d_grid.shape[-1:])

    def beamform_packet_cpu(self, data, scan):
        """Runs the CV-DAS beamformer on a packet of data using Numpy.

        :param numpy.ndarray data: the data to beamform, either in float or
            complex, based on the beamforming mode. The shape should be
            (nb_frames, nb_transmissions, nb_emitted_elements, nb_time_samples)
        :param Scan scan: the scan to beamform, with the pixels we are willing
            to process

        :returns: The beamformed data. Its shape depends on the beamforming
            options, but if compound and reduce are set to True, its shape
            would be (\\*scan.shape, nb_frames). If compound is set to False,
            the transmissions will be preserved in the first dimension as for
            the ::code::`beamform` method above
        :return type: numpy.ndarray
        """
        if scan.on_gpu:
            scan.set_on_gpu(False)

        xx, yy, zz = scan.ravel_pixels()
        grid = self._beamform_packet_numpy(data, xx, yy, zz, self.setups,
                                           self.options)
        return np.reshape(grid, grid.shape[:-2] + scan.shape + grid.shape[-1:])

    def _checkup_lib_compatibility(self, option_name, option_value):
        """Checks if the current library is compatible with the option value.

        :param str option_name: The name of the option to change
        :param int, float option_value: The value to update

        :returns: The new value for the option, that will work for sure
        :return type: int, float
        """
        option_value = super()._checkup_lib_compatibility(
            option_name, option_value)

        if option_name == 'reduce':
            if option_value == 0:
                logger.warning("Reduction must be done with CV-DAS.")
                option_value = 1

        return option_value

    ###########################################################################
    # Numpy callers
    ###########################################################################
    def _beamform_numpy(self, data, xs, ys, zs, setups, options):
        """Caller, will call Numpy CV-DAS beamforming kernel.

        :param numpy.ndarray data: the data to beamform, either in float or
            complex, based on the beamforming mode. The shape should be
            (nb_transmissions, nb_emitted_elements, nb_time_samples)
        :param numpy.ndarray xs: the lateral coordinates of the pixels, ravelled
        :param numpy.ndarray ys: the elevational coordinates of the pixels,
            ravelled
        :param numpy.ndarray zs: the axial coordinates of the pixels, ravelled
        :param dict setups: the dictionary with the setups info
        :param dict options: the dictionary with the options info

        :returns: The beamformed data, of shape (nb_kept_transmissions,
            nb_kept_elements, nb_pixels)
        :return type: numpy.ndarray
        """
        # Limit the size of the temporary matrices created by the NumPy core.
        # Their main dimensions are (nb_transmissions, nb_elements, nb_pixels),
        # so processing a large scan at once can exceed the memory available on
        # CI runners. Each pixel is independent, therefore splitting the scan
        # does not change the CV-DAS calculation.
        max_focused_values = 4_000_000
        channels_per_pixel = data.shape[0] * data.shape[1]
        chunk_size = max(1, max_focused_values // channels_per_pixel)
        grids = []

        for start in range(0, xs.size, chunk_size):
            end = min(start + chunk_size, xs.size)
            grids.append(numpy_cvdas.cv_delay_and_sum(
                data, self.is_iq,
                self.emitted_probe, self.received_probe,
                self.emitted_thetas, self.received_thetas, self.delays,
                setups['sampling_freq'], setups['central_freq'],
                np.float32(self.t0), setups['sound_speed'], setups['f_number'],
                xs[start:end], ys[start:end], zs[start:end],
                options['interpolation'], options['reduction'],
                options['emitted_aperture'], options['reduce'],
                options['compound'], self.is_same_probe))

        return np.concatenate(grids, axis=-1)

    def _beamform_packet_numpy(self, data, xs, ys, zs, setups, options):
        """Caller, will call Numpy CV-DAS beamforming kernel on a packet.

        :param numpy.ndarray data: the data to beamform, either in float or
            complex, based on the beamforming mode. The shape should be
            (nb_frames, nb_transmissions, nb_emitted_elements, nb_time_samples)
        :param numpy.ndarray xs: the lateral coordinates of the pixels, ravelled
        :param numpy.ndarray ys: the elevational coordinates of the pixels,
            ravelled
        :param numpy.ndarray zs: the axial coordinates of the pixels, ravelled
        :param dict setups: the dictionary with the setups info
        :param dict options: the dictionary with the options info

        :returns: The beamformed data, of shape (nb_kept_transmissions,
            nb_kept_elements, nb_pixels, nb_frames)
        :return type: numpy.ndarray
        """
        grids = []
        for frame in data:
            grids.append(self._beamform_numpy(frame, xs, ys, zs, setups,
                                              options))
        return np.moveaxis(np.array(grids), 0, -1)
