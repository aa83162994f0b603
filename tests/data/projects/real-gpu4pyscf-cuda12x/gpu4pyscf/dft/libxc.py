# Copyright 2021-2024 The PySCF Developers. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

import numpy as np
import ctypes
import cupy
import copy
from ctypes import POINTER
# Note: gpu4pyscf relies on pyscf.dft.libxc for parsing XC functionals (e.g. parse_xc),
# which uses pyscf.scf.dispersion.parse_dft. The local gpu4pyscf.scf.dispersion.parse_dft is not used here.
from pyscf.dft import libxc as libxc_cpu
from gpu4pyscf.dft.libxc_structs import xc_lda_out_params, xc_gga_out_params, xc_mgga_out_params
from gpu4pyscf.lib.utils import load_library
from gpu4pyscf.dft import libxc_structs

# monkey patch libxc reference due to a bug in nvcc
__reference__ = 'unable to decode the reference due to https://github.com/NVIDIA/cuda-python/issues/29'

# CPU routines
is_nlc           = libxc_cpu.is_nlc
is_hybrid_xc     = libxc_cpu.is_hybrid_xc
test_deriv_order = libxc_cpu.test_deriv_order

_libxc = load_library('libxc', path='gpu4pyscf/lib/deps/lib')

libgdft = load_library('libgdft')
libgdft.GDFT_xc_lda.argtypes = (
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_void_p,
    POINTER(xc_lda_out_params),
    POINTER(xc_lda_out_params))

libgdft.GDFT_xc_gga.argtypes = (
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_void_p,
    POINTER(xc_gga_out_params),
    POINTER(xc_gga_out_params))

libgdft.GDFT_xc_mgga.argtypes = (
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    POINTER(xc_mgga_out_params),
    POINTER(xc_mgga_out_params))

_libxc.xc_version_string.restype = ctypes.c_char_p
_libxc_version = _libxc.xc_version_string().decode()
__version__ = _libxc_version + ' (CUDA)'
# The packaged 7.0.0 fork inserts params_size before the four thresholds.
# Select the layout before binding xc_func_alloc and the other C functions.
if _libxc_version == '7.0.0':
    xc_func_type = libxc_structs.xc_func_type_700
else:
    xc_func_type = libxc_structs.xc_func_type

LDA_OUTPUT_LABELS = [
                "zk",       # 1, 1
                "vrho",     # 1, 2
                "v2rho2",   # 1, 3
                "v3rho3",   # 1, 4
                "v4rho4"    # 1, 5
            ]

GGA_OUTPUT_LABELS = [
                "zk",                                                               # 1, 1
                "vrho", "vsigma",                                                   # 2, 3
                "v2rho2", "v2rhosigma", "v2sigma2",                                 # 3, 6
                "v3rho3", "v3rho2sigma", "v3rhosigma2", "v3sigma3",                 # 4, 10
                "v4rho4", "v4rho3sigma", "v4rho2sigma2", "v4rhosigma3", "v4sigma4"  # 5, 15
            ]

MGGA_OUTPUT_LABELS =         [
                "zk",                                                                # 1, 1
                "vrho", "vsigma", "vlapl", "vtau",                                   # 4, 5
                "v2rho2", "v2rhosigma", "v2rholapl", "v2rhotau", "v2sigma2",         # 10, 15
                "v2sigmalapl", "v2sigmatau", "v2lapl2", "v2lapltau",  "v2tau2",
                "v3rho3", "v3rho2sigma", "v3rho2lapl", "v3rho2tau", "v3rhosigma2",   # 20, 35
                "v3rhosigmalapl", "v3rhosigmatau", "v3rholapl2", "v3rholapltau",
                "v3rhotau2", "v3sigma3", "v3sigma2lapl", "v3sigma2tau",
                "v3sigmalapl2", "v3sigmalapltau", "v3sigmatau2", "v3lapl3",
                "v3lapl2tau", "v3lapltau2", "v3tau3",
                "v4rho4", "v4rho3sigma", "v4rho3lapl", "v4rho3tau", "v4rho2sigma2",  # 35, 70
                "v4rho2sigmalapl", "v4rho2sigmatau", "v4rho2lapl2", "v4rho2lapltau",
                "v4rho2tau2", "v4rhosigma3", "v4rhosigma2lapl", "v4rhosigma2tau",
                "v4rhosigmalapl2", "v4rhosigmalapltau", "v4rhosigmatau2",
                "v4rholapl3", "v4rholapl2tau", "v4rholapltau2", "v4rhotau3",
                "v4sigma4", "v4sigma3lapl", "v4sigma3tau", "v4sigma2lapl2",
                "v4sigma2lapltau", "v4sigma2tau2", "v4sigmalapl3", "v4sigmalapl2tau",
                "v4sigmalapltau2", "v4sigmatau3", "v4lapl4", "v4lapl3tau",
                "v4lapl2tau2", "v4lapltau3", "v4tau4"
            ]

