import time
import pdb
import sys
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import numpy as np
import SimpleITK as sitk

from .sitk_functions import (import_image, is_point_in_image,
                             map_to_image, extract_volume, copy_settings,
                             remove_other_vessels, check_seg_border)

from .vtk_functions import (points2polydata, write_geo, smooth_surface,
                            exportSitk2VTK, bound_polydata_by_image,
                            get_largest_connected_polydata, write_vtk_polydata,
                            calc_caps, evaluate_surface, appendPolyData,
                            get_points_cells)

# from .vmtk_functions import write_centerline

from .assembly import (Segmentation, VesselTree, print_error,
                       create_step_dict, get_old_ref_point)

from .simvascular import create_pth, path_calculation_number_for_control_count
from .simvascular_contour import contour_stride_for_branch_steps, write_ctgr_for_pth

from .local_assembly import construct_subvolume

from .tracing_functions import (SkipThisStepError, convert_seg_to_surfs,
                                get_smoothing_params, orient_caps,
                                calc_centerline_vmtk, get_next_points)

from .centerline import calc_centerline_fmm

from .nnunet import initialize_predictor

sys.stdout.flush()


@dataclass
class TracingContext:
    """Keyword-style bundle for :func:`trace_centerline_from_context`."""

    output_folder: str
    image_file: Union[str, sitk.Image]
    case: str
    model_folder: str
    fold: str
    potential_branches: list
    max_step_size: int
    max_n_branches: int
    max_n_steps_per_branch: int
    global_config: Mapping[str, Any]
    unit: str = "cm"
    scale: float = 1.0
    seg_file: Optional[Union[str, sitk.Image]] = None
    start_seg: Any = None
    write_samples: bool = False
    disk_io: bool = True
    simvascular: bool = False
    force_cpu: bool = False


@dataclass
class TracingResult:
    centerlines: list
    surfaces: list
    points: list
    inside_pts: list
    assembly: Any
    vessel_tree: Any
    n_steps_taken: int


def trace_centerline_from_context(ctx: TracingContext) -> TracingResult:
    """
    Run tracing from a :class:`TracingContext` and return a :class:`TracingResult`.

    Quick in-memory example (nnU-Net still reads ``model_folder`` from disk)::

        from seqseg import AlgorithmConfig
        from seqseg.modules.assembly import create_step_dict
        from seqseg.modules.tracing import TracingContext, trace_centerline_from_context
        import numpy as np
        import SimpleITK as sitk

        img = sitk.ReadImage(\"/path/to/volume.nii.gz\")
        s0 = create_step_dict(np.zeros(3), 1.0, np.array([0.0, 0.0, 5.0]), 1.0, None)
        s0[\"connection\"] = [0, 0]
        ctx = TracingContext(
            output_folder=\"\",
            image_file=img,
            case=\"api\",
            model_folder=\"/path/to/nnUNet_results/.../nnUNetTrainer__nnUNetPlans__3d_fullres\",
            fold=\"all\",
            potential_branches=[s0],
            max_step_size=200,
            max_n_branches=20,
            max_n_steps_per_branch=50,
            global_config=AlgorithmConfig.from_name(\"global\"),
            disk_io=False,
            write_samples=False,
        )
        result = trace_centerline_from_context(ctx)
        prob = result.assembly.assembly  # sitk.Image

    Prefer :func:`seqseg.api.run_tracing` when you want simple seeds instead of
    building ``potential_branches`` by hand.
    """
    tup = trace_centerline(
        ctx.output_folder,
        ctx.image_file,
        ctx.case,
        ctx.model_folder,
        ctx.fold,
        ctx.potential_branches,
        ctx.max_step_size,
        ctx.max_n_branches,
        ctx.max_n_steps_per_branch,
        ctx.global_config,
        unit=ctx.unit,
        scale=ctx.scale,
        seg_file=ctx.seg_file,
        start_seg=ctx.start_seg,
        write_samples=ctx.write_samples,
        disk_io=ctx.disk_io,
        simvascular=ctx.simvascular,
        force_cpu=ctx.force_cpu,
    )
    return TracingResult(*tup)


