/* DAS3 kernel for transmit delays and virtual sources.

- tx_mode == 0: tx_steering contains TX delays
- tx_mode == 1: tx_steering contains virtual source positions
*/
#include <cuComplex.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

//-- RX Tukey apodization weight
__device__ float tukey_weight(const float normed_distance, const float alpha)
{
    float dist_to_0 = fabsf(normed_distance);
    if (dist_to_0 > 1.0f)
    {
        return 0.0f;
    }
    if (dist_to_0 < 1.0f - alpha)
    {
        return 1.0f;
    }
    return 0.5f * (1.0f + cosf(((float)M_PI / alpha) * (dist_to_0 - 1.0f + alpha)));
}

//-- Select the RX apodization method
__device__ float apodization_weight(const float normed_distance,
                                    const int method,
                                    const float alpha)
{
    if (method == 0)
    {
        return fabsf(normed_distance) > 1.0f ? 0.0f : 1.0f;
    }
    if (method == 1)
    {
        return tukey_weight(normed_distance, alpha);
    }
    return 0.0f;
}

//-- Aperture ratio matching the CPU implementation. Convex probes use the
//-- orientation of each individual element, while flat probes use their
//-- lateral and elevational distances to the voxel.
__device__ float aperture_ratio(const float x, const float y, const float z,
                                const float elex, const float eley,
                                const float elez, const float theta,
                                const float *fnumber, const int has_thetas)
{
    if (fnumber[0] == 0.0f || fnumber[1] == 0.0f)
    {
        return 0.0f;
    }

    float x_diff = x - elex;
    float y_diff = y - eley;
    float z_diff = z - elez;
    float distance = norm3df(x_diff, y_diff, z_diff);

    if (has_thetas)
    {
        float aperture = atanf(1.0f / (2.0f * fnumber[0]));
        float sine = fminf(1.0f, fmaxf(-1.0f, x_diff / distance));
        return (asinf(sine) - theta) / aperture;
    }

    float ratio_x = fabsf(x_diff) / (z / (2.0f * fnumber[0]));
    float ratio_y = fabsf(y_diff) / (z / (2.0f * fnumber[1]));
    return fmaxf(ratio_x, ratio_y);
}

//-- Sign helper used by virtual-source propagation
__device__ int sign_float(float x)
{
    int t = x < 0.0f ? -1 : 0;
    return x > 0.0f ? 1 : t;
}

template <class T>
__device__ complex<float> interp1d(const T *f, const float it, const int Nt,
                                   const int iele, const int Ne,
                                   const int frame,
                                   const int interpolation_method)
{
    T fi = 0;

    //-- No interpolation: take the closest time sample
    if (interpolation_method == 0)
    {
        int itfi = (int)roundf(it);
        if ((itfi >= 0) && (itfi < Nt))
        {
            int t0 = itfi + Nt * iele + Nt * Ne * frame;
            fi = f[t0];
        }
    }
    else
    {
        float itf = floorf(it);
        int itfi = (int)itf;
        if ((itfi >= 0) && (itfi < (Nt - 1)))
        {
            int t0 = itfi + Nt * iele + Nt * Ne * frame;
            int t1 = t0 + 1;
            fi += f[t0] * (itf + 1.0f - it) + f[t1] * (it - itf);
        }
    }

    return (complex<float>)fi;
}

