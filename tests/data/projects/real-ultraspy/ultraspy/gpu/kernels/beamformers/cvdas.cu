/* Coherence-to-variance DAS operation. (Jipeng Yan et al. 2022)
Actual CV das kernel. A few options are available:
- interpolation: 0 or 1 (none or linear)
- should_average: 0 or 1 (False or True)
- transmit_method: 0, 1 or 2 (centered, negative delays or positive delays)
- rx_apodization_method: 0 or 1 (Boxcar or Tukey window)
- rx_apodization_alpha: Factor (float) for our apodization window
- emitted_aperture: If True, the aperture is computed for emission elements
  also
- compound: If True, the data is compounded through the transmissions
- reduce: If True, the data is reduced through the probe elements
*/

#define M_PI 3.14159265358979323846

#include "probe_distances.cu"
#include "aperture_ratio.cu"
#include "interpolation.cu"
#include "apodization.cu"


__device__ complex<float> cvdas_rfs(complex<float> *focused_data,
                                    int base,
                                    int nb_re,
                                    int count,
                                    int to_mean)
{
    /* CV-DAS operation on RFs delays.

      Input parameters:
      =================

      focused_data: The array of focused data for one pixel.

      base:         The starting index to consider for the focused data.

      nb_re:        The number of elements of the received probe.

      count:        The number of concerned focused data.

      to_mean:      This option defines if we average the results after
                    beamforming (by the number of locally concerned elements,
                    check f_number for details). If 1, mean is performed, else
                    case, summation.
    */

    float coherent_energy = 0;
    float mean = 0;
    float var = 0;
    float N = 0;
    float acc = 0;
    float scale = 0;
    float vox = 0;

    for (int i = 0; i < nb_re; i++) {
        float f_del = focused_data[base + i].real();
        if (f_del == 0.) { continue; }

        N += 1.0;
        acc += f_del;
        scale = max(scale, abs(f_del));
    }

    if (N == 0 || scale == 0) {
        return complex<float>(0);
    }

    float normalized_acc = acc / scale;
    coherent_energy = powf(abs(normalized_acc), 2.0);
    mean = normalized_acc / N;

    for (int i = 0; i < nb_re; i++) {
        float f_del = focused_data[base + i].real();
            if (f_del == 0.) { continue; }

        var += powf(abs(f_del / scale - mean), 2.0);
    }  

    if (to_mean == 1 && count > 0) {
        acc /= float(count);
    }

    if (var != 0) {
        vox = ((coherent_energy / var) * acc);
    }

    return vox;
}


__device__ complex<float> cvdas_iqs(complex<float> *focused_data,
                                    int base,
                                    int nb_re,
                                    int count,
                                    int to_mean)

{
    /* CV-DAS operation on IQs delays.

      Input parameters:
      =========
      focused_data: The array of focused data for one pixel.

      base:         The starting index to consider for the focused data.

      nb_re:        The number of elements of the received probe.

      count:        The number of concerned focused data.

    */

    complex<float> acc = 0;
    float coherent_energy = 0;
    complex<float> mean = 0;
    float var = 0;
    float N = 0;
    float scale = 0;
    complex<float> vox = 0;

    for (int i = 0; i < nb_re; i++) {
        if (focused_data[base + i].real() == 0. &&
            focused_data[base + i].imag() == 0) { continue; }
        
        N += 1.0;
        acc += focused_data[base + i];
        scale = max(scale, abs(focused_data[base + i]));
    }

    if (N == 0 || scale == 0) {
        return complex<float>(0);
    }

    complex<float> normalized_acc = acc / scale;
    coherent_energy = powf(abs(normalized_acc), 2.0);
    mean = normalized_acc / N;

    for (int i = 0; i < nb_re; i++) {
        if (focused_data[base + i].real() == 0. &&
            focused_data[base + i].imag() == 0) { continue; }
    
        complex<float> normalized = focused_data[base + i] / scale;
        var += powf(abs(normalized - mean), 2.0);
    }  

    
    if (to_mean == 1 && count > 0) {
        acc /= float(count);
    }

    if (var != 0) {
        vox = ((coherent_energy / var) * acc);
    }

    return vox;
} 

    


