import skimage
import numpy as np

def generate_synthetic_square(im_dims, square_dims, rgb=True):

    square = 200*np.ones(square_dims, dtype=np.uint8)
    if rgb is True:
        im = np.random.randint(0, 55, (im_dims[0], im_dims[1], 3), dtype=np.uint8)
        im[im_dims[0]//2 - square_dims[0]//2:im_dims[0]//2 + square_dims[0]//2,
        im_dims[1]//2 - square_dims[1]//2:im_dims[1]//2 + square_dims[1]//2, 0] += square
    else:
        im = np.random.randint(0, 55, (im_dims[0], im_dims[1]), dtype=np.uint8)
        im[im_dims[0]//2 - square_dims[0]//2:im_dims[0]//2 + square_dims[0]//2,
        im_dims[1]//2 - square_dims[1]//2:im_dims[1]//2 + square_dims[1]//2] += square
    
    ground_truth = np.ones(im_dims, dtype=np.uint8)
    ground_truth[im_dims[0]//2 - square_dims[0]//2:im_dims[0]//2 + square_dims[0]//2,
                    im_dims[1]//2 - square_dims[1]//2:im_dims[1]//2 + square_dims[1]//2] = 2

    return im, ground_truth

def generate_synthetic_circle_annotation(im_dims, circle1_xy, circle2_xy):

    circle1 = skimage.draw.disk(circle1_xy, 7)
    circle2 = skimage.draw.disk(circle2_xy, 7)
    annotations = np.zeros(im_dims, dtype=np.uint8)
    annotations[circle1] = 1
    annotations[circle2] = 2

    return annotations