template <class Tsig>
__global__ void das(complex<float> *mig, const int Nvoxels,
                    const int Ne_mig, const int Nt_mig,
                    const int Nframe_mig, const Tsig *sig,
                    const int Nt, const int Ne, const int Nframe,
                    const int Ne_tx, const bool isIQ,
                    const float *X, const float *Y, const float *Z,
                    const float *rx_elements, const float *tx_elements,
                    const float *rx_thetas, const float *tx_thetas,
                    const int *has_rx_thetas, const int *has_tx_thetas,
                    const float *tx_steering, const int tx_mode,
                    const int emitted_aperture,
                    const float c0, const float *t0, const float f0,
                    const float fs, const float *fnumber,
                    const int interpolation_method,
                    const int reduction_method, const int rx_apodization_method,
                    const float rx_apodization_alpha, const float *RXapod)
{
    int ivoxel = blockDim.x * blockIdx.x + threadIdx.x;

    if (ivoxel >= Nvoxels)
    {
        return;
    }

    //-- Output shape
    int do_not_sum = Nvoxels * (int)(Ne_mig != 1);
    int do_window = Nvoxels * Ne_mig * (int)(Nt_mig != 1);
    int do_not_compound = Nvoxels * Ne_mig * Nt_mig * (int)(Nframe_mig != 1);
    int count_t = 0;

    //-- Normalization for CPWC
    float cpwc_norma = 1.0f;

    float x = X[ivoxel];
    float y = Y[ivoxel];
    float z = Z[ivoxel];

    for (int frame = 0; frame < Nframe; frame++)
    {
        float dTX = 100.0f;
        float dprobe_min = 0.0f;
        int count_re = 0;

        //-- Compute transmit distance [m] with TX delays
        if (tx_mode == 0)
        {
            //-- TX delay mode: each emitted element contributes through its
            //-- geometric distance to the voxel plus its transmit delay.
            for (int iele = 0; iele < Ne_tx; iele++)
            {
                float elex = tx_elements[0 * Nframe * Ne_tx + frame * Ne_tx + iele];
                float eley = tx_elements[1 * Nframe * Ne_tx + frame * Ne_tx + iele];
                float elez = tx_elements[2 * Nframe * Ne_tx + frame * Ne_tx + iele];

                float e_ratio = aperture_ratio(
                    x, y, z, elex, eley, elez,
                    tx_thetas[frame * Ne_tx + iele], fnumber,
                    has_tx_thetas[frame]);
                if (emitted_aperture && fabsf(e_ratio) > 1.0f)
                {
                    continue;
                }

                //-- Use emitted elements for the transmit path
                float d_elem = norm3df(x - elex, y - eley, z - elez);
                //-- TX delay is converted to distance and added to the geometric path
                float d_candidate = d_elem + c0 * tx_steering[frame * Ne_tx + iele];
                dTX = fminf(dTX, d_candidate);
            }
        }
        else
        {
            //-- Virtual-source mode: each transmission is represented by one
            //-- source position. The signed source-to-probe offset keeps the
            //-- same temporal and IQ phase reference as the delay-based
            //-- formulation.
            dprobe_min = 100.0f;
            float sx = tx_steering[frame * 3 + 0];
            float sy = tx_steering[frame * 3 + 1];
            float sz = tx_steering[frame * 3 + 2];

            for (int iele = 0; iele < Ne_tx; iele++)
            {
                float elex = tx_elements[0 * Nframe * Ne_tx + frame * Ne_tx + iele];
                float eley = tx_elements[1 * Nframe * Ne_tx + frame * Ne_tx + iele];
                float elez = tx_elements[2 * Nframe * Ne_tx + frame * Ne_tx + iele];

                float dprobe = norm3df(elex - sx, eley - sy, elez - sz);
                dprobe_min = fminf(dprobe_min, dprobe);
            }

            float dvoxel = norm3df(x - sx, y - sy, z - sz);
            dprobe_min *= (float)sign_float(sz);
            dTX = dvoxel + dprobe_min;
        }

        if (dTX >= 100.0f)
        {
            continue;
        }

        for (int iele = 0; iele < Ne; iele++)
        {
            //-- Use received elements for the receive path
            float elex = rx_elements[0 * Nframe * Ne + frame * Ne + iele];
            float eley = rx_elements[1 * Nframe * Ne + frame * Ne + iele];
            float elez = rx_elements[2 * Nframe * Ne + frame * Ne + iele];

            float r_ratio = aperture_ratio(
                x, y, z, elex, eley, elez,
                rx_thetas[frame * Ne + iele], fnumber,
                has_rx_thetas[frame]);
            if (fabsf(r_ratio) > 1.0f)
            {
                continue;
            }

            float dRX = norm3df(x - elex, y - eley, z - elez);
            float tau = (dRX + dTX) / c0;

            for (int it = 0; it < Nt_mig; it++)
            {
                float itf = (tau - t0[frame]) * fs + it - ((float)(Nt_mig - 1)) / 2.0f;
                complex<float> sig_interp = interp1d<Tsig>(sig, itf, Nt, iele, Ne, frame,
                                                           interpolation_method);

                if (sig_interp == (complex<float>)0)
                {
                    continue;
                }

                count_re++;
                sig_interp *= RXapod[iele * Nvoxels + ivoxel] * apodization_weight(r_ratio, rx_apodization_method, rx_apodization_alpha);

                //-- Phase rotation (if I/Q signals)
                if (isIQ)
                {
                    sig_interp *= exp(complex<float>(0.0f,
                                                     2.0f * (float)M_PI * f0 * (tau - dprobe_min / c0)));
                }

                int iv = ivoxel + do_not_sum * iele + do_window * it + do_not_compound * frame;
                mig[iv] += cpwc_norma * sig_interp;
            }
        }

        if (reduction_method == 1 && Ne_mig == 1)
        {
            if (Nframe_mig == 1)
            {
                count_t += count_re;
            }
            else if (count_re > 0)
            {
                int iv = ivoxel + do_not_compound * frame;
                mig[iv] /= (float)count_re;
            }
        }
    }

    if (reduction_method == 1 && Ne_mig == 1 && Nframe_mig == 1 && count_t > 0)
    {
        mig[ivoxel] /= (float)count_t;
    }
}
