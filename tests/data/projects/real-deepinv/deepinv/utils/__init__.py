from .logger import AverageMeter, ProgressMeter, get_timestamp
from .plotting import (
    plot,
    torch2cpu,
    plot_curves,
    plot_parameters,
    plot_inset,
    plot_videos,
    save_videos,
    make_grid,
    resize_pad_square_tensor,
    scatter_plot,
    plot_ortho3D,
    rescale_img,  # deprecated
    enable_tex,
    disable_tex,
)
from .demo import (
    load_url_image,
    load_example,
    load_image,
    load_dataset,
    load_degradation,
    get_data_home,
    get_image_url,
    get_degradation_url,
    download_example,
    load_torch_url,
    load_np_url,
)
from .nn import get_freer_gpu, get_device, devices_equal
from .tensorlist import (
    TensorList,
    rand_like,
    zeros_like,
    randn_like,
    ones_like,
    dirac,
    dirac_comb,
    dirac_like,
    dirac_comb_like,
)
from .phantoms import (
    RandomPhantomDataset,
    SheppLoganDataset,
    NEMAIECPhantomDataset,
    generate_nema_iec_phantom,
)
from .patch_extractor import (
    patch_extractor,
    image_to_patches,
    patches_to_image,
    patchify,
)
from .parameters import get_GSPnP_params
from .signals import normalize_signal, complex_abs, hilbert, bmode
from .mixins import TimeMixin, MRIMixin, TiledMixin2d
from .io import (
    DownloadError,
    get_cache_home,
    load_dicom,
    load_nifti,
    load_tiff,
    load_url,
    load_np,
    load_torch,
    load_mat,
    load_raster,
    load_ismrmd,
    load_raw,
    load_ismrmrd_raw,
    load_blosc2,
)
from .napari import plot_napari
from .rng import _fork_rng