def _check_arrays(current_arrays, fields, sizes, factor, required):
    """
    A specialized function built to construct and check the sizes of arrays given to the LibXCFunctional class.
    """
    # Nothing supplied so we build it out
    if current_arrays is None:
        current_arrays = {}

    if not required:
        return current_arrays

    for label in fields:
        size = sizes[label]
        # [0] for output, [1] for temporary storage
        current_arrays[label] = cupy.empty((2, factor, size), dtype=np.float64)

    return current_arrays

class _xcfun(ctypes.Structure):
    pass

if _libxc is not None:
    _xc_func_p = ctypes.POINTER(xc_func_type)
    _libxc.xc_func_alloc.restype = _xc_func_p
    _libxc.xc_func_init.argtypes = (_xc_func_p, ctypes.c_int, ctypes.c_int)
    _libxc.xc_func_end.argtypes = (_xc_func_p, )
    _libxc.xc_func_free.argtypes = (_xc_func_p, )
    _libxc.xc_functional_get_name.argtypes = (ctypes.c_int, )
    _libxc.xc_functional_get_name.restype = ctypes.c_char_p
    _libxc.xc_func_info_get_n_ext_params.argtypes = (ctypes.c_void_p, )
    _libxc.xc_func_info_get_n_ext_params.restype = ctypes.c_int
    _libxc.xc_func_info_get_ext_params_name.argtypes = (ctypes.c_void_p, ctypes.c_int)
    _libxc.xc_func_info_get_ext_params_name.restype = ctypes.c_char_p
    _libxc.xc_func_set_ext_params_name.argtypes = (_xc_func_p, ctypes.c_char_p, ctypes.c_double)

    nfunc = _libxc.xc_number_of_functionals()
    XC_IDS = np.zeros(nfunc, dtype=np.int32)
    _libxc.xc_available_functional_numbers(XC_IDS.ctypes)
    XC_CODES = {_libxc.xc_functional_get_name(x).decode().upper() : x for x in XC_IDS}
    for xc_name, xc_id in XC_CODES.items():
        if xc_name in libxc_cpu.XC_CODES:
            assert libxc_cpu.XC_CODES[xc_name] == xc_id, \
                    'Libxc for PySCF and GPU4PySCF incompatible'


def _has_omega(func):
    info = ctypes.cast(func.contents.info, ctypes.c_void_p)
    n = _libxc.xc_func_info_get_n_ext_params(info)
    return any(_libxc.xc_func_info_get_ext_params_name(info, i) == b'_omega'
               for i in range(n))

def _set_omega(func, omega):
    '''Set the range-separation parameter as pyscf does in LIBXC_xc_func_set_params'''
    if _has_omega(func):
        _libxc.xc_func_set_ext_params_name(func, b'_omega', omega)
    func_aux = ctypes.cast(func.contents.xc_func_type, POINTER(_xc_func_p))
    for i in range(func.contents.n_func_aux):
        if _has_omega(func_aux[i]):
            _libxc.xc_func_set_ext_params_name(func_aux[i], b'_omega', omega)

