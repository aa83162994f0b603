#version 450
layout(local_size_x = 64) in;

layout(binding = 0) buffer Fast { float fast[]; };
layout(binding = 1) buffer Slow { float slow[]; };
layout(binding = 2) readonly buffer Cur { float cur[]; };
layout(binding = 3) writeonly buffer Out { float outv[]; };
layout(push_constant) uniform P { int count; float r1; float r2; } p;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.count) return;
    float x = cur[i];
    float f = fast[i] * (1.0 - p.r1) + x * p.r1;
    float s = slow[i] * (1.0 - p.r2) + x * p.r2;
    fast[i] = f; slow[i] = s; outv[i] = f - s;
}
