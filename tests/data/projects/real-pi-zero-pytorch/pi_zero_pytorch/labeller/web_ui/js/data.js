import { state } from './state.js';
import { apiFetch } from './api.js';
import { renderList, renderTasks, updateUIVisibility } from './render.js';
import { playVideo } from './player.js';

const loadingOverlay = document.getElementById('loading-overlay');
const loadingStatus = document.getElementById('loading-status');
const loadingProgress = document.getElementById('loading-progress');
const loadingDetail = document.getElementById('loading-detail');

// Older verification scripts poll this flag; keep it exported on window.
window.__RECAP_LOADING_FINISHED__ = false;

export function hideLoadingOverlay() {
    loadingOverlay.classList.add('hidden-element');
}

export function showLoadingOverlay(status, detail) {
    loadingOverlay.classList.remove('hidden-element');
    loadingStatus.textContent = status;
    loadingDetail.textContent = detail;
}

export function markRecapLoading() {
    loadingOverlay.dataset.recapLoading = 'true';
}

export async function fetchData() {
    try {
        const [videos, labels, tasksData, vpData] = await Promise.all([
            apiFetch('/api/videos'),
            apiFetch('/api/labels'),
            apiFetch('/api/tasks'),
            apiFetch('/api/viewpoints'),
        ]);
        state.videos = videos;
        state.labels = labels;
        state.tasks = tasksData.tasks || tasksData;
        state.viewpointNames = vpData.viewpoints || {};

        renderList();
        renderTasks();
        updateUIVisibility();

        if (state.videos.length > 0 && !state.activeVideo) {
            playVideo(state.videos[0]);
        }
    } catch (error) {
        console.error('Failed to fetch data:', error);
    }

    // Handle initialization races: the replay buffer may still be building
    if (state.videos.length === 0) {
        setTimeout(fetchData, 2000);
    }
}

let conversionPoller = null;

export function checkConversionStatus() {
    window.__RECAP_LOADING_FINISHED__ = false;
    if (conversionPoller) clearInterval(conversionPoller);

    conversionPoller = setInterval(async () => {
        // In RECAP mode the overlay is only shown while a folder load is in flight
        const isRecap = state.recapState && state.recapState.enabled;
        if (isRecap && loadingOverlay.dataset.recapLoading !== 'true') {
            hideLoadingOverlay();
            clearInterval(conversionPoller);
            return;
        }

        try {
            const status = await apiFetch('/api/status');
            if (status.is_converting) {
                loadingOverlay.classList.remove('hidden-element');
                const percent = status.total > 0 ? (status.progress / status.total) * 100 : 0;
                loadingProgress.style.width = `${percent}%`;
                loadingStatus.textContent = `Converting videos... (${status.progress}/${status.total})`;
                loadingDetail.textContent = status.current_video || 'Preparing ReplayBuffer...';
            } else {
                hideLoadingOverlay();
                loadingOverlay.dataset.recapLoading = 'false';
                window.__RECAP_LOADING_FINISHED__ = true;
                clearInterval(conversionPoller);
                await fetchData();
            }
        } catch (error) {
            console.error('Failed to check conversion status:', error);
        }
    }, 1000);
}