class XCfun:
    def __init__(self, xc, spin, omega=0):
        self.spin = spin
        self._spin = 1 if spin == 'unpolarized' else 2
        if isinstance(xc, str):
            xc = xc.upper()
            self.on_gpu = xc in XC_CODES
            if self.on_gpu:
                self.func_id = XC_CODES[xc]
            else:
                self.func_id = libxc_cpu.XC_CODES[xc]
        else:
            self.on_gpu = xc in XC_IDS
            self.func_id = xc
        self._family = libxc_cpu.xc_type(xc)

        self.xc_func = None
        if self.on_gpu:
            self.xc_func = _libxc.xc_func_alloc()
            ret = _libxc.xc_func_init(self.xc_func, self.func_id, self._spin)
            if ret != 0:
                raise RuntimeError('failed to initialize xc fun')
            if omega != 0:
                _set_omega(self.xc_func, omega)

            self.xc_func_sizes = {}
            for attr in dir(self.xc_func.contents.dim):
                if "_" not in attr:
                    self.xc_func_sizes[attr] = getattr(self.xc_func.contents.dim, attr)

    def __del__(self):
        if self.xc_func is None:
            return
        if _libxc is not None:
            _libxc.xc_func_end(self.xc_func)
            _libxc.xc_func_free(self.xc_func)

    def needs_laplacian(self):
        return libxc_cpu.needs_laplacian(self.func_id)

    rsh_coeff = libxc_cpu.rsh_coeff

    def compute(self, inp, output=None, do_exc=True, do_vxc=True, do_fxc=False, do_kxc=False, do_lxc=False):
        assert not do_lxc
        assert self.on_gpu

        if isinstance(inp, cupy.ndarray):
            inp = {"rho": cupy.asarray(inp, dtype=cupy.double)}
        elif isinstance(inp, dict):
            inp = {k: cupy.asarray(v, dtype=cupy.double) for k, v in inp.items()}
        else:
            raise KeyError("Input must have a 'rho' variable or a single array.")

        # How long are we?
        npoints = inp["rho"].size // self._spin
        if (inp["rho"].size % self._spin):
            raise ValueError("Rho input has an invalid shape, must be divisible by %d" % self._spin)

        # Find the right compute function
        xc_func_sizes = self.xc_func_sizes
        if self._family == 'LDA':
            output_labels = LDA_OUTPUT_LABELS
            output = {label: None for label in output_labels}

            output = _check_arrays(output, output_labels[0:1], xc_func_sizes, npoints, do_exc)
            output = _check_arrays(output, output_labels[1:2], xc_func_sizes, npoints, do_vxc)
            output = _check_arrays(output, output_labels[2:3], xc_func_sizes, npoints, do_fxc)
            output = _check_arrays(output, output_labels[3:4], xc_func_sizes, npoints, do_kxc)
            output = _check_arrays(output, output_labels[4:5], xc_func_sizes, npoints, do_lxc)

            out_params = xc_lda_out_params()
            buf_params = xc_lda_out_params()
            for label, array in output.items():
                if array is not None:
                    setattr(out_params, label, array[0].data.ptr)
                    setattr(buf_params, label, array[1].data.ptr)
            stream = cupy.cuda.get_current_stream()
            err = libgdft.GDFT_xc_lda(
                stream.ptr,
                self.xc_func,
                npoints,
                inp['rho'].data.ptr,
                ctypes.byref(out_params),
                ctypes.byref(buf_params)
            )
            if err != 0:
                raise RuntimeError('Failed in xc_gga')
        elif self._family == 'GGA':
            output_labels = GGA_OUTPUT_LABELS
            output = {label: None for label in output_labels}

            output = _check_arrays(output, output_labels[0:1], xc_func_sizes, npoints, do_exc)
            output = _check_arrays(output, output_labels[1:3], xc_func_sizes, npoints, do_vxc)
            output = _check_arrays(output, output_labels[3:6], xc_func_sizes, npoints, do_fxc)
            output = _check_arrays(output, output_labels[6:10], xc_func_sizes, npoints, do_kxc)
            output = _check_arrays(output, output_labels[10:15], xc_func_sizes, npoints, do_lxc)

            out_params = xc_gga_out_params()
            buf_params = xc_gga_out_params()
            for label, array in output.items():
                if array is not None:
                    setattr(out_params, label, array[0].data.ptr)
                    setattr(buf_params, label, array[1].data.ptr)

            stream = cupy.cuda.get_current_stream()
            err = libgdft.GDFT_xc_gga(
                stream.ptr,
                self.xc_func,
                npoints,
                inp['rho'].data.ptr,
                inp['sigma'].data.ptr,
                ctypes.byref(out_params),
                ctypes.byref(buf_params)
            )
            if err != 0:
                raise RuntimeError('Failed in xc_gga')

        elif self._family == 'MGGA':
            output_labels = MGGA_OUTPUT_LABELS
            output = {label: None for label in output_labels}

            output = _check_arrays(output, output_labels[0:1], xc_func_sizes, npoints, do_exc)
            output = _check_arrays(output, output_labels[1:5], xc_func_sizes, npoints, do_vxc)
            output = _check_arrays(output, output_labels[5:15], xc_func_sizes, npoints, do_fxc)
            output = _check_arrays(output, output_labels[15:35], xc_func_sizes, npoints, do_kxc)
            output = _check_arrays(output, output_labels[35:70], xc_func_sizes, npoints, do_lxc)

            out_params = xc_mgga_out_params()
            buf_params = xc_mgga_out_params()
            for label, array in output.items():
                if array is not None:
                    setattr(out_params, label, array[0].data.ptr)
                    setattr(buf_params, label, array[1].data.ptr)
            stream = cupy.cuda.get_current_stream()
            lapl = cupy.empty(0)
            err = libgdft.GDFT_xc_mgga(
                stream.ptr,
                self.xc_func,
                npoints,
                inp['rho'].data.ptr,
                inp['sigma'].data.ptr,
                lapl.data.ptr,
                inp['tau'].data.ptr,
                ctypes.byref(out_params),
                ctypes.byref(buf_params)
            )
            if err != 0:
                raise RuntimeError('Failed in xc_mgga')
        else:
            raise KeyError(f"Functional kind {self._family} not supported")

        return {k: v[0] for k, v in output.items() if v is not None}
