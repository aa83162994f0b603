extern "C" __global__
void rgb2yuv444(const unsigned char* rgb, unsigned char* yuv, int w, int h, int stride_rgb, int stride_yuv) {
    int ix = blockDim.x * blockIdx.x + threadIdx.x;
    int iy = blockDim.y * blockIdx.y + threadIdx.y;
    if (ix >= w || iy >= h) return;

    int rgbIdx = iy * stride_rgb + ix * 3;
    unsigned char r = rgb[rgbIdx + 0];
    unsigned char g = rgb[rgbIdx + 1];
    unsigned char b = rgb[rgbIdx + 2];

    // BT.601
    float fy = 0.257f * r + 0.504f * g + 0.098f * b + 16.0f;
    float fu = -0.148f * r - 0.291f * g + 0.439f * b + 128.0f;
    float fv = 0.439f * r - 0.368f * g - 0.071f * b + 128.0f;

    int yIdx = iy * stride_yuv + ix;
    int uIdx = (iy + h) * stride_yuv + ix;
    int vIdx = (iy + 2 * h) * stride_yuv + ix;

    yuv[yIdx] = min(max(int(fy + 0.5f), 0), 255);
    yuv[uIdx] = min(max(int(fu + 0.5f), 0), 255);
    yuv[vIdx] = min(max(int(fv + 0.5f), 0), 255);
}