template <class T>
__device__ void core_cvdas(const T *data,
                           const int start_data_idx,
                           const int is_iq,
                           const float *emitted_probe,
                           const float *received_probe,
                           const float *emitted_thetas,
                           const float *received_thetas,
                           const float *delays,
                           const int nb_t,
                           const int nb_ee,
                           const int nb_re,
                           const int nb_ts,
                           const float sampling_freq,
                           const float central_freq,
                           const float t0,
                           const float sound_speed,
                           const float *f_number,
                           const float x,
                           const float y,
                           const float z,
                           complex<float> *focused_data,
                           complex<float> *grid,
                           const int nb_pixels,
                           const int interpolation_method,
                           const int should_average,
                           const int rx_apodization_method,
                           const float rx_apodization_alpha,
                           const int emitted_aperture,
                           const int compound,
                           const int reduce,
                           const int i)
{
    int base_focused_data = i * nb_re;
    int dim_nb_t = compound == 1 ? 1 : nb_t;
    int dim_nb_re = reduce == 1 ? 1 : nb_re;
    int count_t = 0;

    for (int it = 0; it < nb_t; it++) {
        int base_it = it * dim_nb_re * nb_pixels;

        float transmission = 10;  // 10m for infinity
        for (int iee = 0; iee < nb_ee; iee++) {
            float e_dist_to_x, e_dist_to_y, e_dists;
            get_distances(emitted_probe, nb_t, nb_ee, it, iee, x, y, z,
                          &e_dist_to_x, &e_dist_to_y, &e_dists);

            int base = it * nb_ee + iee;
            if (emitted_aperture == 1) {
                float e_ratio = get_aperture_ratio(
                    z, e_dist_to_x, e_dist_to_y, e_dists,
                    emitted_thetas[base], f_number);
                if (abs(e_ratio) > 1) {
                    continue;
                }
            }

            transmission = min(transmission,
                               delays[base] * sound_speed + e_dists);
        }

        if (transmission >= 10) {
            continue;
        }

        int count_re = 0;
        for (int ire = 0; ire < nb_re; ire++) {
            int base_ire = ire * nb_pixels;

            float r_dist_to_x, r_dist_to_y, r_dists;
            get_distances(received_probe, nb_t, nb_re, it, ire, x, y, z,
                          &r_dist_to_x, &r_dist_to_y, &r_dists);

            int base = it * nb_re + ire;
            float r_ratio = get_aperture_ratio(
                z, r_dist_to_x, r_dist_to_y, r_dists,
                received_thetas[base], f_number);

            if (abs(r_ratio) > 1) {
                continue;
            }

            float reception = r_dists;
            float tau = (reception + transmission) / sound_speed;
            float delay = tau - t0;
            float data_idx = delay * sampling_freq;

            // Get the corresponding data
            int base_idx = start_data_idx + it * nb_re * nb_ts + ire * nb_ts;
            complex<float> tmp = interpolate(data, base_idx, data_idx, nb_ts,
                                             interpolation_method);

            if (tmp != T(0)) {
                count_re++;

                // Default to 1 for the apodization method here
                tmp *= get_apodization_weight(
                    r_ratio, rx_apodization_alpha, rx_apodization_method);

                if (is_iq == 1) {
                    // Phase rotation for IQs (does nothing if data are RFs)
                    complex<float> phase (0, 2 * M_PI * central_freq * tau);
                    tmp *= exp(phase);
                }

                // Add it to the focused_data elements
                focused_data[base_focused_data + ire] += tmp;
            }
        }

        if (is_iq == 1) {

            if (compound == 0) {
                grid[base_it + i] = cvdas_iqs(
                    focused_data, base_focused_data, nb_re, count_re,
                    should_average);

            } else if (compound == 1) {
                grid[i] += cvdas_iqs(
                        focused_data, base_focused_data, nb_re, count_re,
                        0);
            }

        } else {
            if (compound == 0) {
                grid[base_it + i] = cvdas_rfs(
                                    focused_data, base_focused_data, nb_re, count_re,
                                    should_average);

            } else if (compound == 1) {
                grid[i] += cvdas_rfs(
                            focused_data, base_focused_data, nb_re, count_re,
                            0);
            }
        }

        count_t += count_re;

        for (int ire = 0; ire < nb_re; ire++) {
            focused_data[base_focused_data + ire] = 0;
        }
    }

    if (compound == 1 && should_average == 1 && count_t > 0) {
        grid[i] /= float(count_t);
    }
}


