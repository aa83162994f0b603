import inspect
import warnings
import torch
import numpy as np
from scipy.ndimage import gaussian_filter
from skimage.measure import block_reduce
import skimage.transform
import skimage.morphology as morph
from joblib import Parallel, delayed
import einops as ein
from torch.nn.functional import interpolate as torch_interpolate
import os
import requests

# Imported inline to avoid heavy memory usage when the functions are not used:
# from matplotlib import pyplot as plt
# from sklearn.decomposition import PCA
# from sklearn.cluster import KMeans
# napari.utils (see details below)


### PCA and Kmeans on feature images

def apply_pca_to_f_image(feature_img, n_components, norm=True):
    
    from sklearn.decomposition import PCA

    spatial_dims = feature_img.shape[1:]

    feature_img = np.moveaxis(feature_img, 0, -1) # Move features to last dimension
    num_features = feature_img.shape[-1]
    if n_components > num_features:
        warnings.warn(f"Requested number of PCA components ({n_components}) exceeds number of features ({num_features}). Using {num_features} components instead.")
        n_components = num_features
    features_linear = feature_img.reshape(-1, num_features)

    pca = PCA(n_components=n_components)
    princ_comp = pca.fit_transform(features_linear) # returns (n_samples, n_components)

    if norm:
        pc_norm = (princ_comp - np.min(princ_comp)) / (np.max(princ_comp) - np.min(princ_comp))
    else:
        pc_norm = princ_comp

    pc_norm = pc_norm.reshape(spatial_dims + (n_components,)) # Reshape back to spatial dimensions
    pc_norm = np.moveaxis(pc_norm, -1, 0) # Move features back to first dimension

    return pc_norm

def apply_kmeans_to_f_image(feature_img, n_clusters, random_state=None):

    from sklearn.cluster import KMeans
    
    spatial_dims = feature_img.shape[1:]

    feature_img = np.moveaxis(feature_img, 0, -1) # Move features to last dimension
    num_features = feature_img.shape[-1]
    features_linear = feature_img.reshape(-1, num_features)

    kmeans = KMeans(n_clusters=n_clusters, random_state=random_state)
    kmeans_labels = kmeans.fit_predict(features_linear) # returns (n_samples,)

    kmeans_labels = kmeans_labels.reshape(spatial_dims) # Reshape back to spatial dimensions

    kmeans_labels = kmeans_labels.astype(np.uint8) + 1 # Make sure labels start at 1

    return kmeans_labels


### Instance creation from semantic segmentaiton

