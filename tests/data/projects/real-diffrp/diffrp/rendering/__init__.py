from .camera import Camera, RawCamera, PerspectiveCamera
from .denoiser import get_denoiser, run_denoiser
from .interpolator import Interpolator, MaskedSparseInterpolator, FullScreenInterpolator, polyfill_interpolate
from .mixin import RenderSessionMixin
from .path_tracing import PathTracingSession, PathTracingSessionOptions, RayOutputs
from .surface_deferred import SurfaceDeferredRenderSession, SurfaceDeferredRenderSessionOptions
