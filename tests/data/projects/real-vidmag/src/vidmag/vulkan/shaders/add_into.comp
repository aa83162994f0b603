#version 450
layout(local_size_x = 64) in;

layout(binding = 0) buffer Acc { float acc[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(push_constant) uniform P { int count; } p;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.count) return;
    acc[i] += b[i];
}
