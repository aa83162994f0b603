extern "C" __global__
void rgb2nv12(const unsigned char* rgb, unsigned char* nv12, int w, int h, int stride_rgb, int stride_nv12) {
    int ix = blockDim.x * blockIdx.x + threadIdx.x;
    int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < w && iy < h) {
        int rgbIdx = iy * stride_rgb + ix * 3;
        unsigned char r = rgb[rgbIdx + 0];
        unsigned char g = rgb[rgbIdx + 1];
        unsigned char b = rgb[rgbIdx + 2];

        // BT.601
        float fy = 0.257f * r + 0.504f * g + 0.098f * b + 16.0f;
        unsigned char yv = min(max(int(fy), 0), 255);

        int y_offset = iy * stride_nv12 + ix;
        nv12[y_offset] = yv;
    }

    if ((ix < w/2) && (iy < h/2)) {
        // 2x2 block
        float u = 0.f, v = 0.f;
        for (int dy = 0; dy < 2; ++dy) {
            for (int dx = 0; dx < 2; ++dx) {
                int xx = ix * 2 + dx, yy = iy * 2 + dy;
                int rgbIdx = yy * stride_rgb + xx * 3;
                unsigned char r = rgb[rgbIdx + 0];
                unsigned char g = rgb[rgbIdx + 1];
                unsigned char b = rgb[rgbIdx + 2];
                u += -0.148f * r - 0.291f * g + 0.439f * b + 128.0f;
                v += 0.439f * r - 0.368f * g - 0.071f * b + 128.0f;
            }
        }
        u /= 4.0f;
        v /= 4.0f;
        int uv_offset = h * stride_nv12 + iy * stride_nv12 + ix * 2;
        nv12[uv_offset + 0] = min(max(int(u), 0), 255); // U
        nv12[uv_offset + 1] = min(max(int(v), 0), 255); // V
    }
}