def trace_centerline(
    output_folder,
    image_file,
    case,
    model_folder,
    fold,
    potential_branches,
    max_step_size,
    max_n_branches,
    max_n_steps_per_branch,
    global_config,
    unit='cm',
    scale=1,
    seg_file=None,
    start_seg=None,
    write_samples=False,
    disk_io=True,
    simvascular=False,
    force_cpu=False,
):
    """
    Trace vessel centerlines using sequential segmentation and tracking.
    
    This function performs iterative vessel tracing by:
    1. Taking steps along vessel centerlines
    2. Extracting local volumes around each step
    3. Predicting vessel segmentation using nnU-Net
    4. Calculating vessel surfaces and centerlines
    5. Finding next potential branch points
    6. Assembling results into global segmentation
    
    Potential branches are tracked with attributes:
    - Radius: Estimated vessel radius at branch point
    - Number: Index in the potential branches list for debugging
    
    Parameters:
    -----------
    output_folder : str
        Directory prefix for outputs when ``disk_io`` is True; unused paths when False.
    image_file : str or sitk.Image
        Path to the input volume, or an in-memory ``sitk.Image`` (same geometry
        as file-based runs).
    case : str
        Case identifier for naming outputs (when writing is enabled).
    model_folder : str
        Path to trained nnU-Net model directory on disk (checkpoints loaded from here).
    fold : str
        Model fold to use ('all' or specific fold number)
    potential_branches : list
        Initial branch points to start tracing from
    max_step_size : int
        Maximum number of tracing steps
    max_n_branches : int
        Maximum number of branches to trace
    max_n_steps_per_branch : int
        Maximum steps per individual branch
    global_config : dict
        Configuration parameters
    unit : str, optional
        Image units ('cm' or 'mm'), default 'cm'
    scale : float, optional
        Scaling factor for image data, default 1
    seg_file : str or sitk.Image, optional
        Pre-segmented volume path or image when ``SEGMENTATION`` is True (skips nnU-Net).
    start_seg : SimpleITK.Image, optional
        Initial segmentation to start assembly
    write_samples : bool, optional
        When ``disk_io`` is True, whether to write intermediate debug volumes/geometry.
    disk_io : bool, optional
        If False, skip SeqSeg-side file outputs (VTK/MHA/SimVascular exports and error dumps).
        nnU-Net still loads weights from ``model_folder`` on disk. Default True.
    simvascular : bool, optional
        When True (and ``disk_io`` is True), write SimVascular project files
        (``.pth``, ``.ctgr``) under ``output_folder/simvascular/``.
    force_cpu : bool, optional
        If True, run nnU-Net inference on CPU even when a GPU is available.
    Returns:
    --------
    tuple
        (centerlines, surfaces, points, inside_pts, assembly_segs, vessel_tree, n_steps)
    """

    # Convert unit scaling: cm requires 0.1 factor, mm uses 1.0
    if unit == 'cm':
        scale_unit = 0.1
    else:
        scale_unit = 1

    # Configuration flags: determine if tracing pre-segmented data vs. raw images
    trace_seg = global_config['SEGMENTATION']
    allow_writes = bool(disk_io)

    # Debug settings: enable breakpoints and specify debug step
    debug = global_config['DEBUG']
    debug_step = global_config['DEBUG_STEP']

    # Analysis flags: enable centerline retracing and timing analysis
    retrace_cent = global_config['RETRACE']
    take_time = global_config['TIME_ANALYSIS']

    # Animation settings: create progressive visualization files
    animation = global_config['ANIMATION']
    animation_steps = global_config['ANIMATION_STEPS']

    # Tracing behavior parameters
    allowed_steps = global_config['NR_ALLOW_RETRACE_STEPS']     # Steps allowed inside existing vessels
    prevent_retracing = global_config['PREVENT_RETRACE']        # Avoid tracing already segmented areas
    sort_potentials = global_config['SORT_NEXT']                # Sort potential branches by radius
    merge_potentials = global_config['MERGE_NEXT']              # Merge nearby potential points

    # Volume extraction and processing parameters
    volume_size_ratio = global_config['VOLUME_SIZE_RATIO']       # Ratio for local volume size vs radius
    perc_enlarge = global_config['MAX_PERC_ENLARGE']            # Max percentage for bounding box enlargement
    magnify_radius = global_config['MAGN_RADIUS']               # Radius magnification factor
    number_chances = global_config['NR_CHANCES']                # Retry attempts for failed steps
    min_radius = global_config['MIN_RADIUS'] * scale_unit       # Minimum allowable vessel radius
    add_radius = global_config['ADD_RADIUS'] * scale_unit       # Additional radius for volume extraction
    run_time = global_config['TIME_ANALYSIS']                   # Enable runtime profiling
    
    # Branch handling parameters
    forceful_sidebranch = global_config['FORCEFUL_SIDEBRANCH']  # Force sidebranch separation
    forceful_sidebranch_magnify = (global_config
                                   ["FORCEFUL_SIDEBRANCH_MAGN_RADIUS"])  # Sidebranch radius multiplier
    
    # Stopping criteria
    stop_pre = global_config['STOP_PRE']                        # Enable premature stopping conditions
    stop_radius = global_config['STOP_RADIUS'] * scale_unit     # Minimum radius before stopping
    max_step_branch = max_n_steps_per_branch                    # Max steps per branch (alias)

    # Global assembly parameters: control how local segmentations are combined
    use_buffer = global_config['USE_BUFFER']                    # Enable buffered assembly (delayed combination)
    N = global_config['ASSEMBLY_EVERY_N']                       # Combine every N steps
    buffer = global_config['BUFFER_N']                          # Buffer delay to avoid interference
    weighted = global_config['WEIGHTED_ASSEMBLY']               # Use weighted averaging vs simple averaging
    weight_type = global_config['WEIGHT_TYPE']                  # Type of weighting ('radius', 'gaussian', etc.)

    # Input data loading: handle either raw images or pre-segmented data
    if (seg_file is not None) and trace_seg:
        print("\nWe are tracing a segmented vasculature!")
        print("No need for prediction.")
        if isinstance(seg_file, sitk.Image):
            print("Using in-memory segmentation volume")
        else:
            print(f"Reading in seg file: {seg_file}")
        reader_seg, origin_im, size_im, spacing_im = import_image(seg_file)
        print(f"""Seg data.
            size: {size_im},
            spacing: {spacing_im},
            origin: {origin_im}""")

    if not (seg_file is not None and trace_seg):
        if isinstance(image_file, sitk.Image):
            print(f"Using in-memory image volume, scale: {scale}")
        else:
            print(f"Reading in image file: {image_file}, scale: {scale}")
        reader_im, origin_im, size_im, spacing_im = import_image(image_file)
        print(f"""Image data. size: {size_im},\n
           spacing: {spacing_im},\n origin: {origin_im}""")
    else:
        print("No need to read in image file,")
        print("we are using a given segmentation")
        image_file = seg_file
        reader_im = reader_seg

    # Initialize data structures for tracking vessel tree and global segmentation
    init_step = potential_branches[0]                           # First branch point to start tracing
    vessel_image_label = image_file if isinstance(image_file, str) else "<sitk.Image>"
    vessel_tree = VesselTree(case, vessel_image_label, init_step, potential_branches)

    if (seg_file is not None) and trace_seg:
        if isinstance(seg_file, sitk.Image):
            assembly_segs = Segmentation(
                case, None, weighted,
                weight_type=weight_type,
                image=reader_seg,
                start_seg=start_seg,
            )
        else:
            assembly_segs = Segmentation(
                case, seg_file, weighted,
                weight_type=weight_type,
                start_seg=start_seg,
            )
    elif isinstance(image_file, sitk.Image):
        assembly_segs = Segmentation(
            case, None, weighted,
            weight_type=weight_type,
            image=reader_im,
            start_seg=start_seg,
        )
    else:
        assembly_segs = Segmentation(
            case, image_file, weighted,
            weight_type=weight_type,
            start_seg=start_seg,
        )

    # Load neural network model (nnU-Net) for vessel segmentation prediction
    if not (seg_file and trace_seg):
        predictor = initialize_predictor(model_folder, fold, force_cpu=force_cpu)
    else:
        print('No need to load model, we are using a given segmentation')

    # Initialize tracking variables for the main tracing loop
    branch = 0                                                  # Current active branch index
    simvascular_path_counter = 0                                # Unique <path id> per written .pth

    # Collections for storing VTK polydata results from completed branches
    list_centerlines, list_surfaces = [], []                   # Geometric results (centerlines, surfaces)
    list_points, list_inside_pts = [], []                      # Point collections (regular, inside existing vessels)
    surfaces_animation, cent_animation = [], []                # Animation frame data

    # Loop control variables
    num_steps_direction = 0                                     # Steps taken in current direction
    inside_branch = 0                                          # Counter for steps inside existing vessels
    i = 0                                                      # Global step counter (chronological order)
    # Main tracing loop: continue while there are potential branches to explore
    while vessel_tree.potential_branches and i < (max_step_size + 1):

        # Progress reporting: print step number and timestamp
        if i in range(0, max_step_size, max_step_size*0 + 1):
            print(f"\n*** Step number {i} ***")
            print(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime()))

        # Debug breakpoint: pause execution at specified step for inspection
        if debug and i >= debug_step:
            pdb.set_trace()

        try:
            # Begin timing for this step's processing
            start_time_loc = time.time()

            # Get current step information from vessel tree
            step_seg = vessel_tree.steps[i]

            # Early termination checks: stop if conditions are met to avoid infinite loops
            if stop_pre:
                # Check if vessel radius has become too small to continue
                if step_seg['radius'] < stop_radius:
                    vessel_tree.steps[i]['chances'] = number_chances
                    raise SkipThisStepError(
                        "Radius estimate lower than allowed, stop here"
                    )
                # Check if this branch has taken too many steps (prevent runaway tracing)
                if num_steps_direction > max_step_branch:
                    vessel_tree.steps[i]['chances'] = number_chances
                    raise SkipThisStepError(
                        "Too many steps in current branch, stop here"
                    )

            # Retrace prevention: avoid tracing areas that are already segmented
            if prevent_retracing:
                # If we've been inside existing vessels for too many consecutive steps
                if inside_branch == allowed_steps:
                    step_seg['is_inside'] = True
                    inside_branch = 0
                    # Record this point as being inside existing segmentation
                    list_inside_pts.append(
                        points2polydata([step_seg['point'].tolist()]))
                    if allow_writes and write_samples:
                        polydata_point = points2polydata(
                                         [step_seg['point'].tolist()])
                        pfn = (output_folder +
                               'points/inside_point_'+case+'_'+str(i)+'.vtp')
                        write_geo(pfn, polydata_point)

                    # Stop tracing this branch to avoid redundant work
                    raise SkipThisStepError(
                        "Inside already segmented vessel, stop here"
                    )

                # Check if current point is inside existing global assembly
                elif is_point_in_image(assembly_segs.assembly,
                                       step_seg['point']
                                       # + step_seg['radius']
                                       # * step_seg['tangent']
                                       ):
                    inside_branch += 1                          # Increment counter for consecutive inside steps
                else:
                    inside_branch = 0                           # Reset counter if outside existing vessels

            # Create VTK point data for current step location
            polydata_point = points2polydata([step_seg['point'].tolist()])

            # Write point to file for visualization/debugging if requested
            if allow_writes and write_samples:
                pfn = output_folder + 'points/point_'+case+'_'+str(i)+'.vtp'
                write_geo(pfn, polydata_point)

            # Dynamic volume sizing: adjust extraction volume based on vessel occupancy
            mag = 1                                             # Initial magnification factor
            perc = 1                                           # Percentage of volume occupied by vessel
            continue_enlarge = True                            # Flag to continue enlarging if needed
            max_mag = 1.3                                      # Maximum magnification (stops enlarging at 130%)
            add_mag = 0.2                                      # Magnification increment per iteration

            # Skip dynamic sizing for large vessels (>3mm) to avoid excessive computation
            if step_seg['radius'] > 3 * scale_unit:
                mag = max_mag

            # Adaptive volume extraction: enlarge bounding box if vessel occupancy is too high
            while perc > perc_enlarge and continue_enlarge:
                if mag > 1 and mag < max_mag:
                    print("""Enlarging bounding box because
                           percentage vessel > 0.33""")
                if mag >= max_mag:
                    print("Keeping original size")
                    mag = 1                                     # Reset to original size if max reached
                    continue_enlarge = False
                    
                # Volume extraction: get local image region around current point
                (size_extract,
                 index_extract,
                 border) = map_to_image(step_seg['point'],
                                        step_seg['radius']*mag,
                                        volume_size_ratio,
                                        origin_im,
                                        spacing_im,
                                        size_im,
                                        global_config['MIN_RES'],
                                        direction_im=reader_im.GetDirection())

                step_seg['img_index'] = index_extract
                step_seg['img_size'] = size_extract
                cropped_volume = extract_volume(reader_im,
                                                index_extract,
                                                size_extract)

                volume_fn = (output_folder +
                             'volumes/volume_'+case+'_'+str(i)+'.mha')

                step_seg['img_file'] = volume_fn
                if allow_writes and write_samples:
                    sitk.WriteImage(cropped_volume, volume_fn)
                    # if seg_file:
                    #     sitk.WriteImage(seg_volume, seg_fn)
                if take_time:
                    print("\n Extracting and writing volumes: " +
                          str(time.time() - start_time_loc) + " s\n")
                if run_time:
                    step_seg['time'] = []
                    step_seg['time'].append(time.time()-start_time_loc)
                    start_time_loc = time.time()

                # Vessel segmentation: either predict using nnU-Net or use pre-segmented data
                if not (seg_file and trace_seg):
                    # Neural network prediction pipeline for raw medical images
                    spacing = (spacing_im * scale).tolist()       # Convert spacing for nnU-Net format
                    spacing = spacing[::-1]                      # Reverse order for nnU-Net convention
                    props = {}
                    props['spacing'] = spacing
                    img_np = sitk.GetArrayFromImage(cropped_volume)
                    img_np = img_np[None]                        # Add batch dimension
                    img_np = img_np.astype('float32')            # Convert to float32 for network

                    start_time_pred = time.time()
                    prediction = predictor.predict_single_npy_array(img_np,
                                                                    props,
                                                                    None,
                                                                    None,
                                                                    True)
                    print(f"""Prediction time:
                          {(time.time() - start_time_pred):.3f} s""")

                    # Extract results: probability map and binary segmentation
                    prob_prediction = sitk.GetImageFromArray(prediction[1][1])  # Probability map
                    predicted_vessel = prediction[0]                           # Binary segmentation
                    pred_img = sitk.GetImageFromArray(predicted_vessel)
                    pred_img = copy_settings(pred_img, cropped_volume)         # Copy image metadata

                else:
                    # Use pre-segmented data (skip neural network prediction)
                    pred_img = extract_volume(reader_seg,
                                              index_extract,
                                              size_extract)
                    predicted_vessel = sitk.GetArrayFromImage(pred_img)

                    # For pre-segmented data, probability equals binary segmentation
                    prob_prediction = pred_img
                    # seg_fn = (output_folder
                    #           + 'volumes/volume_'+case+'_'
                    #           + str(i)+'_truth.mha')

                # Calculate vessel occupancy percentage for volume sizing decision
                perc = predicted_vessel.mean()
                print(f"Perc as 1: {perc:.3f}, mag: {mag}")
                mag += add_mag                                  # Increase magnification for next iteration

            # Finalize probability prediction with proper image metadata
            prob_prediction = copy_settings(prob_prediction, cropped_volume)
            step_seg['prob_predicted_vessel'] = prob_prediction

            # Connected component filtering: keep only vessel connected to center point
            seed = np.rint(np.array(size_extract)/2).astype(int).tolist()  # Center of extracted volume
            predicted_vessel = remove_other_vessels(pred_img, seed)        # Remove disconnected components

            # print("Now the components are: ")
            # labels, means = connected_comp_info(predicted_vessel, True)
            pd_fn = output_folder + 'predictions/seg_'+case+'_'+str(i)+'.mha'
            if take_time:
                print("\n Prediction, forward pass: " +
                      str(time.time() - start_time_loc) + " s\n")
            if run_time:
                step_seg['time'].append(time.time()-start_time_loc)
                start_time_loc = time.time()
            if allow_writes and write_samples:
                sitk.WriteImage(predicted_vessel, pd_fn)

            if global_config['MEGA_SUBVOLUME']:
                (predicted_vessel,
                 cropped_volume) = construct_subvolume(step_seg,
                                                       vessel_tree,
                                                       global_config
                                                       ['NR_MEGA_SUB'],
                                                       i,
                                                       inside_branch)
                if allow_writes and write_samples:
                    sitk.WriteImage(cropped_volume,
                                    volume_fn.replace('.mha', '_mega' +
                                                      str(time.time())+'.mha'))
                    sitk.WriteImage(predicted_vessel,
                                    pd_fn.replace('.mha', '_mega' +
                                                  str(time.time())+'.mha'))

            # Surface generation: convert binary segmentation to 3D mesh using marching cubes
            surface = convert_seg_to_surfs(predicted_vessel,
                                           mega_sub=global_config
                                           ['MEGA_SUBVOLUME'],
                                           ref_min_dims=size_extract)

            # Surface processing: smooth and refine the mesh
            num_iterations = get_smoothing_params(step_seg['radius'],
                                                  scale_unit,
                                                  mega_sub=global_config
                                                  ['MEGA_SUBVOLUME'],
                                                  already_seg=trace_seg)

            # Apply smoothing to reduce marching cubes artifacts
            surface_smooth = smooth_surface(surface,
                                            smoothingIterations=num_iterations)

            # Clip surface to image bounds and extract largest connected component
            vtkimage = exportSitk2VTK(cropped_volume)
            length = (predicted_vessel.GetSize()[0]
                      * predicted_vessel.GetSpacing()[0])
            surface_smooth = bound_polydata_by_image(vtkimage[0],
                                                     surface_smooth,
                                                     length*1/40)       # Clip with small tolerance

            surface_smooth = get_largest_connected_polydata(surface_smooth)  # Keep only main component

            if take_time:
                print("\n Calc and smooth surface: "
                      + str(time.time() - start_time_loc) + " s\n")
            if run_time:
                step_seg['time'].append(time.time()-start_time_loc)
                start_time_loc = time.time()

            sfn = output_folder + 'surfaces/surf_'+case+'_'+str(i)+'smooth.vtp'
            cfn = output_folder + 'centerlines/cent_'+case+'_'+str(i)+'.vtp'

            if allow_writes and write_samples:
                write_vtk_polydata(surface_smooth, sfn)
                # sfn_un = (output_folder
                #           + 'surfaces/surf_'+case+'_'+str(i)+'_unsmooth.vtp')
                # write_vtk_polydata(surface, sfn_un)

            step_seg['seg_file'] = pd_fn
            step_seg['surf_file'] = sfn
            step_seg['surface'] = surface_smooth

            old_point_ref = get_old_ref_point(vessel_tree,
                                              step_seg,
                                              i,
                                              global_config['MEGA_SUBVOLUME'],
                                              global_config['NR_MEGA_SUB'])
            step_seg['old_point_ref'] = old_point_ref
            if allow_writes and write_samples:
                polydata_point = points2polydata([old_point_ref.tolist()])
                pfn = (output_folder + 'points/point_'
                       + case + '_'+str(i)+'_ref.vtp')
                write_geo(pfn, polydata_point)

            # Vessel endpoint detection: find caps (openings) at vessel ends for centerline calculation
            caps = calc_caps(surface_smooth)

            step_seg['caps'] = caps
            # Orient caps to identify source (entry) and targets (exits) for centerline tracing
            sorted_targets, source_id = orient_caps(caps,
                                                    step_seg['point'],
                                                    old_point_ref,
                                                    step_seg['tangent'])
            print(f"Source id: {source_id}")

            print('Number of caps: ', len(caps))
            # Require at least 2 caps (inlet and outlet) for meaningful centerline after initial steps
            if len(caps) < 2 and i > 1:
                raise SkipThisStepError(
                    "Less than 2 caps, stop here"
                )

            # Centerline extraction: calculate vessel centerline using selected algorithm
            if not global_config['CENTERLINE_EXTRACTION_VMTK']:
                print("Calculating centerline using FMM + Gradient Stepping")
                # Handle special case: initial steps with single cap use current point as source
                if i <= 1 and len(caps) == 1:
                    seed = step_seg['point']                    # Use current tracing point as seed
                    targets = caps                              # Single cap becomes target
                # Standard case: use oriented caps to define source and targets
                else:
                    source = source_id
                    seed = caps[source]                         # Entry point from oriented caps
                    targets = [cap for ind, cap in enumerate(caps)
                               if ind != source]                # All non-source caps are targets
                               
                # Calculate centerline using Fast Marching Method
                (centerline_poly,
                 success) = calc_centerline_fmm(predicted_vessel,
                                                seed,
                                                targets,
                                                min_res=40,
                                                post_process_kwargs={
                                                    'merge_method': global_config.get(
                                                        'CENTERLINE_MERGE_METHOD',
                                                        'clean'
                                                    )
                                                })

            else:
                print("Calculating centerline using VMTK")
                # Alternative: use VMTK (Vascular Modeling Toolkit) for centerline extraction
                (centerline_poly,
                 success) = calc_centerline_vmtk(surface_smooth,
                                                 vtkimage,
                                                 global_config,
                                                 source_id,
                                                 sorted_targets,
                                                 i,
                                                 caps,
                                                 step_seg,
                                                 length)

            if allow_writes and write_samples:
                step_seg['cent_file'] = cfn
                # write_centerline(centerline_poly, cfn)
                write_vtk_polydata(centerline_poly, cfn)
                write_vtk_polydata(surface_smooth, sfn)
            if take_time:
                print("\n Calc centerline: "
                      + str(time.time() - start_time_loc) + " s\n")
            if run_time:
                step_seg['time'].append(time.time()-start_time_loc)
                start_time_loc = time.time()

            # Store computed geometry in step data structure for later use
            step_seg['point_pd'] = polydata_point
            step_seg['surface'] = surface_smooth
            step_seg['centerline'] = centerline_poly

            # Verify centerline calculation succeeded before continuing
            if not success:
                raise SkipThisStepError(
                    "Centerline calculation failed, stop here"
                )

            # Assembly: Combine local segmentations into global vessel segmentation
            # Use buffering to delay assembly and avoid interference with active tracing
            if use_buffer:
                # Add segmentations every N steps, with a buffer delay
                if (len(vessel_tree.steps) % N == 0
                   and len(vessel_tree.steps) >= (N+buffer)):

                    # Process buffered segmentation steps
                    for j in range(1, N+1):
                        if (vessel_tree.steps[-(j+buffer)]
                           ['prob_predicted_vessel']):
                            print(f"""Adding step {-(j+buffer)} and number of
                                  steps are {len(vessel_tree.steps)}""")
                            assembly_segs.add_segmentation(
                                (vessel_tree.steps[-(j+buffer)]
                                 ['prob_predicted_vessel']),
                                vessel_tree.steps[-(j+buffer)]['img_index'],
                                vessel_tree.steps[-(j+buffer)]['img_size'],
                                (1/vessel_tree.steps[-(j+buffer)]
                                 ['radius'])**2
                                 )
                            (vessel_tree.steps[-(j+buffer)]
                             ['prob_predicted_vessel']) = None
                            vessel_tree.caps = (vessel_tree.caps
                                                + vessel_tree.steps
                                                [-(j+buffer)]['caps'])

                    if len(vessel_tree.steps) % (N*5) == 0 and allow_writes and write_samples:
                        # sitk.WriteImage(assembly_segs.assembly,
                        #                 (output_folder + 'assembly/assembly_'
                        #                  + case + '_'+str(i)+'.mha'))
                        assembly = sitk.BinaryThreshold(assembly_segs.assembly,
                                                        lowerThreshold=0.5,
                                                        upperThreshold=1)
                        # assembly = remove_other_vessels(assembly,
                        #                                 initial_seed)
                        surface_assembly = evaluate_surface(assembly, 1)
                        write_vtk_polydata(surface_assembly,
                                           output_folder
                                           + 'assembly/assembly_surface_'+case
                                           + '_'+str(i)+'.vtp')

                if take_time:
                    print("\n Adding to seg volume: "
                          + str(time.time() - start_time_loc) + " s\n")
                if run_time:
                    step_seg['time'].append(time.time()-start_time_loc)
                    start_time_loc = time.time()
            else:
                assembly_segs.add_segmentation(
                    step_seg['prob_predicted_vessel'],
                    step_seg['img_index'],
                    step_seg['img_size'],
                    step_seg['radius'])
                step_seg['prob_predicted_vessel'] = None

            # Print polydata surfaces,cents together for animation
            if allow_writes and animation and write_samples:
                # print('Animation step added')
                # Add to surface and cent lists
                surfaces_animation.append(surface_smooth)
                cent_animation.append(centerline_poly)

                if i % animation_steps == 0:  # only write out every 10 steps
                    # Create single polydata
                    surface_accum = appendPolyData(surfaces_animation)
                    cent_accum = appendPolyData(cent_animation)
                    # Write out polydata
                    write_vtk_polydata(surface_accum,
                                       (output_folder +
                                        'animation/animationsurf_' +
                                        str(i).zfill(3)+'.vtp'))
                    write_vtk_polydata(cent_accum,
                                       (output_folder +
                                        'animation/animationcent_' +
                                        str(i).zfill(3)+'.vtp'))

            (point_tree,
             radius_tree,
             angle_change) = get_next_points(centerline_poly,
                                             step_seg['point'],
                                             step_seg['old point'],
                                             step_seg['old radius'],
                                             magn_radius=magnify_radius,
                                             min_radius=min_radius,
                                             add_radius=add_radius,
                                             mega_sub=(global_config
                                                       ['MEGA_SUBVOLUME']))

            if take_time:
                print("\n Calc next point: " +
                      str(time.time() - start_time_loc) + " s\n")
            if run_time:
                step_seg['time'].append(time.time()-start_time_loc)
                start_time_loc = time.time()

            vessel_tree.steps[i] = step_seg

            # Border checking: stop tracing if segmentation reaches image boundary
            if border:
                print("Checking if segmentation has reached the border")
                if check_seg_border(size_extract,
                                    index_extract,
                                    predicted_vessel,
                                    size_im):
                    raise SkipThisStepError(
                        "Segmentation has reached border, stop here"
                    )

            # Continue tracing if valid next points were found
            if point_tree.size != 0:

                i += 1
                num_steps_direction += 1
                # Create next tracing step from best candidate point
                next_step = create_step_dict(step_seg['point'],
                                             step_seg['radius'],
                                             point_tree[0],
                                             radius_tree[0],
                                             angle_change[0])

                # Forceful sidebranch handling: adjust position and radius for difficult branches
                if len(radius_tree) > 1 and forceful_sidebranch:
                    print('Forceful sidebranch -  adding vector')
                    next_step['point'] += (next_step['radius']
                                           * next_step['tangent'])
                    next_step['radius'] = (next_step['radius']
                                           * forceful_sidebranch_magnify)

                print(f"Next radius is {radius_tree[0]:.3f}")
                vessel_tree.add_step(i, next_step, branch)

                # Bifurcation handling: process multiple branches when detected
                if len(radius_tree) > 1:
                    print('\n _ \n')
                    print(f"\n BIFURCATION - {len(radius_tree)} BRANCHES \n")
                    print('\n _ \n')

                    # Create new potential branch points for each detected bifurcation
                    # Skip index 0 (main branch continuation) and process side branches
                    for j in range(1, len(radius_tree)):
                        dict = create_step_dict(step_seg['point'],
                                                step_seg['radius'],
                                                point_tree[j],
                                                radius_tree[j],
                                                angle_change[j])
                        dict['connection'] = [branch, i-1]  # Track where this branch originated
                        if forceful_sidebranch:
                            # Offset point along tangent for better branch separation
                            dict['point'] += dict['radius']*dict['tangent']
                            dict['radius'] = (dict['radius']
                                              * forceful_sidebranch_magnify)

                        vessel_tree.potential_branches.append(dict)
                    
                    # Visualization: save potential branch points for debugging
                    list_points_pot = []
                    for pot in point_tree:
                        list_points_pot.append(points2polydata([pot.tolist()]))
                    final_pot = appendPolyData(list_points_pot)
                    if allow_writes and write_samples:
                        write_vtk_polydata(final_pot,
                                           (output_folder
                                            + '/points/bifurcation_'+case+'_'
                                            + str(branch)+'_'+str(i-1)
                                            + '_points.vtp'))
            # Termination condition: no valid next points found
            else:
                print('point_tree.size is 0')
                raise SkipThisStepError(
                    "No next points, stop here"
                )
            print("\n   This location done: "
                  + f"{time.time() - start_time_loc:.3f} s\n")

        # Exception handling: process failed steps and attempt recovery
        except Exception as e:
            print(e)

            # Save debug information with available data for error analysis
            if step_seg['centerline']:
                print_error(output_folder, i, step_seg, cropped_volume,
                            predicted_vessel, old_point_ref, centerline_poly,
                            disk_io=disk_io)
            elif step_seg['seg_file']:
                print_error(output_folder, i, step_seg, cropped_volume,
                            predicted_vessel, disk_io=disk_io)
            elif step_seg['img_file']:
                print_error(output_folder, i, step_seg, cropped_volume,
                            disk_io=disk_io)

            if i == 0:
                print("Didnt work for first surface")
                # break

            # Retry logic: allow multiple attempts for failed steps
            if (vessel_tree.steps[i]['chances'] < number_chances
               and not step_seg['is_inside']):
                print("Giving chance for surface: " + str(i))
                if take_time:
                    print('Radius is ', step_seg['radius'])
                # Adaptive radius adjustment for high vessel percentage
                if (step_seg['seg_file'] and perc > 0.33
                   and vessel_tree.steps[i]['chances'] > 0):
                    print(f"""Magnifying radius by 1.2 because percentage
                          vessel is above 0.33: {perc:.3f}""")
                    vessel_tree.steps[i]['radius'] *= 1.2
                # Move point forward along tangent for next attempt
                (vessel_tree.steps[i]['point']) = ((vessel_tree.steps[i]
                                                    ['point'])
                                                   + (vessel_tree.steps[i]
                                                      ['radius'])
                                                   * (vessel_tree.steps[i]
                                                      ['tangent']))
                vessel_tree.steps[i]['chances'] += 1

            # Branch termination: exceeded retry attempts, switch branches
            else:

                print("\n*** Error for step: \n" + str(i))
                print("Length of branch: ", len(vessel_tree.branches[branch]))
                print("\n Moving onto another branch\n")

                # Early termination for initial branch failure
                if len(vessel_tree.branches) <= 1 and step_seg['is_inside']:
                    print("\n\nWARNING: First branch is inside, so stopping\n\n")

                # Branch restart conditions: inside vessel or short branch
                if i != 0 and len(vessel_tree.branches) > 1 and ((step_seg['is_inside'] and global_config['RESTART_BRANCH'])
                   or len(vessel_tree.branches[branch]) <= 2):
                    # Switch to next available branch and reset step counter
                    # Remove current branch from allowed steps to prevent infinite loops

                    if len(vessel_tree.branches[branch]) <= 2:
                        print("Branch length is 1 or 0, so restarting")
                    elif (step_seg['is_inside']
                          and global_config['RESTART_BRANCH']):
                        print('Branch inside, restarting branch')

                    # If this branch is inside, then restart branch
                    # if len(vessel_tree.branches[branch]) <= allowed_steps+2:
                    vessel_tree.restart_branch(branch)
                    branch -= 1
                    # If not the whole branch is inside
                    # then remove allowed_steps
                    # else:
                    #     print('Part inside, removing last n steps')
                    #     vessel_tree.remove_previous_n(branch,
                    #                                   n=allowed_steps-1)
                    i = vessel_tree.branches[-1][-1] + 1
                    print(f"i is now {i}")

                # Standard branch completion: collect results and clean up
                else:

                    if debug:
                        print("Debugging")

                    # Remove failed step from current branch
                    del vessel_tree.branches[branch][-1]
                    
                    # Collect all valid results from completed branch steps
                    (list_surf_branch, list_cent_branch,
                     list_pts_branch) = [], [], []
                    for id in vessel_tree.branches[branch][1:]:
                        list_surf_branch.append((vessel_tree.steps[id]
                                                 ['surface']))
                        list_cent_branch.append((vessel_tree.steps[id]
                                                 ['centerline']))
                        list_pts_branch.append((vessel_tree.steps[id]
                                                ['point_pd']))
                        # Clear references to prevent memory leaks
                        vessel_tree.steps[id]['surface'] = None
                        vessel_tree.steps[id]['centerline'] = None
                        vessel_tree.steps[id]['point_pd'] = None
                    
                    # Add branch results to global collections
                    list_centerlines.extend(list_cent_branch)
                    list_surfaces.extend(list_surf_branch)
                    list_points.extend(list_pts_branch)

                    # If buffering is enabled, flush this completed branch's
                    # still-local segmentations into the global assembly so
                    # SimVascular contour extraction includes terminal steps.
                    if use_buffer:
                        for step_id in vessel_tree.branches[branch][1:]:
                            branch_step = vessel_tree.steps[step_id]
                            if branch_step['prob_predicted_vessel']:
                                assembly_segs.add_segmentation(
                                    branch_step['prob_predicted_vessel'],
                                    branch_step['img_index'],
                                    branch_step['img_size'],
                                    (1 / branch_step['radius']) ** 2
                                )
                                branch_step['prob_predicted_vessel'] = None
                                vessel_tree.caps = (
                                    vessel_tree.caps + branch_step['caps']
                                )

                    # Create VTK polydata for visualization of remaining potential branch points
                    # Each point includes radius and index number for debugging/analysis
                    list_pot = []
                    for idx, pot in enumerate(vessel_tree.potential_branches):
                        list_pot.append(points2polydata(
                            [pot['point'].tolist()],
                            attributes={
                                'Radius': ([pot['radius']], 'float'),  # Vessel radius at this point
                                'Number': ([idx], 'int')               # Index in potential branches list
                            }))
                    final_pot = appendPolyData(list_pot)

                    if take_time:
                        print("Branches are: ", vessel_tree.branches)
                    final_surface = appendPolyData(list_surf_branch)
                    final_centerline = appendPolyData(list_cent_branch)
                    final_points = appendPolyData(list_pts_branch)
                    if allow_writes:
                        write_vtk_polydata(final_pot,
                                           output_folder
                                           + '/assembly/potentials_'+case+'_'
                                           + str(branch)+'_'+str(i)
                                           + '_points.vtp')
                        write_vtk_polydata(final_surface,
                                           output_folder
                                           + '/assembly/branch_'+case+'_'
                                           + str(branch)+'_'+str(i)
                                           + '_surfaces.vtp')
                        write_vtk_polydata(final_centerline,
                                           output_folder
                                           + '/assembly/branch_'+case+'_'
                                           + str(branch)+'_'+str(i)
                                           + '_centerlines.vtp')

                    # SimVascular .pth / .ctgr only for branches with >= 3 tracing
                    # steps (indices after the connector at branches[branch][0]).
                    branch_tracing_steps = len(vessel_tree.branches[branch][1:])
                    if allow_writes and simvascular and branch_tracing_steps >= 3:
                        try:
                            # .pth controls: up to 2 mother steps + branch [y, z, a, b, c, ...]
                            list_pts_pth = []
                            for step_id in vessel_tree.pth_control_step_ids(
                                    branch, n_mother=1):
                                step_pd = vessel_tree.steps[step_id]['point_pd']
                                if step_pd is None:
                                    step_pd = points2polydata(
                                        [vessel_tree.steps[step_id]['point'].tolist()]
                                    )
                                list_pts_pth.append(step_pd)
                            final_points_pth = appendPolyData(list_pts_pth)
                            centerline_points, _ = get_points_cells(
                                final_points_pth)
                            if len(centerline_points) > 0:
                                # Convert points to list of tuples for create_pth
                                pth_points = [tuple(point)
                                              for point in centerline_points]
                                # remove identical points
                                pth_points = list(dict.fromkeys(pth_points))
                                pth_points = [list(point) for point in pth_points]
                                branch_number_prefix = str(branch).zfill(3)
                                branch_file_stem = (
                                    f"{branch_number_prefix}_{case}_{i}"
                                )
                                pth_output_path = (
                                    output_folder
                                    + '/simvascular/Paths/'
                                    + branch_file_stem
                                    + '.pth')
                                simvascular_path_counter += 1
                                # Spline controls = up to two mother-branch steps
                                # (including connector) + per-step path vertices.
                                _calc_n = path_calculation_number_for_control_count(
                                    len(pth_points)
                                )
                                _n_spline_pts = create_pth(
                                    pth_points,
                                    pth_output_path,
                                    path_id=simvascular_path_counter,
                                    spline_resample=True,
                                    calculation_number=_calc_n,
                                    unit=unit,
                                )
                                # One SimVascular contour group (.ctgr) per completed branch,
                                # referencing the same path basename and path_id as the .pth.
                                if global_config.get("SIMVASCULAR_CONTOURS", True):
                                    try:
                                        ctgr_output_path = (
                                            output_folder
                                            + "/simvascular/Segmentations/"
                                            + branch_file_stem
                                            + ".ctgr"
                                        )
                                        _base_stride = int(
                                            global_config.get(
                                                "SIMVASCULAR_CONTOUR_STRIDE", 2
                                            )
                                        )
                                        _contour_stride = (
                                            contour_stride_for_branch_steps(
                                                _n_spline_pts,
                                                branch_tracing_steps,
                                                base_stride=_base_stride,
                                            )
                                        )
                                        write_ctgr_for_pth(
                                            assembly_segs.assembly,
                                            pth_output_path,
                                            ctgr_output_path,
                                            iso_value=float(
                                                global_config.get(
                                                    "SIMVASCULAR_CONTOUR_ISO", 0.5
                                                )
                                            ),
                                            stride=_contour_stride,
                                            half_extent_mm=float(
                                                global_config.get(
                                                    "SIMVASCULAR_CONTOUR_HALF_EXTENT_MM",
                                                    50.0,
                                                )
                                            ),
                                            component_selection=str(
                                                global_config.get(
                                                    "SIMVASCULAR_CONTOUR_COMPONENT",
                                                    "closest_to_path",
                                                )
                                            ),
                                            n_control_points=int(
                                                global_config.get(
                                                    "SIMVASCULAR_CONTOUR_N_CONTROL",
                                                    6,
                                                )
                                            ),
                                            unit=unit,
                                        )
                                    except Exception as e_ct:
                                        print(
                                            "Warning: Could not create .ctgr file for "
                                            f"branch {branch}: {e_ct}"
                                        )
                        except Exception as e:
                            print(f"Warning: Could not create .pth file for "
                                  f"branch {branch}: {e}")

                    if allow_writes:
                        write_vtk_polydata(final_points,
                                           output_folder
                                           + '/assembly/branch_'+case+'_'
                                           + str(branch)+'_'+str(i)
                                           + '_points.vtp')

                    # Record terminal cap positions for mesh capping
                    vessel_tree.caps = (vessel_tree.caps
                                        + [step_seg['point']
                                           + volume_size_ratio
                                           * step_seg['radius']
                                           * step_seg['tangent']])

                    # Retrace centerline option: add completed branch for re-processing
                    if retrace_cent:
                        ind = vessel_tree.branches[branch][1]  # Get second step on this branch
                        step_to_add = vessel_tree.steps[ind]
                        step_to_add['connection'] = [-branch+1, ind]  # Mark as retrace
                        vessel_tree.potential_branches.append(step_to_add)

                # Potential branch management: organize remaining branches for processing
                if merge_potentials:
                    vessel_tree.merge_pots_radius()  # Combine nearby potential points

                # Branch selection strategy: prioritize by size or randomize
                if sort_potentials:
                    vessel_tree.sort_potential_radius()  # Largest radius first
                else:
                    vessel_tree.shuffle_potential()  # Random order

                # Continue with next available branch
                if len(vessel_tree.potential_branches) == 1:
                    break  # No more branches to process
                next_step = vessel_tree.potential_branches.pop(1)
                if next_step['point'][0] == vessel_tree.steps[0]['point'][0]:
                    if len(vessel_tree.potential_branches) > 1:
                        next_step = vessel_tree.potential_branches.pop(1)
                    else:
                        break  # No more branches to process

                branch += 1
                vessel_tree.add_branch(next_step['connection'][1], i)
                vessel_tree.steps[i] = next_step
                num_steps_direction = 0

                print("Post Branches are: ")
                for print_branch in vessel_tree.branches:
                    print(print_branch)
                print("Number of steps are: ", len(vessel_tree.steps))
                print("Connections of branches are: ",
                      vessel_tree.bifurcations)
                print("Number of potentials left are: ",
                      len(vessel_tree.potential_branches))

                # Check if end prematurely
                if len(vessel_tree.branches) > max_n_branches:
                    print(f"Max number of branches reached: {max_n_branches}")
                    break

    # Write out remaining unprocessed potential branch points for analysis
    if len(vessel_tree.potential_branches) > 0:
        print('Printing potentials')
        list_pot = []
        for idx, pot in enumerate(vessel_tree.potential_branches):
            # Create point with both radius and index attributes for tracking
            list_pot.append(points2polydata([pot['point'].tolist()],
                                            attributes={
                                                'Radius': ([pot['radius']], 'float'),  # Vessel radius estimate
                                                'Number': ([idx], 'int')               # Original index in list
                                            }))
        final_pot = appendPolyData(list_pot)
        if allow_writes:
            write_vtk_polydata(final_pot,
                               output_folder+'/potentials_'+case+'_'+str(i)
                               + '_points.vtp')

    # Final cleanup: add remaining segmentations to global assembly
    if use_buffer:
        print("Adding rest of segs to global")
        # Process remaining valid segmentations in reverse order
        check = 2
        while (check <= len(vessel_tree.steps)
               and vessel_tree.steps[-check]['prob_predicted_vessel']):
            # Add segmentation with weighted contribution based on radius
            assembly_segs.add_segmentation((vessel_tree.steps[-check]
                                            ['prob_predicted_vessel']),
                                           (vessel_tree.steps[-check]
                                            ['img_index']),
                                           (vessel_tree.steps[-check]
                                            ['img_size']),
                                           (1/vessel_tree.steps[-check]
                                            ['radius'])**2)  # Smaller radii get higher weight
            vessel_tree.steps[-check]['prob_predicted_vessel'] = None  # Free memory
            check += 1

    # Return all collected results and final state
    return (list_centerlines,    # VTK polydata centerlines for each branch
            list_surfaces,       # VTK polydata surfaces for each step  
            list_points,         # VTK polydata points for each step
            list_inside_pts,     # Points that were detected inside vessels
            assembly_segs,       # Global segmentation assembly object
            vessel_tree,         # Complete tree structure with all steps
            i)                   # Final step counter