def create_instances_from_semantic(segmentations, min_size=100, split_touching=True, classes=None, per_plane=False, warn=True):
    """
    Create instance masks from semantic segmentation masks.

    Parameters:
    ----------
    segmentations : list of np.ndarray or a single np.ndarray
        List of semantic segmentation masks. Each mask should have shape (H, W) or (Z, H, W).
    min_size : int
        Minimum size (in pixels) of objects to keep. Smaller objects are removed, and holes smaller than a quarter of
        it are filled (a hole as large as an object is a feature, not noise, e.g. in ring-shaped objects).
        Use 0 to keep everything. With split_touching, it also sets the minimum distance between two objects.
    split_touching : bool
        If True, objects that touch are separated with a distance watershed (seeds for roughly circular objects of
        area min_size, so it needs min_size > 0). If False, every connected region is one instance, and min_size
        only removes and fills.
    classes : list of int, optional
        List of classes to create instances for. If None, all classes in the segmentations will be used. Always skips 0 (unlabelled) and 1 (background).
    per_plane : bool
        If True, and the segmentation masks are 3D, each plane will be labeled and filtered separately. If False, the 3D mask is treated as a whole.
    warn : bool
        If True, a warning will be issued if no class 1 is found in the segmentations.
    
    """
    if min_size < 0:
        raise ValueError(f'min_size must be >= 0 (0 = no filtering), got {min_size}.')

    # Assure list input for segmentations
    single_input = hasattr(segmentations, 'ndim') and segmentations.ndim >= 2 and not isinstance(segmentations, (list, tuple))
    if single_input:
        segmentations = [segmentations]
    if len(segmentations) == 0:
        return []

    # Check for classes across segmentations
    if classes is None:
        classes = np.unique(np.concatenate([s.ravel() for s in segmentations]))
        if not 1 in classes:
            if warn:
                warnings.warn(f"No class 1 found in segmentations. Found classes: {classes}.\n" +
                              f"This might be intentional. But typically class 1 is the background class, and classes > 1 are the objects of interest.\n" +
                              f"You can turn this warning off by setting `warn=False`.")

    from skimage.measure import label

    split = split_touching and min_size > 0 # Without a size, there is no distance to separate the objects by
    max_hole_size = max(0, min_size // 4 - 1) # Only small holes are noise; a large one is part of the object (e.g. a ring)

    instance_masks = [np.zeros_like(segmentation, dtype=np.int32) for segmentation in segmentations]
    global_max = 0

    for c in classes:
        if c in (0, 1):
            continue # Skip the unlabelled (0) and background (1) classes

        class_start = global_max + 1

        for segmentation, instance_mask in zip(segmentations, instance_masks):
            
            semantic_class_mask = segmentation == c
            per_plane_3d = per_plane and semantic_class_mask.ndim == 3

            if min_size > 0 and not per_plane_3d: # Remove small objects and fill small holes
                semantic_class_mask = _fill_holes_up_to(semantic_class_mask, max_hole_size)
                semantic_class_mask = _remove_objects_below(semantic_class_mask, min_size)

            if per_plane_3d: # If we do NOT want true 3D interpretation, but have 3D masks, we loop over the planes and label them separately
                for z in range(semantic_class_mask.shape[0]):
                    semantic_mask_plane = semantic_class_mask[z]
                    instance_mask_plane = instance_mask[z]

                    if min_size > 0: # Filter per plane as well, since the plane is the unit here
                        semantic_mask_plane = _fill_holes_up_to(semantic_mask_plane, max_hole_size)
                        semantic_mask_plane = _remove_objects_below(semantic_mask_plane, min_size)

                    # from skimage.morphology import binary_erosion, disk
                    # semantic_mask_plane = binary_erosion(semantic_mask_plane, disk(1)) # Separate touching objects
                    if split:
                        l = distance_watershed(semantic_mask_plane, min_distance=_min_distance(min_size, 2)) # Use distance transform and watershed to separate touching objects
                        if min_size > 0:
                            l = _merge_instances_below(l, min_size) # The split can cut an object into pieces below min_size
                    else:
                        l = label(semantic_mask_plane)

                    keep = l > 0
                    new_slice = l + global_max # Offset the labels by the current global max to ensure unique instance IDs across planes
                    instance_mask_plane[keep] = new_slice[keep]

                    global_max = max(global_max, int(instance_mask.max()))

            else: # For true 3D and 2D, we can label the mask directly
                # from skimage.morphology import binary_erosion, disk
                # semantic_class_mask = binary_erosion(semantic_class_mask, disk(1)) # Separate touching objects
                if split:
                    l = distance_watershed(semantic_class_mask, min_distance=_min_distance(min_size, semantic_class_mask.ndim)) # Use distance transform and watershed to separate touching objects
                    if min_size > 0:
                        l = _merge_instances_below(l, min_size) # The split can cut an object into pieces below min_size
                else:
                    l = label(semantic_class_mask)

                keep = l > 0
                new_mask = l + global_max # Offset the labels by the current global max to ensure unique instance IDs across segmentations
                instance_mask[keep] = new_mask[keep]

            global_max = max(global_max, int(instance_mask.max()))

        if global_max >= class_start: # Nothing to report for classes without objects
            print(f"Turned class {c} into instances {class_start}-{global_max}.")

    if single_input:
        return instance_masks[0]
    return instance_masks

def _min_distance(min_size, ndim):
    """Minimum distance between two watershed seeds: the diameter of a round object of min_size.

    min_size counts pixels in 2D and voxels in 3D, so the diameter follows from the area of a disc
    or the volume of a sphere accordingly. Taking the 2D formula for a stack would overestimate the
    distance several times over (1000 voxels: 34 px instead of 12) and merge objects that touch.
    """
    if ndim == 3:
        radius = (3 * min_size / (4 * np.pi))**(1/3)
    else:
        radius = (min_size / np.pi)**0.5
    return max(2, 2*int(radius))

def _merge_instances_below(instances, min_size):
    """Give the pixels of instances smaller than min_size to the neighbouring instance.

    The size filter runs on the semantic mask, before the objects are separated, so a split
    can still cut an object that is large enough into pieces that are not. Those pieces are
    not dropped but merged into the instance next to them, which keeps the object itself and
    its area intact. If all instances of one object are too small, the largest one is kept and
    absorbs the others. The result is relabelled consecutively.
    """
    from scipy import ndimage as ndi

    sizes = np.bincount(instances.ravel())
    too_small = sizes < min_size
    too_small[0] = False
    if not too_small.any():
        return instances

    # Never let an object disappear completely: keep the largest instance of each object
    objects, n_objects = ndi.label(instances > 0)
    labelled = instances > 0
    object_of = np.zeros(len(sizes), dtype=np.int32)
    object_of[instances[labelled]] = objects[labelled] # All pixels of an instance share one object
    for obj in range(1, n_objects + 1):
        here = np.flatnonzero(object_of == obj)
        if len(here) and too_small[here].all():
            too_small[here[np.argmax(sizes[here])]] = False

    # Flood the freed pixels from the kept instances, restricted to the objects themselves, so
    # that a piece always joins an instance of its own object and never one lying close by
    from skimage.segmentation import watershed
    kept = np.where(too_small[instances], 0, instances)
    merged = watershed(np.zeros_like(kept, dtype=np.uint8), kept, mask=labelled)

    remaining = np.unique(merged)
    remaining = remaining[remaining > 0]
    lookup = np.zeros(int(merged.max()) + 1, dtype=np.int32)
    lookup[remaining] = np.arange(1, len(remaining) + 1)
    return lookup[merged]

def distance_watershed(mask, min_distance):

    from scipy import ndimage as ndi
    from skimage.feature import peak_local_max
    from skimage.segmentation import watershed

    distance = ndi.distance_transform_edt(mask)

    coords = peak_local_max(distance, min_distance=min_distance, labels=mask, exclude_border=False)
    markers = np.zeros_like(mask, dtype=np.int32)
    markers[tuple(coords.T)] = np.arange(1, len(coords)+1)

    labels = watershed(-distance, markers, mask=mask)

    return labels

# scikit-image 0.26 replaced the size keywords of remove_small_objects (min_size) and
# remove_small_holes (area_threshold) with max_size, and changed the limit from "smaller
# than" to "smaller than or equal to". The old keywords still work there, but emit a
# FutureWarning AND are mapped onto max_size, so they mean one pixel more than they used
# to - they are therefore only safe to use on older versions. We check once which keyword
# the installed version offers and translate the size accordingly.
_SKIMAGE_MAX_SIZE = 'max_size' in inspect.signature(morph.remove_small_objects).parameters

def _remove_objects_below(mask, min_size):
    """Remove the objects of a boolean mask that are smaller than min_size pixels."""
    if _SKIMAGE_MAX_SIZE:
        return morph.remove_small_objects(mask, max_size=min_size-1)
    return morph.remove_small_objects(mask, min_size=min_size)

def _fill_holes_up_to(mask, max_hole_size):
    """Fill the holes of a boolean mask that are at most max_hole_size pixels."""
    if _SKIMAGE_MAX_SIZE:
        return morph.remove_small_holes(mask, max_size=max_hole_size)
    return morph.remove_small_holes(mask, area_threshold=max_hole_size+1)


### MODEL DOWNLOAD

def guided_model_download(model_file: str, model_url: str, model_dir: str = None) -> str:
    """
    Downloads a model file with progress indication.
    Uses Napari UI if available, otherwise falls back to CLI.
    
    Parameters:
    ----------
    model_file : str
        Filename to save (e.g. "dinov2_small-reg.pth").
    model_url : str
        Direct URL to the model.
    model_dir : str
        Directory to save the model file (default: torch hub cache).

    Returns:
    ----------
    model_path : str
        Full path to the downloaded model file.
    """
    if model_dir is None:
        model_dir = os.path.expanduser('~/.cache/torch/hub/checkpoints')
    os.makedirs(model_dir, exist_ok=True)
    model_path = os.path.join(model_dir, model_file)

    if os.path.exists(model_path):
        return model_path  # Already downloaded

    use_napari = False
    viewer = None
    try:
        from napari.utils.progress import progress as napari_progress
        from napari.utils.notifications import show_error
        import napari
        viewer = napari.current_viewer()
        if viewer is not None:
            use_napari = True
    except ImportError:
        pass # Fall back to CLI progress if napari is not available

    if use_napari:
        viewer.window._status_bar._toggle_activity_dock(True)

    try:
        with requests.get(model_url, stream=True) as r:
            r.raise_for_status()
            total = int(r.headers.get('content-length', 0))
            chunk_size = 256 * 1024  # large enough to keep tqdm's chunk counter short
            num_chunks = total // chunk_size + 1
            update_every = max(1, num_chunks // 100)

            if use_napari:
                pbr_ctx = napari_progress(total=num_chunks)
                # No-op display() suppresses the activity-dock ETA label (which would
                # otherwise overflow the row); the QProgressBar still advances via the
                # 'value' event emitted by update().
                pbr_ctx.display = lambda msg=None, pos=None: None
            else:
                print(f"Downloading {model_file} ({total / 1e6:.2f} MB) from {model_url}...")
                pbr_ctx = None

            try:
                if pbr_ctx is not None:
                    pbr_ctx.set_description("Downloading weights")

                with open(model_path, 'wb') as f:
                    for i, chunk in enumerate(r.iter_content(chunk_size=chunk_size)):
                        if chunk:
                            f.write(chunk)
                        if pbr_ctx is not None:
                            if i % update_every == 0 or i == num_chunks - 1:
                                pbr_ctx.update(update_every)
                        elif i % 50 == 0 or i == num_chunks - 1:
                            print(f"  {min((i + 1) * chunk_size / total * 100, 100):.1f}% done", end="\r")
            finally:
                if pbr_ctx is not None:
                    pbr_ctx.close()

    except Exception as e:
        if use_napari:
            show_error(
                f"❌ Download failed: {e}\n\n"
                f"Please manually download {model_file} from:\n{model_url}\n"
                f"And place it in:\n{model_dir}"
            )
        else:
            print(f"\n❌ Download failed: {e}")
            print(f"Please manually download from:\n{model_url}")
            print(f"And place it in:\n{model_dir}")
        raise RuntimeError(f"Model download failed: {e}")
    finally:
        if use_napari:
            viewer.window._status_bar._toggle_activity_dock(False)

    return model_path


### SCALING AND RESCALING

def scale_img(image, scaling_factor, upscale=False, input_type="img", plot_result=False, use_gaussian_scaling=False):
    """
    Downscale an image by averaging over non-overlapping blocks of the specified size.
    OR Upscale by repeating the pixels.
    
    Parameters:
    ----------
    image : np.ndarray
        Input array to be downscaled. Must have spatial dimensions as the last two dimensions.
    scaling_factor : int
        Factor by which to downscale the image.
    upscale : bool
        If True, upscale the image by repeating the pixels.
    input_type : str ("img", "labels", "coords")
        Type of the input image. Determines how to scale the image:
        If "img", use median, if "labels", use mode, if "coords", use max.
    plot_result : bool
        If True, plot the original and scaled images.

    Returns:
    ----------
    downscaled_img / upscaled_img : np.ndarray
        Downscaled array or upscaled array.
    """
    # If the scaling factor is such that de facto no scaling is needed, return the image as is
    if scaling_factor in (-1, 0, 1):
        return image

    # If option to UPSCALE is True, return the image upscaled

    # Upscale is the same for all input types
    if upscale:
        # Upscale by duplicating elements
        upscaled_img = np.repeat(
            np.repeat(image, scaling_factor, axis=-2), # Repeat along the height
            scaling_factor, axis=-1                    # Repeat along the width
            )
        return upscaled_img
    
    # Else DOWNSCALE the image

    # Pad to the next multiple of the scaling factor,
    # distributing on each side (with 1 pixel more on bottom/right if uneven)
    if image.shape[-2] % scaling_factor != 0 or image.shape[-1] % scaling_factor != 0:
        pad_h = (scaling_factor - (image.shape[-2] % scaling_factor)) % scaling_factor
        pad_w = (scaling_factor - (image.shape[-1] % scaling_factor)) % scaling_factor
        pad_top, pad_left = pad_h // 2, pad_w // 2
        pad_bot, pad_right = pad_h - pad_top, pad_w - pad_left
        # Pad the image
        image = pad(image, (pad_top, pad_bot, pad_left, pad_right), input_type=input_type)
    
    # IMAGES
    img_strings = ('img', 'image', 'images') # Allow some flexibility in the input type string for images (but pass 'img' downstream)
    if input_type in img_strings:
        input_type = 'img'
        if not use_gaussian_scaling:
            # NEW (default): use block_reduce with mean
            return scale_with_block_mean(image, scaling_factor)
        else:
            # OLD: by gaussian filter and striding
            return scale_with_gaussian(image, scaling_factor, plot_blurred=plot_result)

    # For LABELS and COORDINATES, slice the last two dimensions
    slice_start = (0, 0) #((image.shape[-2] % scaling_factor) // 2,
                    #  (image.shape[-1] % scaling_factor) // 2)
    slice_size = (image.shape[-2] // scaling_factor * scaling_factor, # These should now be equal to image shape, since we padded ...
                image.shape[-1] // scaling_factor * scaling_factor) # ... to the next multiple of the scaling factor

    if input_type == 'labels':
        classes_before = np.unique(image)

        output_shape = (
            image.shape[0],
            *image.shape[1:-2],
            slice_size[0] // scaling_factor,
            slice_size[1] // scaling_factor
        )
        scaled_img = np.zeros(output_shape, dtype=image.dtype)

        for i in range(image.shape[0]):
            plane = image[i]
            if np.all(plane == 0):
                continue  # skip empty plane
            sliced_plane = plane[
                ..., 
                slice_start[0]:slice_start[0] + slice_size[0],
                slice_start[1]:slice_start[1] + slice_size[1]
            ]
            blocks = sliced_plane.reshape(
                *plane.shape[:-2],
                slice_size[0] // scaling_factor, scaling_factor,
                slice_size[1] // scaling_factor, scaling_factor
            )
            scaled_img[i] = fast_mode(blocks, axis=(-3, -1))

        classes_after = np.unique(scaled_img)
        if len(classes_before) != len(classes_after):
            warnings.warn(f"Classes have changed after downscaling from {classes_before} to {classes_after}.")

        if plot_result:
            from matplotlib import pyplot as plt
            _, ax = plt.subplots(1, 2, figsize=(10, 5))
            ax[0].imshow(image[0,...], cmap='gray')
            ax[1].imshow(scaled_img[0,...], cmap='gray')
            plt.show()
        
        return scaled_img

    elif input_type == 'coords':
        sliced_img = image[
            ..., 
            slice_start[0]:slice_start[0] + slice_size[0],
            slice_start[1]:slice_start[1] + slice_size[1]
        ]
        # Reshape to group elements for downscaling
        stacked_blocks = sliced_img.reshape(
            *image.shape[:-2],  # Preserve all leading dimensions
            slice_size[0] // scaling_factor, scaling_factor,
            slice_size[1] // scaling_factor, scaling_factor
        )
        scaled_img = np.max(stacked_blocks, axis=(-3, -1)) # Take max so we ignore the padding with -1 values
        return scaled_img

    else:
        raise ValueError(f"Unknown input type: {input_type}. Supported types are 'img', 'labels', and 'coords'.")
    
def scale_with_block_mean(image, scaling_factor):
    """Rescale image by block-mean downsampling. Reads exactly `scaling_factor` input
    pixels per output pixel — strictly local — so a sub-window aligned to
    `scaling_factor` produces bit-identical features to the whole-image pass
    at the same physical positions (no boundary-mode blur leak).
    
    Intended for use on images that have been padded to a multiple of `scaling_factor`.
    But also works otherwise, in which case it centre-crops to a multiple of `scaling_factor` before block-reducing.
    """
    # `block_reduce` needs strided ndarray semantics; materialise dask etc.
    image = np.asarray(image)
    H, W = image.shape[-2:]
    # Centre-crop to a multiple of `scaling_factor` (matches the prior
    # centring behaviour). In convpaint's context images already get padded to
    # a multiple the all scaling factor, so this is normally a no-op.
    crop_h = H % scaling_factor
    crop_w = W % scaling_factor
    if crop_h or crop_w:
        sh = crop_h // 2
        sw = crop_w // 2
        image = image[..., sh:H - (crop_h - sh), sw:W - (crop_w - sw)]
    block_shape = (1,) * (image.ndim - 2) + (scaling_factor, scaling_factor)
    return block_reduce(image, block_size=block_shape, func=np.mean)

def scale_with_gaussian(image, scaling_factor, plot_blurred=False):
    """Rescale image by Gaussian-blur + strided downsampling. The blur is intended to mitigate aliasing artifacts from the strided downsampling,
    but it also causes some bleed across blocks, so features at a given position are influenced by a slightly larger area of the input image compared to block-mean downscaling.

    Intended for use on images that have been padded to a multiple of `scaling_factor`.
    But also works otherwise, in which case it centre-crops to a multiple of `scaling_factor` before block-reducing.
    """
    # Apply a small Gaussian blur to avoid aliasing
    sigma = 0.4 * scaling_factor
    sigma = [0] * (image.ndim - 2) + [sigma, sigma]  # Add zeros for batch and channel dimensions
    blurred_img = gaussian_filter(image, sigma=sigma)  # assuming shape (..., H, W)
    # Downsample by striding
    H, W = image.shape[-2:]
    start_h = scaling_factor // 2 # Move the start such that the image is centered (and with padding, the picked pixels align at the center of blocks)
    start_w = scaling_factor // 2 # Move the start such that the image is centered (and with padding, the picked pixels align at the center of blocks)
    scaled_img = blurred_img[..., start_h::scaling_factor, start_w::scaling_factor]

    if plot_blurred:
        from matplotlib import pyplot as plt
        _, ax = plt.subplots(1, 3, figsize=(15, 5))
        ax[0].imshow(image[0,0,...], cmap='gray')
        ax[1].imshow(blurred_img[0,0,...], cmap='gray')
        ax[2].imshow(scaled_img[0,0,...], cmap='gray')
        plt.show()
    
    return scaled_img

def fast_mode(arr, axis):
    """
    Fast mode pooling assuming integer values >= 0
    """
    if isinstance(axis, int):
        axis = (axis,)
    axis = tuple(a + arr.ndim if a < 0 else a for a in axis)  # Transform negative indices to positive indices
    transpose_axes = [a for a in range(arr.ndim) if a not in axis] + list(axis)
    transposed = arr.transpose(transpose_axes)
    flat_main = transposed.reshape(-1, np.prod([arr.shape[a] for a in axis]))
    result = np.apply_along_axis(lambda x: np.bincount(x).argmax(), 1, flat_main)
    out_shape = [arr.shape[a] for a in range(arr.ndim) if a not in axis]
    result = result.reshape(out_shape)
    return result

def rescale_features(feature_img, target_shape, order=1):
    """
    Rescale an image to the specified target size. target_shape is a tuple of (H, W).

    Parameters:
    ----------
    feature_img : np.ndarray or torch.Tensor
        Input image to be rescaled. Must have spatial dimensions as the last two dimensions.
    target_shape : tuple of int
        Target size to rescale the image to. Must be a tuple of (H, W).
    order : int
        Order of the spline interpolation. Default is 1 (bilinear interpolation).

    Returns:
    ----------
    rescaled_img : np.ndarray or torch.Tensor
        Rescaled image.
    """
    output_shape = (feature_img.shape[0], target_shape[1], target_shape[2], target_shape[3])

    if feature_img.shape == output_shape:
        return feature_img
    
    if isinstance(feature_img, torch.Tensor):
        # If the input is a PyTorch tensor, use the faster torch interpolation
        int_mode = 'bilinear' if order > 0 else 'nearest'
        align_corners = False if order > 0 else None
        return torch_interpolate(feature_img, size=output_shape[2:],
                                  mode=int_mode, align_corners=align_corners)
    else:
        return skimage.transform.resize(feature_img, output_shape, order=order, mode='reflect', preserve_range=True)

def rescale_class_labels(label_img, output_shape):
    """
    Rescale a class label image to the specified output size.

    Parameters:
    ----------
    label_img : np.ndarray
        Input label image to be rescaled. Must have spatial dimensions as the last two dimensions.
    output_shape : tuple of int
        Target size to rescale the image to. Must be a tuple of (H, W).
    
    Returns:
    ----------
    rescaled_label_img : np.ndarray
        Rescaled label image.
    """
    rescaled_label_img = skimage.transform.resize(label_img, output_shape, order=0, mode='reflect', preserve_range=True).astype(np.uint8)
    return rescaled_label_img

def rescale_outputs(output_img, output_shape, order=0):
    """
    Rescale a class probability or feature image to the specified output size.

    Parameters:
    ----------
    output_img : np.ndarray
        Class probabilities or feature image to be rescaled.
        Must have spatial dimensions as the last two dimensions.
    output_shape : tuple of int
        Target size to rescale the image to. Must be a tuple of (H, W).

    Returns:
    ----------
    rescaled_output : np.ndarray
        Rescaled class probability or feature image.
    """
    rescaled_output = skimage.transform.resize(output_img, output_shape, order=order, mode='reflect', preserve_range=True)
    return rescaled_output


### CROPPING, PADDING, TILING & ANNOTATIONS EXTRACTION

def reduce_to_patch_multiple(input, patch_size):
    """
    Reduces the input to the patch size multiple.
    Assumes that the input has spatial dimensions in last two dimensions.
    In cases of uneven patch size, the bottom and right crops will be 1 pixel larger than top and left, respectively.

    Parameters:
    ----------
    input : np.ndarray
        Input array to be reduced. Must have spatial dimensions as the last two dimensions.
    patch_size : int
        Patch size to reduce the input to.

    Returns:
    ----------
    reduced_input : np.ndarray
        Reduced input array.
    """
    if patch_size == 1:
        return input
    # Get spatial dimensions
    h, w = input.shape[-2:]
    # What is the next smaller multiple of the patch size?
    new_h = (h // patch_size) * patch_size
    new_w = (w // patch_size) * patch_size
    # If the input is already a multiple of the patch size, return it
    if new_h == h and new_w == w:
        return input
    # Otherwise, reduce the input to the patch size multiple
    h_crop_top = (h - new_h)//2
    w_crop_left = (w - new_w)//2
    h_crop_bottom = h - new_h - h_crop_top # in uneven cases, bottom crop will be 1 larger than top crop
    w_crop_right = w - new_w - w_crop_left # in uneven cases, right crop will be 1 larger than left crop
    # Transform bottom and right crop for slicing; also make sure we can handle crops of size 0
    h_idx_bottom = -h_crop_bottom if h_crop_bottom > 0 else None
    w_idx_right = -w_crop_right if w_crop_right > 0 else None
    input = input[..., h_crop_top:h_idx_bottom, w_crop_left:w_idx_right]
    return input

def pad(img, padding, input_type='img'):
    """
    Pads the image with the padding size given.
    The padding is done with the 'reflect' mode for images and 'constant' for annotations.
    Dimensions are assumed [C, Z, H, W] and [Z, H, W] for images and annotations, respectively.

    Parameters:
    ----------
    img : np.ndarray
        Input image to be padded. Must have spatial dimensions as the last two dimensions.
    padding : int or tuple
        Padding size to be added to the image.
        If an int is provided, it is applied to all sides.
        If a tuple is provided, it should be of the form (pad_top, pad_bottom, pad_left, pad_right).
    input_type : str
        Type of the input image. Determines how to pad the image:
        If "img", use 'reflect' padding, if "labels", use 'constant' padding with 0, if "coords", use 'constant' padding with -1.

    Returns:
    ----------
    padded_img : np.ndarray
        Padded image.
    """
    if isinstance(padding, int):
        padding = ((padding, padding), (padding, padding))
    elif isinstance(padding, tuple) and len(padding) == 2 and isinstance(padding[0], int) and isinstance(padding[1], int):
        # If padding is a tuple of two ints, apply it to both height and width
        padding = ((padding[0], padding[0]), (padding[1], padding[1]))
    elif isinstance(padding, tuple) and len(padding) == 4 and all(isinstance(p, int) for p in padding):
        # If padding is a tuple of four ints, apply it to all sides
        padding = ((padding[0], padding[1]), (padding[2], padding[3]))
    elif isinstance(padding, tuple) and len(padding) == 2 and isinstance(padding[0], tuple) and isinstance(padding[1], tuple):
        # If padding is a tuple of two tuples, apply it to height and width separately
        padding = padding

    # Adjust the padding to the input
    padding = ((0, 0),) * (img.ndim - 2) + padding  # Add batch and channel dimensions if necessary
    # Pad the image with the padding size
    if input_type == 'img':
        # For images, use 'reflect' padding
        return np.pad(img, padding, mode='reflect')
    elif input_type == 'labels':
        # For labels, use 'constant' padding with 0
        return np.pad(img, padding, mode='constant')
    elif input_type == 'coords':
        # For coordinates, use 'constant' padding with -1
        return np.pad(img, padding, mode='constant', constant_values=-1)
    
def pad_to_shape(feat, target_shape):
    """
    Pads the spatial dimensions (last two) of `feat` symmetrically to match `target_shape`.
    In case of an odd number of pixels to add, bottom and right receive 1 more pixel than top and left.

    This convention ensures alignment with reductions like `reduce_to_patch_multiple()`,
    which crop more from bottom and right. Using this padding ensures spatial consistency
    for later reconstruction or upsampling steps.

    Parameters
    ----------
    feat : np.ndarray
        Input array with spatial dimensions in the last two axes.
    target_shape : tuple
        Desired shape for the last two dimensions: (..., H_target, W_target)

    Returns
    -------
    np.ndarray
        Padded array matching the target shape.
    """
    pad = [(0, 0), (0, 0)]  # batch and channel dims
    for i in range(2):  # spatial dims (height, width)
        current = feat.shape[2 + i]
        target = target_shape[i]
        diff = max(target - current, 0)
        pad_before = diff // 2
        pad_after = diff - pad_before  # ensures bottom/right get the extra pixel if diff is odd
        pad.append((pad_before, pad_after))
    return np.pad(feat, pad, mode='constant')

def align_up(val, alignment):
    """Smallest multiple of `alignment` that is >= `val`. Alignment must be >= 1."""
    return ((val + alignment - 1) // alignment) * alignment

def crop_to_shape(arr, target_shape, crop_top=None, crop_left=None):
    """
    Crops the spatial dimensions (last two) of `arr` to match `target_shape`.

    If `crop_top` / `crop_left` are given (for inverting an asymmetric pad),
    they're used directly — the bottom/right crop is whatever's left. Without
    them, crops symmetrically with bottom/right one larger on odd deltas (this
    matches the old policy in `_get_overall_paddings`, and the fall backs policies in
    `reduce_to_patch_multiple` which removes more from bottom/right and
    `pad_to_shape` which gives bottom/right the extra pixel).

    Parameters
    ----------
    arr : np.ndarray
        Input array with spatial dimensions in the last two axes.
    target_shape : tuple
        Desired shape for the last two dimensions: (..., H_target, W_target)
    crop_top, crop_left : int, optional
        Explicit top/left crop amounts (for inverting asymmetric pads).

    Returns
    -------
    np.ndarray
        Cropped array matching the target shape.
    """
    current_h, current_w = arr.shape[-2:]
    target_h, target_w = target_shape[-2:]

    assert target_h <= current_h and target_w <= current_w, \
        f"Target shape {target_shape[-2:]} must be <= current shape {arr.shape[-2:]}"

    crop_h = current_h - target_h
    crop_w = current_w - target_w

    if crop_top is None:
        crop_top = crop_h // 2  # top gets the smaller half when odd; bottom gets the extra
    if crop_left is None:
        crop_left = crop_w // 2
    crop_bottom = crop_h - crop_top
    crop_right  = crop_w - crop_left

    assert crop_bottom >= 0 and crop_right >= 0, \
        f"crop_top/left {crop_top},{crop_left} exceed delta {crop_h},{crop_w}"

    h_end = -crop_bottom if crop_bottom > 0 else None
    w_end = -crop_right if crop_right > 0 else None

    return arr[..., crop_top:h_end, crop_left:w_end]

def get_annot_planes(img, annot=None, coords=None):
    """
    Extracts the planes (of the z dimension) of the padded data, annotations and cordinates
    where there is at least one annotation.
    Dimensions are assumed [C, Z, H, W] and [Z, H, W] for images and annotations, respectively.

    Parameters:
    ----------
    img : np.ndarray
        Input image to extract planes from. Must have spatial dimensions as the last two dimensions.
    annot : np.ndarray, optional
        Input annotations to extract planes from. Must have spatial dimensions as the last two dimensions.
        If None, all image planes and no annotations planes are returned.

    Returns:
    ----------
    img_planes : list of np.ndarray
        List of image planes that contain annotations. If annot is None, all image planes are returned.
    annot_planes : list of np.ndarray or None
        List of annotations planes from the input annotations. If annot is None, None is returned.
    coords : np.ndarray or None
        List of coordinates planes from the input coordinates. If coords is None, None is returned.
    """
    if annot is None:
        img_planes = [img[:, z:z+1] for z in range(img.shape[1])]
        return img_planes, None, coords
    
    non_empty = np.unique(np.where(annot > 0)[0])
    if len(non_empty) == 0:
        warnings.warn('No annotations found')
        return None, None, None
    
    # Extract the planes of the image and annotations (and coordinates if provided)
    img_planes = [img[:,z:z+1] for z in non_empty] # images have a channels dimension
    annot_planes = [annot[z:z+1] for z in non_empty] # annotations do not have a channels dimension
    if coords is not None:
        coords_planes = [coords[:,z:z+1] for z in non_empty]
    else:
        coords_planes = None
    return img_planes, annot_planes, coords_planes

def tile_annot(img, annot, coords, padding, alignment=1, plot_tiles=False):
    """
    Tile the image and annotations into patches of the size of the annotations.
    Takes a number of pixels equal to 'padding' more than the bounding box of the annotation.
    Dimensions are assumed [C, Z, H, W] and [Z, H, W] for images and annotations, respectively.

    Parameters:
    ----------
    img : np.ndarray
        Input image to be tiled. Must have spatial dimensions as the last two dimensions.
    annot : np.ndarray
        Input annotations to use for tiling. Must have spatial dimensions as the last two dimensions.
    padding : int or tuple
        Padding size to be added to the bounding box of the annotations.
        If an int is provided, it is applied to all sides.
        If a tuple is provided, it should be of the form (pad_top, pad_bottom, pad_left, pad_right).
    alignment : int, optional
        Snap each tile's top/left origin down and its height/width up to the next
        multiple of `alignment`. Must match the FE's effective downsampling factor
        (patch_size * total_stride * lcm(scalings)) for tile-level features to
        align with whole-image features. Default 1 (no alignment).

    Returns:
    ----------
    img_tiles : list of np.ndarray
        List of image tiles that contain the annotations.
    annot_tiles : list of np.ndarray
        List of annotations tiles that contain the annotations.
    """
    if isinstance(padding, int):
        pad_top, pad_bottom, pad_left, pad_right = (padding, padding, padding, padding)
    elif isinstance(padding, tuple) and len(padding) == 2 and len(padding[0]) == 2:
        pad_top, pad_bottom, pad_left, pad_right = (side for dim in padding for side in dim)
    elif isinstance(padding, tuple) and len(padding) == 4:
        pad_top, pad_bottom, pad_left, pad_right = padding
    elif isinstance(padding, tuple) and len(padding) == 2 and isinstance(padding[0], int):
        pad_top, pad_left = padding # Use first number for vertical padding, second for horizontal
        pad_bottom, pad_right = padding # And pad the same on both sides
    else:
        raise ValueError(f"Padding must be an int or a tuple of 2 or 4 ints, got {padding}.")

    # Find the bounding boxes of the annotations
    annot_regions = skimage.morphology.label(annot > 0)
    regions = skimage.measure.regionprops(annot_regions)

    # Create lists to store the tiles
    img_tiles = []
    annot_tiles = []
    coord_tiles = []

    if plot_tiles:
        im_to_show = img[0,0,...].copy()
        im_to_show[annot[0]>0] = 0

    img_h, img_w = img.shape[-2], img.shape[-1]

    for region in regions:
        # Get the bounding box of the annotation
        z_min, y_min, x_min, z_max, y_max, x_max = region.bbox

        if plot_tiles:
            # Draw the bounding box on the image
            im_to_show[y_min:y_max, x_min] = 1
            im_to_show[y_min:y_max, x_max-1] = 1
            im_to_show[y_min, x_min:x_max] = 1
            im_to_show[y_max-1, x_min:x_max] = 1

        y_min -= pad_top
        y_max += pad_bottom
        x_min -= pad_left
        x_max += pad_right

        # Snap tile bounds to the FE's downsampling grid. The origin is floored
        # and the far edge is ceiled to the next multiple of `alignment`, so the
        # MaxPool windowing inside the tile matches the whole-padded-image pass
        # and the upsample ratio is an exact integer. Bounds are also clamped to
        # the image; since `_get_overall_paddings` now pads the whole image to a
        # multiple of `alignment`, clamping preserves the grid alignment too.
        if alignment > 1:
            y_min = max(0, (y_min // alignment) * alignment)
            x_min = max(0, (x_min // alignment) * alignment)
            y_max = min(img_h, align_up(y_max, alignment))
            x_max = min(img_w, align_up(x_max, alignment))

        if plot_tiles:
            # Draw the bounding box WITH PADDING on the image
            im_to_show[y_min:y_max, x_min] = 2
            im_to_show[y_min:y_max, x_max-1] = 2
            im_to_show[y_min, x_min:x_max] = 2
            im_to_show[y_max-1, x_min:x_max] = 2

        img_tile = img[..., y_min:y_max, x_min:x_max]
        annot_tile = annot[..., y_min:y_max, x_min:x_max]

        # Zero-out all labels except this region
        mask = annot_regions[..., y_min:y_max, x_min:x_max] == region.label
        annot_tile = annot_tile * mask


        if coords is not None:
            coords_tile = coords[..., y_min:y_max, x_min:x_max]
        else:
            coords_tile = None

        img_tiles.append(img_tile)
        annot_tiles.append(annot_tile)
        coord_tiles.append(coords_tile)
    
    if plot_tiles:
            from matplotlib import pyplot as plt
            plt.imshow(im_to_show, cmap='gray')
            plt.show()

    return img_tiles, annot_tiles, coord_tiles

def get_coordinates_image(img):
    """
    Get the coordinates of the pixels in the image.
    The coordinates are returned as a 3D array of shape (Z, H, W) where each element is a tuple
    of the form (z, h, w) representing the coordinates of the pixel in the image.
    Dimensions are assumed [C, Z, H, W] for images.
    
    Parameters:
    ----------
    img : np.ndarray
        Input image to extract coordinates from. Must have spatial dimensions as the last two dimensions.
    Returns:
    ----------
    coords : np.ndarray
        3D array of shape (Z, H, W) where each element is a tuple of the form (z, h, w).
    """
    # Check if the image has the correct number of dimensions
    if img.ndim != 4:
        raise ValueError("Input image must have 4 dimensions (C, Z, H, W).")
    # Get spatial dimensions (remember, channels are first)
    Z, H, W = img.shape[1:4]

    # Create a 3D array of coordinates
    # Each element is a tuple of the form (z, h, w)
    # coords = np.empty((Z, H, W), dtype=object)
    # for z in range(Z):
    #     for h in range(H):
    #         for w in range(W):
    #             coords[z, h, w] = (z, h, w)

    # Generate the coordinate grid
    z_coords, h_coords, w_coords = np.meshgrid(
        np.arange(Z), np.arange(H), np.arange(W), indexing='ij'
    )
    # Stack them into a coordinate array of shape (3, Z, H, W)
    coords = np.stack((z_coords, h_coords, w_coords), axis=0)

    return coords

def get_features_targets(features, annot):
    """
    Given a set of features and targets, extract the annotated pixels and targets,
    and concatenate each.

    Parameters:
    ----------
    features : np.ndarray
        Input features to extract. Must have spatial dimensions as the last two dimensions.
    annot : np.ndarray
        Input annotation to use for extraction. Must have spatial dimensions as the last two dimensions.
    
    Returns:
    ----------
    features : np.ndarray
        Extracted features from the input features. Shape is (num_pixels, num_features).
    annot : np.ndarray
        Extracted targets from the input annotation. Shape is (num_pixels,).
    """
    # Get the annotated pixels and targets
    mask = annot > 0
    features = np.moveaxis(features, 0, -1) #move [z, h, w, features]
    # Select only the pixels that are annotated, linearizing them
    features = features[mask] # Get the features
    annot = annot[mask] # Get the targets

    return features, annot


### DEVICE & NORMALIZATION

def _normalize_device_policy(use_device):
    """
    Normalize and validate a device policy string ("auto", "gpu", "cpu").
    """
    # Legacy support for booleans: True -> "gpu", False -> "cpu"
    if isinstance(use_device, bool):
        use_device = 'gpu' if use_device else 'cpu'
    # Default to "auto" if None
    if use_device is None:
        use_device = 'auto'
    # Validate that the result is a string and one of the expected values
    if not isinstance(use_device, str):
        raise ValueError('Device policy must be a string: "auto", "gpu", or "cpu".')
    valid = {'auto', 'gpu', 'cpu'}
    if use_device not in valid:
        raise ValueError(f"Invalid use_device '{use_device}'. Expected one of {sorted(valid)}.")
    
    return use_device

def get_fe_device(use_device="auto", supported_devices=None, warn=True):
    """
    Get the concrete runtime device to use for feature extraction.

    Parameters
    ----------
    use_device : str or bool, optional
        Device policy. Supported values are "gpu", "cpu", and "auto" (default).
        Legacy booleans are accepted for compatibility: True -> "gpu", False -> "cpu".
    supported_devices : list, optional
        Devices supported by the FE, e.g. [torch.device("cuda"), torch.device("mps")].
        If None, assumes no GPU backend is supported by the FE.
    warn : bool, optional
        Whether to emit fallback warnings when explicit GPU was requested.

    Returns
    -------
    torch.device
        Resolved runtime device.
    """
    use_device = _normalize_device_policy(use_device)

    # Explicit CPU request short-circuits all GPU checks, even if available and supported, and prevents warnings.
    if use_device == 'cpu': 
        return torch.device('cpu')

    # Check devices supported by the FE
    if supported_devices is None:
        supported_devices = []
    supported_types = set()
    for dev in supported_devices:
        if isinstance(dev, torch.device):
            supported_types.add(dev.type)
        elif isinstance(dev, str):
            supported_types.add(torch.device(dev).type)
    supports_cuda = 'cuda' in supported_types
    supports_mps = 'mps' in supported_types

    # Check GPU backends available in the runtime environment
    cuda_available = torch.cuda.is_available()
    mps_available = hasattr(torch.backends, "mps") and torch.backends.mps.is_available()

    # If a device/backend is supported by FE and available by the system, use it 
    if cuda_available and supports_cuda:
        return torch.device('cuda:0')
    if mps_available and supports_mps:
        return torch.device('mps')

    # If a GPU was explicitly requested but not available or supported, warn and fall back to CPU
    if use_device == 'gpu' and warn:
        if not supports_cuda and not supports_mps:
            warnings.warn('The selected Feature Extractor does not support any available GPU backend. Falling back to CPU.')
        elif not cuda_available and not mps_available:
            warnings.warn('Neither CUDA nor MPS is available. Falling back to CPU for feature extractor.')
        # From above, we know that at least one, but not a matching GPU backend is supported, so we can be specific in the warning:
        elif all([supports_cuda, not supports_mps, mps_available, not cuda_available]):
            warnings.warn('Only CUDA is supported by the Feature Extractor, but only MPS is available. Falling back to CPU for feature extractor.')
        elif all([supports_mps, not supports_cuda, cuda_available, not mps_available]):
            warnings.warn('Only MPS is supported by the Feature Extractor, but only CUDA is available. Falling back to CPU for feature extractor.')
        else: # This case should not be possible, but we cover it just in case
            warnings.warn(f'Requested GPU for feature extractor, but the available GPU backend is not supported by this feature extractor. Falling back to CPU.')
    return torch.device('cpu')

def get_device_from_torch_model(model):
    """
    Get the device from a PyTorch model.
    
    Parameters:
    ----------
    model : torch.nn.Module
        The PyTorch model to get the device from.

    Returns:
        ----------
        device : torch.device
            The device the model is on.
    """
    try:
        if hasattr(model, 'parameters'):
            return next(model.parameters()).device
        elif hasattr(model, "net") and hasattr(model.net, 'parameters'): # Some models, like cellpose, have a 'net' attribute that contains the parameters
            return next(model.net.parameters()).device
        else:
            raise ValueError("Model does not have parameters or a 'net' attribute with parameters.")
    except StopIteration:
        try:
            return next(model.buffers()).device
        except StopIteration:
            return torch.device("unknown")

def get_catboost_device(use_device="auto", warn=True):
    """
    Get the device to use for CatBoost operations.
    If CUDA is available, use the first available GPU.
    Otherwise, use CPU (even if MPS is available since CatBoost does not support MPS).

    Parameters:
    ----------
    use_device : str or bool, optional
        Device policy. Supported values are "gpu", "cpu", and "auto" (default).
        Legacy booleans are accepted for compatibility: True -> "gpu", False -> "cpu".

    Returns:
    ----------
    device : str
        The device to use for CatBoost operations.
    """
    
    use_device = _normalize_device_policy(use_device)

    if use_device == 'cpu':
        return 'CPU'

    if torch.cuda.is_available():
        return 'GPU'

    if use_device == 'gpu' and warn:
        warnings.warn('CUDA is not available. Falling back to CPU for CatBoost.')
        if torch.backends.mps.is_available():
            warnings.warn('Note for MPS users: MPS is available on this device but not supported by CatBoost.')
    return 'CPU'

def normalize_image(image, image_mean, image_std):
    """
    Normalize a numpy array with 2-4 dimensions.

    If the array has multiple channels (determined by the number of dims and channel_mode flag), 
    each channel is normalized independently. If there are multiple time or z frames, the behavior
    (whether to normalize across time/z or not) is already defined through the provided mean and std values.

    Parameters:
    ----------
    image : np.ndarray
        Input array to be normalized. Must have 2-4 dimensions.
    image_mean : float or nd.array
        Mean of the input array along non-channel, and potential time or z, dimensions.
    image_std : float or nd.array
        Standard deviation of the input array along non-channel, and potential time or z, dimensions.

    Returns:
    ----------
    arr_norm : np.ndarray
        Normalized array.

    Raises
    ------
    ValueError
        If the input array does not have 2-4 dimensions.
    """
    
    if image.ndim < 2 or image.ndim > 4:
        raise ValueError("Array must have 2-4 dimensions")
    
    # Avoid division by zero
    image_std = np.maximum(image_std, 1e-6)

    img_norm = (image - image_mean) / image_std

    return img_norm

def normalize_image_percentile(image: np.ndarray, ignore_n_first_dims: int = 0) -> np.ndarray:
    """
    Linearly rescale image intensities so that, per-slice defined by `ignore_n_first_dims`,
    the 1st percentile → 0.0 and the 99th percentile → 1.0.

    Any values below the 1st percentile become 0.0; above the 99th
    become 1.0, clipping extreme outliers.

    Parameters:
    ----------
    image: np.ndarray with 2-4 dims.
        - 2D: treated as single-channel image if ignore_n_first_dims == 0.
        - 3D or 4D: first axes can be ignored with `ignore_n_first_dims`.
    ignore_n_first_dims: int, default 0
        Number of leading dimensions to ignore when computing percentiles.
        Each slice along these dims is normalized separately.

    Returns:
    ----------
    np.ndarray, dtype float32, same shape as input.

    Raises:
    ----------
    ValueError: if input.ndim not in range [2,4],
                or if image.ndim - ignore_n_first_dims < 2.
    """
    if image.ndim < 2 or image.ndim > 4:
        raise ValueError(f"Image must have 2-4 dimensions (got {image.ndim})")

    if image.ndim - ignore_n_first_dims < 2:
        raise ValueError(f"After ignoring {ignore_n_first_dims} dims, "
                         f"remaining ndim = {image.ndim - ignore_n_first_dims}, "
                         f"which is < 2 and cannot be normalized.")

    out = np.empty_like(image, dtype=np.float32)

    # special case: no ignored dims
    if ignore_n_first_dims == 0 and image.ndim == 2:
        p1, p99 = np.percentile(image, [1, 99])
        span = max(p99 - p1, 1e-6)
        out = (image.astype(np.float32) - p1) / span
        return np.clip(out, 0.0, 1.0)

    # iterate over leading ignored dims
    it = np.ndindex(*image.shape[:ignore_n_first_dims]) if ignore_n_first_dims > 0 else [()]

    for idx in it:
        # select the slice
        slc = image[idx] if idx != () else image
        slc = slc.astype(np.float32)

        # compute percentiles over last (ndim-ignore_n_first_dims) dims
        p1, p99 = np.percentile(slc, [1, 99])
        span = max(p99 - p1, 1e-6)
        norm = (slc - p1) / span
        norm = np.clip(norm, 0.0, 1.0)

        # put back
        if idx == ():
            out[:] = norm
        else:
            out[idx] = norm

    return out

def normalize_image_imagenet(image):
    """
    Normalize a numpy array or torch tensor image to ImageNet stats.
    Note that since fixed ranges are used, there is no difference between per-plane or over-stack normalization.
    For an ImageNet-trained model, we do not normalize "over stack" — each image slice gets ImageNet normalization separately.

    For numpy (np.ndarray) or torch (torch.Tensor):
      1) Cast to float32.
      2) Bring values into [0,1] by:
         - dividing uint by the maximum value for that uint type (e.g., 255 for uint8)
         - calculating (value - min) / (max - min) for signed ints
         - checking if float32/64 and values are already in [0,1]
      3) Applies per-channel ImageNet mean/std. Use same device for torch tensors.

    Parameters:
    ----------
    image: np.ndarray or torch.Tensor of shape [3, H, W] or [3, Z, H, W] or the same with 1 channel,
            dtype should be uint8, uint16, or float (32 or 64).

    Returns:
    ----------
    np.ndarray or torch.Tensor: Same type as input (np.ndarray or torch.Tensor), same shape,
        normalized as RGB dtype float32, normalized to ImageNet stats
        (mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]).

    Raises:
    ----------
    ValueError: if input is not np.ndarray or torch.Tensor, if ndim not in (3,4),
                or if channel dimension != 3 or 1.
    """

    # Checks for input
    if image.ndim not in (3, 4):
        raise ValueError(f"Image must have 3 or 4 dimensions (got ndim={image.ndim})")
    if image.shape[0] != 3:
        warnings.warn(f"First dimension is not 3 (but {image.shape[0]}). Not applying ImageNet normalization.")
        return image  # return image as is

    # Dispatch on type
    if isinstance(image, np.ndarray):
        # ---------- numpy path ----------
        x = image.astype(np.float32)

        # bring into [0,1]
        im_type = image.dtype
        if im_type in [np.uint8, np.uint16, np.uint32, np.uint64]:
            x = x / np.iinfo(im_type).max
        elif im_type in [np.int8, np.int16, np.int32, np.int64]:
            x = (x - np.iinfo(im_type).min) / (np.iinfo(im_type).max - np.iinfo(im_type).min)
        elif image.dtype == np.float32 or image.dtype == np.float64:
            if (x.min() >= 0.0 and x.max() <= 1.0):
                pass  # image compatible with [0,1]
            else:
                warnings.warn(f"Image dtype is {image.dtype} and values are outside [0,1]. Not applying ImageNet normalization.")
                return image  # return image as is
        else:
            warnings.warn(f"Image dtype {image.dtype} is not supported for imagenet normalization. Not applying ImageNet normalization.")
            # mn, mx = x.min(), x.max()
            # denom = max(mx - mn, 1e-6)
            # x = (x - mn) / denom

        # Repeat single channel if necessary
        # if image.shape[0] == 1:
        #     x = x[np.newaxis, ...]  # add channel axis
        # if image.ndim == 3:
        #     x = np.repeat(x, 3, axis=0)

        # ImageNet stats
        spatial_dims = x.ndim - 1
        shape = (3,) + (1,) * spatial_dims
        mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(shape)
        std  = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(shape)

        return (x - mean) / std

    elif isinstance(image, torch.Tensor):
        # ---------- torch path ----------
        device = image.device
        x = image.float()

        # bring into [0,1]
        im_type = image.dtype
        if im_type in [torch.uint8, torch.uint16]:
            max_val = torch.iinfo(im_type).max
            x = x / max_val
        elif im_type in [torch.int8, torch.int16, torch.int32, torch.int64]:
            min_val = torch.iinfo(im_type).min
            max_val = torch.iinfo(im_type).max
            x = (x - min_val) / (max_val - min_val)
        elif image.dtype == torch.float32 or image.dtype == torch.float64:
            if (x.min() >= 0.0 and x.max() <= 1.0):
                pass  # image compatible with [0,1]
            else:
                warnings.warn(f"Image dtype is {image.dtype} and values are outside [0,1]. Not applying ImageNet normalization.")
                return image  # return image as is
        else:
            warnings.warn(f"Image dtype {image.dtype} is not supported for imagenet normalization. Not applying ImageNet normalization.")
            return image  # return image as is
            # mn = x.amin()
            # mx = x.amax()
            # denom = (mx - mn).clamp_min(1e-6)
            # x = (x - mn) / denom
        
        # if image.ndim == 3:
        #     x = x.unsqueeze(0)  # add channel axis
        # if image.shape[0] == 1:
        #     x = x.repeat(3, *[1] * (x.ndim - 1))

        spatial_dims = x.ndim - 1
        shape = (3,) + (1,) * spatial_dims
        mean = torch.tensor([0.485, 0.456, 0.406], device=device, dtype=torch.float32).reshape(shape)
        std  = torch.tensor([0.229, 0.224, 0.225], device=device, dtype=torch.float32).reshape(shape)

        return (x - mean) / std

    else:
        raise ValueError(f"Unsupported image type: {type(image)}")
    
def compute_image_stats(image, ignore_n_first_dims=None):
    """
    Compute mean and standard deviation of a numpy array with 2-4 dimensions.

    If the array has multiple channels (determined by the first_dim_is_channel option), 
    each channel is normalized independently. Channels can only be the first dimension of the array.

    Parameters:
    ----------
    image : np.ndarray
        Input array to be normalized. Must have 2-4 dimensions.
    ignore_n_first_dims : int
        Number of first dimensions to ignore when computing the mean and standard deviation.
        For example if the input array has 3 dimensions CHW and ignore_n_first_dims=1, the mean
        and standard deviation will be computed for each channel C.
        
    Returns:
    ----------
    image_mean : float or nd.array
        Mean of the input array along non-channel dimensions
    image_std : float or nd.array
        Standard deviation of the input array along non-channel dimensions

    Raises
    ------
    ValueError
        If the input array does not have 2-4 dimensions.
    """
    
    if image.ndim < 2 or image.ndim > 4:
        raise ValueError("Array must have 2-4 dimensions")
    
    if ignore_n_first_dims is None:
        image_mean = image.mean()
        image_std = image.std()
    else:
        image_mean = image.mean(axis=tuple(range(ignore_n_first_dims, image.ndim)), keepdims=True)
        image_std = image.std(axis=tuple(range(ignore_n_first_dims, image.ndim)), keepdims=True)

    return image_mean, image_std


### ANNOTATION HANDLING (optional)

def get_balanced_mask(ref_mask, tgt_mask):
    """
    Given two masks, subsample the second one to have the same number of pixels as the first one.
    Parameters:
    ----------
    ref_mask: np.ndarray
        2d boolean reference mask
    tgt_mask: np.ndarray
        2d boolean target mask

    Returns:
    ----------
    tgt_mask_balanced: 2d boolean np.ndarray
        target mask sub-sampled to have at most the same number of pixels as the reference mask
    """

    tgt_mask_balanced = np.zeros_like(tgt_mask).astype(np.bool_)
    tgt_idx = np.argwhere(tgt_mask)
    np.random.shuffle(tgt_idx)
    tgt_idx = tgt_idx[0:ref_mask.sum()]  # subsample
    tgt_mask_balanced[tgt_idx[:, 0], tgt_idx[:, 1]] = True
    return tgt_mask_balanced

def get_annotations_regions(annotations, d_edge=1):
    """
    Given the annotation returns list of pixel masks for each of the following regions:
    1. all foreground pixels
    2. all not foreground pixels
    3. at most as many randomly selected not-foreground pixels as foreground pixels

    4. signal: union of foreground pixels sharnk by 1 pixel for each of the foreground classes
    5. edge obtained by dilation of 4. by 1+d_edge pixels and than subtracting 4.
    6. background: complement of 4.+5.,
    7. 6. subsampled to at most as many pixels as in 4.

    Parameters:
    ----------
    annotations: 2d np.ndarray
        annotations image, 1 is background, 2,3,... are foreground classes
    d_edge: int
        dilation factor for edge, by default 1

    Returns:
    ----------
    masks: dictionary of 2d boolean np.ndarray
        masks for each of the regions described above ('fg', 'not_fg', 'not_fg_balanced',
         'signal', 'edge', 'bg', 'bg_balanced')
    """

    # 1. all foreground pixels
    fg = annotations > 1

    # 2. all not foreground pixels
    not_fg = annotations == 1

    # 3. at most as many randomly selected not-foreground pixels as foreground pixels
    not_fg_balanced = get_balanced_mask(ref_mask=fg, tgt_mask=not_fg)

    # 4. signal: union of foreground pixels shrank by 1 pixel for each of the foreground classes
    # signal = np.zeros_like(fg).astype(np.bool_)
    # for c in range(2, annotations.max() + 1):
    #    signal = signal | morph.binary_erosion(annotations == c, morph.cross(1))
    # parallel implementation with joblib of the three lines above:
    def erode(c):
        return morph.binary_erosion(annotations == c)

    signal = np.any(Parallel(n_jobs=-1)(delayed(erode)(c) for c in range(2, annotations.max() + 1)), axis=0)

    # 5. edge obtained by dilation of 4. by 1+d_edge pixels and than subtracting 4.
    edge_signal = morph.binary_dilation(signal, morph.disk(1 + d_edge))
    edge = edge_signal & ~signal

    # 6. background: complement of 4.+5.,
    bg = ~edge_signal

    # 7. 6. subsampled to at most as many pixels as in 4.
    bg_balanced = get_balanced_mask(ref_mask=signal, tgt_mask=bg)

    masks = {
        'fg': fg,
        'not_fg': not_fg,
        'not_fg_balanced': not_fg_balanced,
        'signal': signal,
        'edge': edge,
        'bg': bg,
        'bg_balanced': bg_balanced
    }
    return masks

def extract_annotated_pixels(features, annotation, full_annotation=True):
    """
    Given a set of features and an annotation
    if not full_annotation, select all pixels in annotations (values 1,2,...), record same class_id as annotations
    otherwise, select all pixels in annotations (values 2,3...; assumes 1 added to the original [0-bg, 1,2...signal
    annotation values]). targets set for signal: class_id=2, the same number of background pixels class_id=1,
    and the edge pixels class_id=3
    Parameters:
    ----------
    features: 3D np.ndarray (CHW)
        features extracted from image
    annotation:
        annotated image, 1 is background, 2,3,... are foreground classes
    full_annotation: bool
        if True, use all pixels in annotations, otherwise balance background and foreground
        if True - assumes annotations are 1,2,..., where 1 is bg. otherwise assumes 0 is not annotated,
            and 1 is background, 2 is first class, etc.
            Default True


    Returns:
    ----------
    features: 2D np.ndarray (pixel, features)
        features extracted from image
    annotation: 1D np.ndarray (pixel)
        annotation class_id for each pixel
    """

    # select pixels in annotations
    if not full_annotation:
        # select pixels in annotations
        annot_flat = annotation.flatten()
        annot_mask = annot_flat > 0  # something annotated
        features_flat = ein.rearrange(features, 'c h w -> (h w) c')

        features_sel = features_flat[annot_mask]
        targets_sel = annot_flat[annot_mask]
    else:
        # get masks for annotation regions
        masks = get_annotations_regions(annotation)

        # get signal, edge, and balanced background pixels
        signal = masks['signal']
        edge = masks['edge']
        bg_balanced = masks['bg_balanced']

        # select pixels in features
        features_flat = ein.rearrange(features, 'c h w -> (h w) c')
        signal_flat = signal.flatten()
        edge_flat = edge.flatten()
        bg_balanced_flat = bg_balanced.flatten()

        features_signal = features_flat[signal_flat]
        features_edge = features_flat[edge_flat]
        features_bg_balanced = features_flat[bg_balanced_flat]

        # fill selected features and targets
        features_sel = np.concatenate([features_signal, features_edge, features_bg_balanced], axis=0)
        n_pix_signal = features_signal.shape[0]
        n_pix_edge = features_edge.shape[0]
        n_pix_bg_balanced = features_bg_balanced.shape[0]
        targets_sel = np.concatenate([
            2 * np.ones(n_pix_signal),
            3 * np.ones(n_pix_edge),
            1 * np.ones(n_pix_bg_balanced)
        ], axis=0)

    return features_sel, targets_sel