extern "C" {
    __global__ void cvdas_float(
            const float *data, const int is_iq,
            const float *emitted_probe, const float *received_probe,
            const float *emitted_thetas, const float *received_thetas,
            const float *delays,
            const int nb_t, const int nb_ee, const int nb_re, const int nb_ts,
            const float sampling_freq, const float central_freq, const float t0,
            const float sound_speed, const float *f_number,
            const float *x_coords, const float *y_coords, const float *z_coords,
            const int dim_nb_t, const int dim_nb_re,
            complex<float> *focused_data, complex<float> *grid,
            const int nb_pixels,
            const int interpolation_method, const int should_average,
            const int rx_apodization_method, const float rx_apodization_alpha,
            const int emitted_aperture, const int compound, const int reduce)
    {
        const int i = threadIdx.x + blockDim.x * blockIdx.x;
        if (i < nb_pixels) {
            int i_in_transmission = (int)i % (dim_nb_re * nb_pixels);
            int i_in_elements = (int)i_in_transmission % nb_pixels;
            int idx_p = (int)i_in_elements % nb_pixels;

            core_cvdas(data, 0, is_iq, emitted_probe, received_probe,
                      emitted_thetas, received_thetas, delays,
                      nb_t, nb_ee, nb_re, nb_ts,
                      sampling_freq, central_freq, t0, sound_speed, f_number,
                      x_coords[idx_p], y_coords[idx_p], z_coords[idx_p],
                      focused_data, grid, nb_pixels,
                      interpolation_method, should_average,
                      rx_apodization_method, rx_apodization_alpha,
                      emitted_aperture, compound, reduce, i);
        }
    }

    __global__ void cvdas_complex(
            const complex<float> *data, const int is_iq,
            const float *emitted_probe, const float *received_probe,
            const float *emitted_thetas, const float *received_thetas,
            const float *delays,
            const int nb_t, const int nb_ee, const int nb_re, const int nb_ts,
            const float sampling_freq, const float central_freq, const float t0,
            const float sound_speed, const float *f_number,
            const float *x_coords, const float *y_coords, const float *z_coords,
            const int dim_nb_t, const int dim_nb_re,
            complex<float> *focused_data, complex<float> *grid,
            const int nb_pixels,
            const int interpolation_method, const int should_average,
            const int rx_apodization_method, const float rx_apodization_alpha,
            const int emitted_aperture, const int compound, const int reduce)
    {
        const int i = threadIdx.x + blockDim.x * blockIdx.x;
        if (i < nb_pixels) {
            int i_in_transmission = (int)i % (dim_nb_re * nb_pixels);
            int i_in_elements = (int)i_in_transmission % nb_pixels;
            int idx_p = (int)i_in_elements % nb_pixels;

            core_cvdas(data, 0, is_iq, emitted_probe, received_probe,
                      emitted_thetas, received_thetas, delays,
                      nb_t, nb_ee, nb_re, nb_ts,
                      sampling_freq, central_freq, t0, sound_speed, f_number,
                      x_coords[idx_p], y_coords[idx_p], z_coords[idx_p],
                      focused_data, grid, nb_pixels,
                      interpolation_method, should_average,
                      rx_apodization_method, rx_apodization_alpha,
                      emitted_aperture, compound, reduce, i);
        }
    }

    __global__ void packet_cvdas_float(
            const float *data, const int is_iq,
            const float *emitted_probe, const float *received_probe,
            const float *emitted_thetas, const float *received_thetas,
            const float *delays,
            const int nb_f, const int nb_t,
            const int nb_ee, const int nb_re, const int nb_ts,
            const float sampling_freq, const float central_freq, const float t0,
            const float sound_speed, const float *f_number,
            const float *x_coords, const float *y_coords, const float *z_coords,
            const int dim_nb_t, const int dim_nb_re,
            complex<float> *focused_data, complex<float> *grid,
            const int total_nb_pixels,
            const int interpolation_method, const int should_average,
            const int rx_apodization_method, const float rx_apodization_alpha,
            const int emitted_aperture, const int compound, const int reduce)
    {
        const int i = threadIdx.x + blockDim.x * blockIdx.x;
        if (i < total_nb_pixels) {
            int i_in_transmission = (int)i % (dim_nb_re * total_nb_pixels);
            int i_in_elements = (int)i_in_transmission % total_nb_pixels;
            int i_in_pixels = (int)i_in_elements % nb_f;

            int idx_p = (int)i_in_elements / nb_f;
            int idx_f = i_in_pixels;

            int data_start_idx = idx_f * nb_t * nb_re * nb_ts;

            core_cvdas(data, data_start_idx, is_iq,
                      emitted_probe, received_probe,
                      emitted_thetas, received_thetas, delays,
                      nb_t, nb_ee, nb_re, nb_ts,
                      sampling_freq, central_freq, t0, sound_speed, f_number,
                      x_coords[idx_p], y_coords[idx_p], z_coords[idx_p],
                      focused_data, grid, total_nb_pixels,
                      interpolation_method, should_average,
                      rx_apodization_method, rx_apodization_alpha,
                      emitted_aperture, compound, reduce, i);
        }
    }

    __global__ void packet_cvdas_complex(
            const complex<float> *data, const int is_iq,
            const float *emitted_probe, const float *received_probe,
            const float *emitted_thetas, const float *received_thetas,
            const float *delays,
            const int nb_f, const int nb_t,
            const int nb_ee, const int nb_re, const int nb_ts,
            const float sampling_freq, const float central_freq, const float t0,
            const float sound_speed, const float *f_number,
            const float *x_coords, const float *y_coords, const float *z_coords,
            const int dim_nb_t, const int dim_nb_re,
            complex<float> *focused_data, complex<float> *grid,
            const int total_nb_pixels,
            const int interpolation_method, const int should_average,
            const int rx_apodization_method, const float rx_apodization_alpha,
            const int emitted_aperture, const int compound, const int reduce)
    {
        const int i = threadIdx.x + blockDim.x * blockIdx.x;
        if (i < total_nb_pixels) {
            int i_in_transmission = (int)i % (dim_nb_re * total_nb_pixels);
            int i_in_elements = (int)i_in_transmission % total_nb_pixels;
            int i_in_pixels = (int)i_in_elements % nb_f;

            int idx_p = (int)i_in_elements / nb_f;
            int idx_f = i_in_pixels;

            int data_start_idx = idx_f * nb_t * nb_re * nb_ts;

            core_cvdas(data, data_start_idx, is_iq,
                      emitted_probe, received_probe,
                      emitted_thetas, received_thetas, delays,
                      nb_t, nb_ee, nb_re, nb_ts,
                      sampling_freq, central_freq, t0, sound_speed, f_number,
                      x_coords[idx_p], y_coords[idx_p], z_coords[idx_p],
                      focused_data, grid, total_nb_pixels,
                      interpolation_method, should_average,
                      rx_apodization_method, rx_apodization_alpha,
                      emitted_aperture, compound, reduce, i);
        }
    }
}
